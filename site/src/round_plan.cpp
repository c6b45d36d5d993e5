// The plan file: JSON conversion both ways, validation naming the field, file loading.
#include "hetscale/site/round_plan.hpp"

#include <set>

#include "hetscale/base/error.hpp"
#include "hetscale/base/json_depth.hpp"
#include "hetscale/base/json_fields.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/site/study_token.hpp"

namespace hetscale {
namespace {

using namespace json_fields;

std::string indexed(std::string_view array, std::size_t i) {
  return std::string(array) + '[' + std::to_string(i) + ']';
}

nlohmann::json set_json(const PlannedSet& planned) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [group, count] : planned.set.group_counts) {
    groups.push_back({{"group", group}, {"nodes", count}});
  }
  nlohmann::json out = {{"index", planned.set.index},
                        {"nodes", planned.set.nodes},
                        {"group_counts", std::move(groups)},
                        {"marked_speed", planned.set.marked_speed},
                        {"parameter_values", planned.parameter_values}};
  if (!planned.repetitions.empty()) out["repetitions"] = planned.repetitions;
  return out;
}

nlohmann::json site_json(const PlanSite& site) {
  nlohmann::json groups = nlohmann::json::array();
  for (const Group& g : site.groups)
    groups.push_back({{"name", g.name}, {"marked_speed", g.marked_speed}});
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& n : site.nodes) {
    nodes.push_back({{"name", n.name},
                     {"group", n.group},
                     {"processors", n.processors},
                     {"marked_speed", n.marked_speed},
                     {"state", std::string(to_string(n.state))}});
  }
  return {{"name", site.name},
          {"speed_unit", site.speed_unit},
          {"benchmark", site.benchmark},
          {"groups", std::move(groups)},
          {"nodes", std::move(nodes)}};
}

const Json& array_field(const Json& object, const std::string& parent, std::string_view key) {
  const Json& value = require(object, parent, key);
  if (!value.is_array()) fail(join(parent, key), "must be an array");
  return value;
}

NodeState node_state(const Json& value, const std::string& field) {
  const std::string s = text(value, field);
  if (s == "ok") return NodeState::ok;
  if (s == "degraded") return NodeState::degraded;
  if (s == "excluded") return NodeState::excluded;
  fail(field, "must be one of ok, degraded, excluded (got '" + s + "')");
}

nlohmann::json experiment_json(const PlanExperiment& e) {
  nlohmann::json out = {{"name", e.name},
                        {"code", e.code},
                        {"workload", e.workload},
                        {"parameter", e.parameter},
                        {"target_efficiency", e.target_efficiency}};
  if (e.spec) out["spec"] = {{"path", e.spec->path}, {"text", e.spec->text}};
  if (e.refine) {
    out["refine"] = {{"steps", e.refine->steps},
                     {"tolerance", e.refine->tolerance},
                     {"max_rounds", e.refine->max_rounds}};
    if (e.refine->precision) out["refine"]["precision"] = *e.refine->precision;
    if (e.refine->max_runs_per_set) out["refine"]["max_runs_per_set"] = *e.refine->max_runs_per_set;
  }
  return out;
}

const Json& object_field(const Json& object, const std::string& parent, std::string_view key) {
  const Json& value = require(object, parent, key);
  if (!value.is_object()) fail(join(parent, key), "must be an object");
  return value;
}

std::optional<PlanSpec> spec(const Json& e) {
  if (absent(find(e, "spec"))) return std::nullopt;
  const Json& s = object_field(e, "experiment", "spec");
  reject_unknown_keys(s, "experiment.spec", {"path", "text"});
  return PlanSpec{non_empty_text(require(s, "experiment.spec", "path"), "experiment.spec.path"),
                  non_empty_text(require(s, "experiment.spec", "text"), "experiment.spec.text")};
}

// The same rules as the spec's [refine] table (jobgen's experiment_spec.cpp).
std::optional<PlanRefine> refine(const Json& e) {
  if (absent(find(e, "refine"))) return std::nullopt;
  const std::string parent = "experiment.refine";
  const Json& r = object_field(e, "experiment", "refine");
  reject_unknown_keys(r, parent, {"steps", "tolerance", "max_rounds", "precision", "max_runs_per_set"});
  PlanRefine out;
  const Json& steps = array_field(r, parent, "steps");
  if (steps.empty()) fail(parent + ".steps", "must not be empty");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string field = indexed(parent + ".steps", i);
    const double step = positive(steps[i], field);
    if (step >= 1) fail(field, "must be less than 1");
    if (!out.steps.empty() && step <= out.steps.back())
      fail(field, "must be above the step before");
    out.steps.push_back(step);
  }
  out.tolerance = positive(require(r, parent, "tolerance"), parent + ".tolerance");
  if (out.tolerance >= 1) fail(parent + ".tolerance", "must be less than 1");
  out.max_rounds = static_cast<std::uint32_t>(
      small_counter(require(r, parent, "max_rounds"), parent + ".max_rounds"));
  if (const Json* precision = find(r, "precision"); !absent(precision)) {
    out.precision = positive(*precision, parent + ".precision");
    if (*out.precision >= 1) fail(parent + ".precision", "must be less than 1");
  }
  if (const Json* runs = find(r, "max_runs_per_set"); !absent(runs)) {
    if (!out.precision) fail(parent + ".max_runs_per_set", "needs experiment.refine.precision");
    out.max_runs_per_set = static_cast<std::uint32_t>(small_counter(*runs, parent + ".max_runs_per_set"));
  }
  return out;
}

PlanExperiment experiment(const Json& document) {
  const Json& e = require(document, "", "experiment");
  if (!e.is_object()) fail("experiment", "must be an object");
  reject_unknown_keys(
      e, "experiment",
      {"name", "code", "workload", "parameter", "target_efficiency", "spec", "refine"});
  PlanExperiment out;
  out.name = non_empty_text(require(e, "experiment", "name"), "experiment.name");
  out.code = non_empty_text(require(e, "experiment", "code"), "experiment.code");
  out.workload = non_empty_text(require(e, "experiment", "workload"), "experiment.workload");
  out.parameter = non_empty_text(require(e, "experiment", "parameter"), "experiment.parameter");
  out.target_efficiency =
      positive(require(e, "experiment", "target_efficiency"), "experiment.target_efficiency");
  if (out.target_efficiency > 1) fail("experiment.target_efficiency", "must be at most 1");
  out.spec = spec(e);
  out.refine = refine(e);
  return out;
}

std::vector<Group> groups(const Json& site) {
  const Json& array = array_field(site, "site", "groups");
  std::vector<Group> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string field = indexed("site.groups", i);
    if (!array[i].is_object()) fail(field, "must be an object");
    reject_unknown_keys(array[i], field, {"name", "marked_speed"});
    Group g;
    g.name = non_empty_text(require(array[i], field, "name"), field + ".name");
    g.marked_speed = positive(require(array[i], field, "marked_speed"), field + ".marked_speed");
    if (!seen.insert(g.name).second) fail(field + ".name", "repeats group '" + g.name + "'");
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<Node> nodes(const Json& site, const std::set<std::string>& group_names) {
  const Json& array = array_field(site, "site", "nodes");
  std::vector<Node> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string field = indexed("site.nodes", i);
    const Json& n = array[i];
    if (!n.is_object()) fail(field, "must be an object");
    reject_unknown_keys(n, field, {"name", "group", "processors", "marked_speed", "state"});
    Node node;
    node.name = non_empty_text(require(n, field, "name"), field + ".name");
    node.group = non_empty_text(require(n, field, "group"), field + ".group");
    if (group_names.count(node.group) == 0)
      fail(field + ".group", "names unknown group '" + node.group + "'");
    const int processors = small_counter(require(n, field, "processors"), field + ".processors");
    if (processors == 0) fail(field + ".processors", "must be a positive integer");
    node.processors = static_cast<std::uint32_t>(processors);
    node.marked_speed = positive(require(n, field, "marked_speed"), field + ".marked_speed");
    node.state = node_state(require(n, field, "state"), field + ".state");
    if (!seen.insert(node.name).second) fail(field + ".name", "repeats node '" + node.name + "'");
    out.push_back(std::move(node));
  }
  return out;
}

PlanSite site(const Json& document) {
  const Json& s = require(document, "", "site");
  if (!s.is_object()) fail("site", "must be an object");
  reject_unknown_keys(s, "site", {"name", "speed_unit", "benchmark", "groups", "nodes"});
  PlanSite out;
  out.name = non_empty_text(require(s, "site", "name"), "site.name");
  out.speed_unit = non_empty_text(require(s, "site", "speed_unit"), "site.speed_unit");
  out.benchmark = non_empty_text(require(s, "site", "benchmark"), "site.benchmark");
  out.groups = groups(s);
  std::set<std::string> names;
  for (const Group& g : out.groups) names.insert(g.name);
  out.nodes = nodes(s, names);
  return out;
}

std::vector<std::pair<std::string, std::size_t>> group_counts(const Json& set,
                                                              const std::string& field) {
  const Json& array = array_field(set, field, "group_counts");
  std::vector<std::pair<std::string, std::size_t>> out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string entry = indexed(field + ".group_counts", i);
    if (!array[i].is_object()) fail(entry, "must be an object");
    reject_unknown_keys(array[i], entry, {"group", "nodes"});
    out.emplace_back(non_empty_text(require(array[i], entry, "group"), entry + ".group"),
                     counter(require(array[i], entry, "nodes"), entry + ".nodes"));
  }
  return out;
}

// Every set's nodes must be site nodes, and group counts must add up to its size.
void check_set(const PlannedSet& planned, const std::string& field, const PlanSite& where) {
  std::size_t counted = 0;
  for (const auto& entry : planned.set.group_counts) counted += entry.second;
  if (counted != planned.set.nodes.size()) {
    fail(field + ".group_counts", "add up to " + std::to_string(counted) + " nodes, not " +
                                      std::to_string(planned.set.nodes.size()));
  }
  std::set<std::string> site_nodes;
  for (const Node& n : where.nodes) site_nodes.insert(n.name);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < planned.set.nodes.size(); ++i) {
    const std::string& name = planned.set.nodes[i];
    if (site_nodes.count(name) == 0)
      fail(indexed(field + ".nodes", i), "names unknown node '" + name + "'");
    if (!seen.insert(name).second)
      fail(indexed(field + ".nodes", i), "repeats node '" + name + "'");
  }
}

// One ascending list of distinct repetition numbers per parameter value.
std::vector<std::vector<std::uint32_t>> planned_repetitions(const Json& value, const std::string& field,
                                                            std::size_t values) {
  if (!value.is_array()) fail(field, "must be an array");
  if (value.size() != values)
    fail(field, "must have one list per parameter value (" + std::to_string(values) + ", got " +
                    std::to_string(value.size()) + ")");
  std::vector<std::vector<std::uint32_t>> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string list = indexed(field, i);
    if (!value[i].is_array() || value[i].empty()) fail(list, "must be a non-empty array");
    auto& reps = out.emplace_back();
    for (std::size_t j = 0; j < value[i].size(); ++j) {
      const int r = small_counter(value[i][j], indexed(list, j));
      if (!reps.empty() && static_cast<std::uint32_t>(r) <= reps.back())
        fail(indexed(list, j), "must be above the repetition before");
      reps.push_back(static_cast<std::uint32_t>(r));
    }
  }
  return out;
}

PlannedSet planned_set(const Json& value, const std::string& field, std::size_t position) {
  if (!value.is_object()) fail(field, "must be an object");
  reject_unknown_keys(value, field,
                      {"index", "nodes", "group_counts", "marked_speed", "parameter_values",
                       "repetitions"});
  PlannedSet out;
  out.set.index = counter(require(value, field, "index"), field + ".index");
  if (out.set.index != position) fail(field + ".index", "must be " + std::to_string(position));
  const Json& names = array_field(value, field, "nodes");
  if (names.empty()) fail(field + ".nodes", "must not be empty");
  for (std::size_t i = 0; i < names.size(); ++i) {
    out.set.nodes.push_back(non_empty_text(names[i], indexed(field + ".nodes", i)));
  }
  out.set.group_counts = group_counts(value, field);
  out.set.marked_speed = positive(require(value, field, "marked_speed"), field + ".marked_speed");
  const Json& values = array_field(value, field, "parameter_values");
  for (std::size_t i = 0; i < values.size(); ++i) {
    out.parameter_values.push_back(positive(values[i], indexed(field + ".parameter_values", i)));
  }
  if (const Json* repetitions = find(value, "repetitions"); !absent(repetitions))
    out.repetitions = planned_repetitions(*repetitions, field + ".repetitions", values.size());
  return out;
}

void check_schema(const Json& document) {
  const Json& value = require(document, "", "schema");
  if (!value.is_number_integer() || value.get<std::int64_t>() != round_plan_schema) {
    fail("schema", "must be " + std::to_string(round_plan_schema) + " (got " + shown(value) + ")");
  }
}

// nlohmann reports a byte offset; users want line and column.
SourceLocation location_of(std::string_view text, std::size_t byte, const std::string& source) {
  SourceLocation where{source, 1, 1};
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

}  // namespace

nlohmann::json to_json(const RoundPlan& plan) {
  nlohmann::json sets = nlohmann::json::array();
  for (const PlannedSet& s : plan.machine_sets) sets.push_back(set_json(s));
  nlohmann::json out = {{"schema", plan.schema},
                        {"created", plan.created},
                        {"experiment", experiment_json(plan.experiment)},
                        {"site", site_json(plan.site)},
                        {"machine_sets", std::move(sets)}};
  if (plan.round) out["round"] = *plan.round;
  if (plan.study_token) out["study_token"] = *plan.study_token;
  return out;
}

RoundPlan round_plan_from_json(const nlohmann::json& document) {
  if (!document.is_object()) throw Error("a plan file must be a JSON object");
  check_schema(document);
  reject_unknown_keys(document, "",
                      {"schema", "created", "round", "study_token", "experiment", "site", "machine_sets"});
  RoundPlan plan;
  plan.created = optional_timestamp(document, "", "created");
  if (const Json* round = find(document, "round"); !absent(round))
    plan.round = static_cast<std::uint32_t>(small_counter(*round, "round"));
  if (const Json* token = find(document, "study_token"); !absent(token)) {
    plan.study_token = text(*token, "study_token");
    if (!is_study_token(*plan.study_token))
      fail("study_token", "must be " + std::to_string(study_token_length) + " lowercase hexadecimal digits (got " +
                              shown(*token) + ")");
  }
  plan.experiment = experiment(document);
  plan.site = site(document);
  const Json& sets = array_field(document, "", "machine_sets");
  if (sets.empty()) fail("machine_sets", "must not be empty");
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const std::string field = indexed("machine_sets", i);
    plan.machine_sets.push_back(planned_set(sets[i], field, i));
    check_set(plan.machine_sets.back(), field, plan.site);
  }
  return plan;
}

bool is_round_plan(const nlohmann::json& document) {
  return document.is_object() && document.contains("machine_sets");
}

RoundPlan parse_round_plan(std::string_view text, const std::string& source_name) {
  require_json_nesting_within_limit(text, source_name);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string_view what = e.what();
    const auto colon = what.find(": ");
    throw ConfigError(location_of(text, e.byte, source_name),
                      "invalid JSON: " + std::string(what.substr(
                                             colon == std::string_view::npos ? 0 : colon + 2)));
  } catch (const nlohmann::json::out_of_range& e) {  // "number overflow parsing '1e400'"
    std::string_view what = e.what();
    throw ConfigError({source_name, 0, 0},
                      "invalid JSON: " + std::string(what.substr(what.find("] ") + 2)));
  }
  try {
    return round_plan_from_json(document);
  } catch (const Error& e) {
    throw ConfigError({source_name, 0, 0}, e.what());
  }
}

RoundPlan load_round_plan(const std::filesystem::path& file) {
  return parse_round_plan(read_text_file(file, "plan file"), file.string());
}

}  // namespace hetscale
