#include "hetscale/model/capacity_forecast.hpp"

#include <charconv>

#include <fmt/format.h>

#include "hetscale/base/error.hpp"
#include "hetscale/model/machine_sets.hpp"

namespace hetscale {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find(separator, begin)) != std::string::npos; begin = end + 1)
    parts.push_back(text.substr(begin, end - begin));
  parts.push_back(text.substr(begin));
  return parts;
}

template <typename T>
std::optional<T> parse_number(const std::string& text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

[[noreturn]] void bad_spec(const std::string& spec, const std::string& why) {
  throw Error(fmt::format("--what-if '{}': {} (expected add:K:GROUP or group:SPEED:K, K a "
                          "positive whole number of nodes, SPEED a positive marked speed)",
                          spec, why));
}

std::string group_label(const MachineSet& set) {
  std::string text;
  for (const auto& [group, count] : set.group_counts)
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", group, count);
  return text;
}

ForecastSet from_site_set(const MachineSet& set, const SiteTable& site) {
  ForecastSet out;
  out.kind = ForecastKind::doubling;
  out.label = fmt::format("site set {}: {}", set.index, group_label(set));
  out.node_count = set.nodes.size();
  out.marked_speed = set.marked_speed;
  for (const auto& name : set.nodes) out.processes += site.find_node(name)->processors;
  return out;
}

ForecastSet twice(const ForecastSet& set) {
  ForecastSet out;
  out.kind = ForecastKind::doubling;
  out.label = fmt::format("{} nodes (2 x the previous set, beyond the site)", 2 * set.node_count);
  out.node_count = 2 * set.node_count;
  out.marked_speed = 2 * set.marked_speed;
  out.processes = 2 * set.processes;
  return out;
}

}  // namespace

const char* to_string(ForecastKind kind) {
  switch (kind) {
    case ForecastKind::measured:
      return "measured";
    case ForecastKind::doubling:
      return "doubling";
    case ForecastKind::what_if:
      return "what_if";
  }
  return "unknown";
}

WhatIf parse_what_if(const std::string& spec) {
  const auto parts = split(spec, ':');
  if (parts.size() != 3) bad_spec(spec, "three fields separated by ':' are needed");
  WhatIf w;
  w.spec = spec;
  const std::string& count = parts[0] == "add" ? parts[1] : parts[2];
  if (parts[0] == "add") {
    w.group = parts[2];
    if (w.group.empty()) bad_spec(spec, "the group name is empty");
  } else if (parts[0] == "group") {
    const auto speed = parse_number<double>(parts[1]);
    if (!speed || !(*speed > 0)) bad_spec(spec, "'" + parts[1] + "' is not a positive speed");
    w.speed = *speed;
  } else {
    bad_spec(spec, "unknown kind '" + parts[0] + "'");
  }
  const auto k = parse_number<std::size_t>(count);
  if (!k || *k == 0) bad_spec(spec, "'" + count + "' is not a positive node count");
  w.count = *k;
  return w;
}

ForecastSet apply_what_if(const WhatIf& what_if, const ForecastSet& base, const SiteTable* site) {
  ForecastSet out;
  out.kind = ForecastKind::what_if;
  out.label = base.label.empty() ? what_if.spec : what_if.spec + " on " + base.label;
  out.node_count = base.node_count + what_if.count;
  const auto k = static_cast<double>(what_if.count);
  if (what_if.group.empty()) {
    out.marked_speed = base.marked_speed + k * what_if.speed;
    out.processes = base.processes + what_if.count;
    return out;
  }
  if (site == nullptr)
    throw Error("--what-if " + what_if.spec +
                ": adding nodes of a site group needs the site table (--site FILE, or an "
                "experiment whose site is in the database)");
  const Group* group = site->find_group(what_if.group);
  if (group == nullptr) throw Error("--what-if " + what_if.spec + ": the site has no group '" +
                                    what_if.group + "'");
  std::uint32_t processors = 1;  // a group's nodes share their hardware: take the first's
  for (const Node& n : site->nodes)
    if (n.group == group->name) {
      processors = n.processors;
      break;
    }
  out.marked_speed = base.marked_speed + k * processors * group->marked_speed;
  out.processes = base.processes + what_if.count * processors;
  return out;
}

std::vector<ForecastSet> doubling_sets(const ForecastSet& largest, const SiteTable* site,
                                       std::size_t doublings) {
  std::vector<ForecastSet> out;
  if (site != nullptr) {
    MachineSetOptions options;
    options.policy = SetPolicy::fill;
    std::vector<MachineSet> sets;
    try {
      sets = build_machine_sets(*site, options);
    } catch (const Error&) {
      // A site too small for even the first set simply gives no site sets.
    }
    for (const auto& set : sets)
      if (set.nodes.size() > largest.node_count && out.size() < doublings)
        out.push_back(from_site_set(set, *site));
  }
  while (out.size() < doublings) out.push_back(twice(out.empty() ? largest : out.back()));
  return out;
}

ParameterSearchRange forecast_search_range(const TimeModel& model) {
  return {model.min_parameter() / 100, model.max_parameter() * 1e4};
}

std::vector<ForecastRow> forecast(const TimeModel& model, const Workload& workload, double target,
                                  double ops_per_unit, const std::vector<ForecastSet>& sets) {
  std::vector<ForecastRow> rows;
  const auto [low, high] = forecast_search_range(model);
  for (const auto& set : sets) {
    ForecastRow row;
    row.set = set;
    row.prediction = predict_parameter(model, workload, set.marked_speed * ops_per_unit,
                                       set.processes, target, low, high);
    if (row.prediction.found && set.measured_parameter)
      row.relative_error =
          (row.prediction.parameter - *set.measured_parameter) / *set.measured_parameter;
    if (set.base && *set.base >= rows.size())
      throw Error(fmt::format("forecast: the base of '{}' is not a set before it", set.label));
    if (set.base || !rows.empty()) row.psi_against = set.base.value_or(rows.size() - 1);
    if (row.psi_against && rows[*row.psi_against].prediction.found && row.prediction.found) {
      const auto& against = rows[*row.psi_against];
      row.psi = (set.marked_speed * against.prediction.work) /
                (against.set.marked_speed * row.prediction.work);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace hetscale
