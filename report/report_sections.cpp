#include "report_sections.hpp"

#include "section_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "hetscale/site/hostlist.hpp"

namespace hetscale::report {

using namespace parts;

namespace {

std::vector<double> targets_of(const ExperimentData& e) {
  std::set<double> t;
  for (const auto& f : e.forecasts) t.insert(f.target_efficiency);
  return {t.begin(), t.end()};
}

bool any_data(const ReportData& data, bool (*has)(const ExperimentData&)) {
  return std::any_of(data.experiments.begin(), data.experiments.end(), has);
}

// --- tables --------------------------------------------------------------------------

ReportTable curve_table(const ExperimentData& e) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& p : e.curve)
    rows.push_back({integer(p.set_index), number(p.parameter_value), integer(p.runs),
                    number(p.work), figure(p.speed_efficiency, p.speed_efficiency_interval),
                    number(p.min_speed_efficiency), number(p.max_speed_efficiency),
                    number(p.stddev_speed_efficiency)});
  return make_table("efficiency-" + slug(shown_name(e)),
                    captioned("E_s curve points, " + experiment_label(e), e.curve,
                              &CurvePoint::speed_efficiency_interval),
                    {"set_index", "parameter_value", "runs", {"work", kWorkUnit},
                     "speed_efficiency", "min_speed_efficiency", "max_speed_efficiency",
                     "stddev_speed_efficiency"},
                    rows);
}

ReportTable required_work_table(const ExperimentData& e) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& w : e.required_work)
    rows.push_back({integer(w.set_index), integer(w.node_count), number(w.marked_speed),
                    number(w.target_efficiency), text(w.status),
                    figure(w.parameter_value, w.parameter_interval), figure(w.work, w.work_interval),
                    number(w.nearest_efficiency), text(w.explanation)});
  return make_table("required-work-" + slug(shown_name(e)),
                    captioned("Required work at the target, " + experiment_label(e),
                              e.required_work, &RequiredWork::parameter_interval),
                    {"set_index", "node_count", {"marked_speed", unit_of(e)}, "target_efficiency",
                     "status", "parameter_value", {"work", kWorkUnit}, "nearest_efficiency",
                     "explanation"},
                    rows);
}

ReportTable psi_table(const std::vector<ExperimentData>& experiments) {
  std::vector<std::vector<Cell>> rows;
  std::string unit;
  std::vector<OptionalInterval> intervals;
  for (const auto& e : experiments)
    for (const auto& p : e.psi) {
      intervals.push_back(p.psi_interval);
      unit = unit.empty() || unit == unit_of(e) ? unit_of(e) : "site speed units";
      rows.push_back({text(shown_name(e)), number(p.target_efficiency), integer(p.set_index),
                      integer(p.next_set_index), number(p.marked_speed),
                      number(p.next_marked_speed), number(p.work), number(p.next_work),
                      figure(p.psi, p.psi_interval)});
    }
  return make_table("psi", captioned("psi between consecutive sets", intervals),
                    {"experiment", "target_efficiency", "set_index", "next_set_index",
                     {"marked_speed", unit}, {"next_marked_speed", unit}, {"work", kWorkUnit},
                     {"next_work", kWorkUnit}, "psi"},
                    rows);
}

/// Every node, in natural host order within its group (the per-node list, folded).
ReportTable node_table(const std::string& site, const std::vector<NodeRow>& nodes) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& n : nodes)
    rows.push_back({text(n.group), number(n.group_marked_speed), text(n.host),
                    integer(n.processors), number(n.marked_speed),
                    number(n.marked_speed * n.processors), text(n.speed_unit), text(n.state)});
  ReportTable t = make_table("node-map-" + slug(site), "Every node of site " + site,
                             {"group", "group_marked_speed", "host", "processors", "marked_speed",
                              "node_marked_speed", "speed_unit", "state"},
                             rows);
  t.folded = true;
  return t;
}

/// "20" or "20 to 40": the range of a figure over some nodes.
Cell speed_range(double low, double high) {
  if (low == high) return number(low);
  return {shown_number(low) + " to " + shown_number(high), fmt::format("{}", low), true};
}

ReportTable node_group_table(const std::string& site, const std::vector<NodeRow>& nodes) {
  std::vector<std::vector<Cell>> rows;
  const std::string unit = nodes.empty() ? "" : nodes.front().speed_unit;
  const std::vector<NodeGroup> groups = node_groups(nodes);
  // The hardware column only where the site table described some group's nodes.
  const bool hardware = std::any_of(groups.begin(), groups.end(),
                                    [](const NodeGroup& g) { return !g.hardware.empty(); });
  for (const NodeGroup& g : groups) {
    rows.push_back({text(g.group), text(g.state), integer(static_cast<long long>(g.hosts.size())),
                    text(compress_hostlist(g.hosts)),
                    g.min_processors == g.max_processors
                        ? integer(g.min_processors)
                        : Cell{fmt::format("{} to {}", g.min_processors, g.max_processors),
                               std::to_string(g.min_processors), true},
                    speed_range(g.min_node_speed, g.max_node_speed), number(g.group_marked_speed)});
    if (hardware) rows.back().push_back(text(g.hardware));
  }
  std::vector<Column> columns{"group", "state", "nodes", "hosts", "processors",
                              {"node_marked_speed", unit}, {"group_marked_speed", unit}};
  if (hardware) columns.emplace_back("hardware");
  return make_table("node-groups-" + slug(site), "Nodes of site " + site + " by group and state",
                    columns, rows);
}

namespace {

// OS indices as ranges: 0-11,16.
std::string cpu_ranges(const std::vector<long long>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

ReportTable cpu_kind_table(const std::string& site, const std::vector<GroupCpuKindRow>& kinds) {
  std::vector<std::vector<Cell>> rows;
  const std::string unit = kinds.empty() ? "" : kinds.front().speed_unit;
  for (const GroupCpuKindRow& k : kinds)
    rows.push_back({text(k.group), integer(k.kind), text(cpu_ranges(k.cpus)),
                    integer(static_cast<long long>(k.cpus.size())),
                    k.efficiency ? integer(*k.efficiency) : text(""), text(k.core_type),
                    number(k.marked_speed), number(k.group_marked_speed)});
  return make_table("cpu-kinds-" + slug(site), "Kinds of core of site " + site + "'s hybrid nodes",
                    {"group", "kind", "cpus", "cpu_count", "efficiency", "core_type",
                     {"kind_marked_speed", unit}, {"group_marked_speed", unit}},
                    rows);
}

ReportTable time_variability_table(const ExperimentData& e) {
  std::vector<const NodeTimeVariability*> sorted;
  for (const auto& t : e.node_time_variability) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return a->set_index != b->set_index ? a->set_index < b->set_index
                                        : natural_host_less(a->host, b->host);
  });
  std::vector<std::vector<Cell>> rows;
  for (const auto* t : sorted)
    rows.push_back({integer(t->set_index), text(t->host), integer(t->configurations),
                    integer(t->runs), number(t->per_sqrt_s)});
  return make_table("time-variability-" + slug(shown_name(e)),
                    "Run-time variability per node, " + experiment_label(e),
                    {"set_index", "host", "configurations", "runs",
                     {"time_variability", "1/√s"}},
                    rows);
}

ReportTable sh_table(const std::vector<ExperimentData>& experiments) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& e : experiments)
    for (const auto& s : e.set_sh)
      rows.push_back({text(shown_name(e)), integer(s.set_index), integer(s.nodes),
                      integer(s.measured_nodes), number(s.max_th), number(s.mean_th),
                      number(s.sh)});
  return make_table(
      "sh", "SH per set",
      {"experiment", "set_index", "nodes", "measured_nodes", "max_th", "mean_th", "sh"}, rows);
}

ReportTable shares_table(const ExperimentData& e, const std::optional<int>& set_index) {
  std::vector<const PartitionShare*> sorted;
  for (const auto& p : e.partitions)
    if (p.set_index == set_index) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return a->method != b->method ? a->method < b->method : natural_host_less(a->host, b->host);
  });
  std::vector<std::vector<Cell>> rows;
  for (const auto* p : sorted)
    rows.push_back({text(p->method), text(p->host), number(p->share),
                    number(p->mean_seconds_per_op), number(p->sd_seconds_per_op),
                    number(p->expected_seconds)});
  return make_table("shares-" + slug(experiment_label(e)) + "-" + slug(set_label(set_index)),
                    "Shares, " + experiment_label(e) + ", " + set_label(set_index),
                    {"method", "host", "share", {"mean_seconds_per_op", "s"},
                     {"sd_seconds_per_op", "s"}, {"expected_seconds", "s"}},
                    rows);
}

/// One row per partition (the shares' rows repeat the partition's figures).
struct PartitionSummary {
  const ExperimentData* experiment = nullptr;
  const PartitionShare* first = nullptr;
};

std::vector<PartitionSummary> partition_summaries(const std::vector<ExperimentData>& experiments) {
  std::vector<PartitionSummary> out;
  for (const auto& e : experiments) {
    std::set<long long> seen;
    for (const auto& p : e.partitions)
      if (seen.insert(p.partition_id).second) out.push_back({&e, &p});
  }
  return out;
}

/// Simulated tau of the proportional partition of the same experiment and set.
OptionalNumber proportional_tau(const ExperimentData& e, const std::optional<int>& set_index) {
  for (const auto& p : e.partitions)
    if (p.set_index == set_index && p.method == "proportional") return p.simulated_tau;
  return std::nullopt;
}

ReportTable partitions_table(const std::vector<ExperimentData>& experiments) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& [e, p] : partition_summaries(experiments)) {
    const OptionalNumber base = proportional_tau(*e, p->set_index);
    const double change = base && p->simulated_tau ? *p->simulated_tau / *base - 1 : kNaN;
    rows.push_back({text(experiment_label(*e)), text(set_label(p->set_index)), text(p->method),
                    number(p->seconds), text(p->node_list), number(p->degree_of_equalization),
                    number(p->simulated_tau), number(p->simulated_sigma), number(p->simulated_risk),
                    percent(change)});
  }
  return make_table("partitions", "Newest partitions (simulated)",
                    {"experiment", "set", "method", {"seconds", "s"}, "node_list",
                     "degree_of_equalization", {"simulated_tau", "s"}, {"simulated_sigma", "s"},
                     "simulated_risk", "tau_change_vs_proportional"},
                    rows);
}

ReportTable gain_table(const ExperimentData& e) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& g : measured_gains(e))
    rows.push_back({integer(g.set_index), number(g.parameter_value), integer(g.marked_runs),
                    number(g.marked_seconds), integer(g.equalized_runs),
                    number(g.equalized_seconds), percent(g.gain())});
  return make_table("gain-" + slug(shown_name(e)),
                    "Measured gain of equalized weights, " + experiment_label(e),
                    {"set_index", "parameter_value", "marked_runs",
                     {"marked_mean_wall_seconds", "s"}, "equalized_runs",
                     {"equalized_mean_wall_seconds", "s"}, "gain"},
                    rows);
}

/// The forecast's rows at one target, with the measured figures beside the predicted ones.
/// psi is against the row before, or for a what-if set against the set its label names.
ReportTable forecast_table(const ExperimentData& e, double target) {
  std::vector<std::vector<Cell>> rows;
  std::vector<OptionalInterval> intervals;
  for (const auto& f : e.forecasts) {
    if (f.target_efficiency != target) continue;
    intervals.insert(intervals.end(), {f.predicted_parameter_interval, f.predicted_psi_interval});
    rows.push_back({integer(f.position), text(f.kind), text(f.label),
                    f.set_index ? integer(*f.set_index) : Cell{"", "", true}, integer(f.node_count),
                    number(f.marked_speed),
                    figure(f.predicted_parameter, f.predicted_parameter_interval),
                    figure(f.predicted_work, f.predicted_work_interval),
                    figure(f.predicted_psi, f.predicted_psi_interval), number(f.measured_parameter),
                    number(f.measured_work),
                    f.relative_error ? percent(*f.relative_error) : Cell{"n/a", "", true},
                    text(f.model)});
  }
  return make_table(
      fmt::format("forecast-{}-{}", slug(shown_name(e)), slug(fmt::format("{}", target))),
      captioned(fmt::format("Forecast, {} at {}", experiment_label(e), target_label(target)),
                intervals),
      {{"position", "", true}, "kind", "label", {"set_index", "", true}, "node_count",
       {"marked_speed", unit_of(e)}, "predicted_parameter", {"predicted_work", kWorkUnit},
       "predicted_psi", "measured_parameter", {"measured_work", kWorkUnit}, "relative_error",
       "model"},
      rows);
}

/// "prediction error where measured: mean |e| ..., max ..." or empty when none measured.
std::string forecast_error_note(const ExperimentData& e, double target) {
  double sum = 0;
  double worst = 0;
  int n = 0;
  for (const auto& f : e.forecasts)
    if (f.target_efficiency == target && f.relative_error) {
      sum += std::abs(*f.relative_error);
      worst = std::max(worst, std::abs(*f.relative_error));
      ++n;
    }
  if (n == 0) return "";
  auto size = [](double fraction) {  // |error| needs no sign
    const std::string text = shown_percent(fraction);
    return text.starts_with('+') ? text.substr(1) : text;
  };
  return fmt::format(
      "{} at {}: prediction error of the parameter at the target where measured: mean |error| "
      "{}, largest {} ({} set{})",
      experiment_label(e), target_label(target), size(sum / n), size(worst), n, n == 1 ? "" : "s");
}

// --- bar grids -----------------------------------------------------------------------
// The bar charts are grids of categories x series filled from view rows; a bar never set
// stays NaN (drawn as none). Categories and series keep the order they are first added.

std::size_t add_category(BarChart& chart, const std::string& category) {
  const auto at = std::find(chart.categories.begin(), chart.categories.end(), category);
  if (at != chart.categories.end()) return static_cast<std::size_t>(at - chart.categories.begin());
  chart.categories.push_back(category);
  for (auto& row : chart.values) row.push_back(kNaN);
  return chart.categories.size() - 1;
}

std::size_t add_series(BarChart& chart, const std::string& series) {
  const auto at = std::find(chart.series.begin(), chart.series.end(), series);
  if (at != chart.series.end()) return static_cast<std::size_t>(at - chart.series.begin());
  chart.series.push_back(series);
  chart.values.emplace_back(chart.categories.size(), kNaN);
  return chart.series.size() - 1;
}

void set_bar(BarChart& chart, const std::string& category, const std::string& series,
             double value) {
  const std::size_t c = add_category(chart, category);
  chart.values[add_series(chart, series)][c] = value;
}

}  // namespace

// --- charts --------------------------------------------------------------------------

bool has_marks(const LineChart& chart) {
  auto drawn = [&](const Point& p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && !(chart.log_x && p.x <= 0) &&
           !(chart.log_y && p.y <= 0);
  };
  for (const auto* list : {&chart.series, &chart.highlights})
    for (const auto& s : *list)
      if ((s.markers || s.line) && std::any_of(s.points.begin(), s.points.end(), drawn))
        return true;
  return false;
}

bool has_marks(const BarChart& chart) {
  if (chart.categories.empty()) return false;
  for (const auto& row : chart.values)
    if (std::any_of(row.begin(), row.end(), [](double v) { return std::isfinite(v); })) return true;
  return false;
}

LineChart efficiency_chart(const ExperimentData& e) {
  LineChart chart;
  chart.title = "Speed-efficiency E_s, " + experiment_label(e);
  chart.x_label = parameter_label(e) + " (problem size, log scale)";
  chart.y_label = "speed-efficiency E_s = W / (T C) (dimensionless)";
  chart.log_x = std::all_of(e.curve.begin(), e.curve.end(),
                            [](const CurvePoint& p) { return p.parameter_value > 0; });
  std::map<int, std::vector<Point>> by_set;
  for (const auto& p : e.curve)
    by_set[p.set_index].push_back({p.parameter_value, p.speed_efficiency});
  for (auto& [set_index, points] : by_set) {
    std::sort(points.begin(), points.end(), [](Point a, Point b) { return a.x < b.x; });
    chart.series.push_back({set_label(e, set_index), points});
  }
  if (!chart.log_x) chart.x_label = parameter_label(e) + " (problem size)";
  std::set<double> targets;
  Series read_off{"parameter at target (read-off)", {}, false, true, false};
  for (const auto& w : e.required_work) {
    targets.insert(w.target_efficiency);
    if (reaches_target(w.status) && w.parameter_value)
      read_off.points.push_back({*w.parameter_value, w.target_efficiency});
  }
  for (double t : targets) chart.horizontal_lines.push_back({"target " + target_label(t), t});
  if (!read_off.points.empty()) chart.highlights.push_back(read_off);
  return chart;
}

BarChart psi_chart(const std::vector<ExperimentData>& experiments) {
  BarChart chart;
  chart.title = "Isospeed-e scalability psi between consecutive sets";
  chart.x_label = "from set -> to set";
  chart.y_label = "psi = C' W / (C W') (dimensionless, 1 = ideal)";
  auto category = [](const auto& p) {
    return fmt::format("set {} -> {}", p.set_index, p.next_set_index);
  };
  std::set<std::pair<int, int>> pairs;
  for (const auto& e : experiments)
    for (const auto& p : e.psi) pairs.insert({p.set_index, p.next_set_index});
  for (const auto& [from, to] : pairs) add_category(chart, fmt::format("set {} -> {}", from, to));
  for (const auto& e : experiments) {
    auto series = [&](double target) {
      return fmt::format("{} ({})", experiment_label(e), target_label(target));
    };
    std::set<double> targets;
    for (const auto& p : e.psi) targets.insert(p.target_efficiency);
    for (double t : targets) add_series(chart, series(t));
    for (const auto& p : e.psi)
      set_bar(chart, category(p), series(p.target_efficiency), or_nan(p.psi));
  }
  return chart;
}

BarChart node_map_chart(const std::string& site, const std::vector<NodeRow>& nodes) {
  BarChart chart;
  const std::string unit = nodes.empty() ? "" : nodes.front().speed_unit;
  chart.title = "Marked speed per node, site " + site;
  chart.x_label = "node (coloured by group; degraded and excluded nodes marked)";
  chart.y_label = "marked speed of the node (" + unit + ")";
  chart.series = {"marked speed"};
  chart.values.emplace_back();
  for (const auto& n : nodes) {
    chart.categories.push_back(n.host);
    chart.category_groups.push_back(n.group);
    chart.category_notes.push_back(n.state == "ok" ? "" : n.state);
    chart.values[0].push_back(n.marked_speed * n.processors);
  }
  return chart;
}

BarChart group_speed_chart(const std::string& site, const std::vector<NodeRow>& nodes) {
  BarChart chart;
  const std::string unit = nodes.empty() ? "" : nodes.front().speed_unit;
  chart.title = "Marked speed per node by group, site " + site;
  chart.x_label = "node group (nodes not ok marked)";
  chart.y_label = "marked speed of a node (" + unit + ")";
  chart.series = {"smallest", "mean", "largest"};
  chart.values.resize(3);
  // node_groups gives a group's states in a row: one bar group per run of the same group.
  const std::vector<NodeGroup> groups = node_groups(nodes);
  for (auto first = groups.begin(); first != groups.end();) {
    const auto last = std::find_if(first, groups.end(),
                                   [&](const NodeGroup& g) { return g.group != first->group; });
    double low = first->min_node_speed;
    double high = first->max_node_speed;
    double sum = 0;
    std::size_t members = 0;
    std::size_t not_ok = 0;
    for (auto g = first; g != last; ++g) {
      low = std::min(low, g->min_node_speed);
      high = std::max(high, g->max_node_speed);
      sum += g->total_node_speed;
      members += g->hosts.size();
      not_ok += g->state == "ok" ? 0 : g->hosts.size();
    }
    chart.categories.push_back(fmt::format("{} ({} nodes)", first->group, members));
    chart.category_notes.push_back(not_ok ? fmt::format("{} not ok", not_ok) : "");
    chart.values[0].push_back(low);
    chart.values[1].push_back(sum / static_cast<double>(members));
    chart.values[2].push_back(high);
    first = last;
  }
  return chart;
}

BarChart time_variability_chart(const ExperimentData& e) {
  BarChart chart;
  chart.title = "Run-time variability per node, " + experiment_label(e);
  chart.x_label = "node";
  chart.y_label = "sd / mean of seconds per operation x sqrt(seconds) (per sqrt(s))";
  std::set<std::string> hosts;
  std::set<int> sets;
  for (const auto& t : e.node_time_variability) {
    hosts.insert(t.host);
    sets.insert(t.set_index);
  }
  const std::vector<std::string> listed(hosts.begin(), hosts.end());
  for (const auto& h : sort_hostnames(listed)) add_category(chart, h);
  for (int s : sets) add_series(chart, set_label(e, s));
  for (const auto& t : e.node_time_variability)
    set_bar(chart, t.host, set_label(e, t.set_index), t.per_sqrt_s);
  return chart;
}

BarChart sh_chart(const std::vector<ExperimentData>& experiments) {
  BarChart chart;
  chart.title = "Spatial heterogeneity SH per set";
  chart.x_label = "machine set";
  chart.y_label = "SH = max TH - mean TH, TH = sigma_A / a of availability (dimensionless)";
  std::set<int> sets;
  for (const auto& e : experiments)
    for (const auto& s : e.set_sh) sets.insert(s.set_index);
  for (int s : sets) add_category(chart, fmt::format("set {}", s));
  for (const auto& e : experiments)
    for (const auto& s : e.set_sh)
      set_bar(chart, fmt::format("set {}", s.set_index), experiment_label(e), s.sh);
  return chart;
}

BarChart shares_chart(const ExperimentData& e, const std::optional<int>& set_index) {
  BarChart chart;
  chart.title = "Partition shares, " + experiment_label(e) + ", " + set_label(set_index);
  chart.x_label = "node";
  chart.y_label = "share of the work (fraction)";
  std::vector<std::string> hosts;
  for (const auto& p : e.partitions)
    if (p.set_index == set_index) hosts.push_back(p.host);
  for (const auto& h : sort_hostnames(hosts)) add_category(chart, h);
  for (const auto& p : e.partitions)
    if (p.set_index == set_index) set_bar(chart, p.host, p.method, p.share);
  return chart;
}

BarChart tau_chart(const std::vector<ExperimentData>& experiments) {
  BarChart chart;
  chart.title = "Simulated run time tau of the newest partitions";
  chart.x_label = "experiment and set";
  chart.y_label = "tau = E[max_i T_i] (s)";
  for (const auto& [e, p] : partition_summaries(experiments))
    set_bar(chart, experiment_label(*e) + ", " + set_label(p->set_index), p->method,
            or_nan(p->simulated_tau));
  return chart;
}

std::vector<MeasuredGain> measured_gains(const ExperimentData& e) {
  std::vector<MeasuredGain> out;
  for (const auto& m : e.weights) {
    if (m.weights_source != "marked") continue;
    for (const auto& q : e.weights)
      if (q.weights_source == "equalized" && q.set_index == m.set_index &&
          q.parameter_value == m.parameter_value && m.mean_wall_seconds > 0)
        out.push_back({m.set_index, m.parameter_value, m.mean_wall_seconds, q.mean_wall_seconds,
                       m.runs, q.runs});
  }
  return out;
}

BarChart gain_chart(const ExperimentData& e) {
  BarChart chart;
  chart.title = "Measured run time, marked vs equalized weights, " + experiment_label(e);
  chart.x_label = "set and " + parameter_label(e);
  chart.y_label = "mean wall time T (s)";
  chart.series = {"marked", "equalized"};
  chart.values.resize(2);
  for (const auto& g : measured_gains(e)) {
    chart.categories.push_back(
        fmt::format("set {}, {}", g.set_index,
                    g.parameter_value ? fmt::format("{:.6g}", *g.parameter_value) : "n/a"));
    chart.values[0].push_back(g.marked_seconds);
    chart.values[1].push_back(g.equalized_seconds);
  }
  return chart;
}

namespace {

/// The band of the forecast rows' intervals of one figure around their series: one
/// joined band for the measured sets and doublings (series 0), bars for the what-if sets
/// (series 1, when there is one); a band with no closed interval is left out.
void add_forecast_bands(LineChart& chart, const ExperimentData& e, double target,
                        double (*x_of)(const Forecast&),
                        const OptionalInterval Forecast::*interval) {
  Band path{"", 0, {}, true};
  Band what_if{"", chart.series.size() > 1 ? std::size_t{1} : std::size_t{0}, {}, false};
  double level = 0;
  for (const auto& f : e.forecasts) {
    const OptionalInterval& i = f.*interval;
    if (f.target_efficiency != target || !i || (!i->low && !i->high)) continue;
    level = i->level;
    (f.kind == "what_if" ? what_if : path)
        .points.push_back({x_of(f), i->low.value_or(kNaN), i->high.value_or(kNaN)});
  }
  path.name = fmt::format("{:g}% interval of one new run (measured sets, doublings)", 100 * level);
  what_if.name = fmt::format("{:g}% interval of one new run (what-if sets)", 100 * level);
  for (Band* b : {&path, &what_if})
    if (std::any_of(b->points.begin(), b->points.end(),
                    [](const BandPoint& p) { return std::isfinite(p.low) && std::isfinite(p.high); }))
      chart.bands.push_back(std::move(*b));
}

double nodes_of(const Forecast& f) { return static_cast<double>(f.node_count); }
double speed_of(const Forecast& f) { return f.marked_speed; }

}  // namespace

LineChart forecast_psi_chart(const ExperimentData& e, double target) {
  LineChart chart;
  chart.title = fmt::format("Predicted psi, {} at {}", experiment_label(e), target_label(target));
  chart.x_label = "nodes of the set (log scale)";
  chart.y_label = "predicted psi (dimensionless, 1 = ideal)";
  chart.log_x = true;
  Series path{"measured sets, doublings: psi from the set before", {}, true, true, false};
  Series what_if{"what-if sets: psi from the set each grows", {}, false, true, false};
  for (const auto& f : e.forecasts) {
    if (f.target_efficiency != target) continue;
    (f.kind == "what_if" ? what_if : path)
        .points.push_back({static_cast<double>(f.node_count), or_nan(f.predicted_psi)});
  }
  std::sort(path.points.begin(), path.points.end(), [](Point a, Point b) { return a.x < b.x; });
  for (auto* s : {&path, &what_if})
    if (!s->points.empty()) chart.series.push_back(*s);
  if (!path.points.empty())
    add_forecast_bands(chart, e, target, nodes_of, &Forecast::predicted_psi_interval);
  return chart;
}

LineChart forecast_work_chart(const ExperimentData& e, double target) {
  LineChart chart;
  chart.title = fmt::format("Required work at {}, {}", target_label(target), experiment_label(e));
  chart.x_label = "marked speed of the set C (" + unit_of(e) + ", log scale)";
  chart.y_label = "required work W' (operations, log scale)";
  chart.log_x = true;
  chart.log_y = true;
  Series path{"predicted (measured sets, doublings)", {}, true, true, false};
  Series what_if{"predicted (what-if sets)", {}, false, true, false};
  Series measured{"measured", {}, false, true, false};
  for (const auto& f : e.forecasts) {
    if (f.target_efficiency != target) continue;
    (f.kind == "what_if" ? what_if : path)
        .points.push_back({f.marked_speed, or_nan(f.predicted_work)});
    if (f.measured_work) measured.points.push_back({f.marked_speed, *f.measured_work});
  }
  std::sort(path.points.begin(), path.points.end(), [](Point a, Point b) { return a.x < b.x; });
  for (auto* s : {&path, &what_if, &measured})
    if (!s->points.empty()) chart.series.push_back(*s);
  if (!path.points.empty())
    add_forecast_bands(chart, e, target, speed_of, &Forecast::predicted_work_interval);
  return chart;
}

// --- sections ------------------------------------------------------------------------

ReportSection efficiency_section(const ReportData& data) {
  ReportSection section{"efficiency",
                        "Speed-efficiency and required work",
                        "E_s = W / (T C) of every run, averaged over repetitions, against the "
                        "problem parameter; one curve per machine set. The dashed line is the "
                        "target E_s; the diamonds are the parameter values read off the fitted "
                        "curves at the target (hetscale analyze).",
                        {},
                        {},
                        {},
                        {}};
  for (const auto& e : data.experiments) {
    if (e.from_files) continue;
    const LineChart chart = efficiency_chart(e);
    if (!has_marks(chart)) {
      section.notes.push_back(fmt::format(
          "{}: no runs with a known E_s: run hetscale collect --db URI <records and plan>",
          experiment_label(e)));
      continue;
    }
    if (e.required_work.empty())
      section.notes.push_back(fmt::format(
          "{}: no required work stored: run hetscale analyze --db URI --experiment {} --target "
          "<E_s>",
          experiment_label(e), e.name));
    for (const auto& w : e.required_work)
      if (w.status != "found")
        section.notes.push_back(fmt::format("{}, set {} at {}: {} ({})", experiment_label(e),
                                            w.set_index, target_label(w.target_efficiency),
                                            w.explanation, w.status));
    add_figure(section, experiment_label(e), render_svg(chart),
               {curve_table(e), required_work_table(e)});
  }
  if (section.figures.empty() && section.notes.empty())
    section.notes.push_back(
        "no runs stored: run hetscale collect --db URI <run records and plan files>, then "
        "hetscale analyze");
  return section;
}

ReportSection psi_section(const ReportData& data) {
  ReportSection section{"psi",
                        "Isospeed-e scalability psi",
                        "psi(C, C') = C' W / (C W') between consecutive machine sets at the "
                        "target E_s: 1 is ideal, smaller means the problem must grow faster "
                        "than the system. Experiments side by side.",
                        {},
                        {},
                        {},
                        {}};
  const BarChart chart = psi_chart(data.experiments);
  const bool rows = any_data(data, [](const ExperimentData& e) { return !e.psi.empty(); });
  if (has_marks(chart)) {
    add_figure(section, "", render_svg(chart), {psi_table(data.experiments)});
  } else if (rows) {
    section.notes.push_back(
        "psi is n/a for every pair: a set's required work is unknown (see the required work "
        "tables; hetscale jobgen --refine adds runs that bracket the target)");
    section.tables.push_back(psi_table(data.experiments));
  } else {
    section.notes.push_back(
        "no psi stored: run hetscale analyze --db URI --experiment NAME --target E_s "
        "(needs at least two machine sets)");
  }
  return section;
}

std::vector<NodeGroup> node_groups(const std::vector<NodeRow>& nodes) {
  auto state_rank = [](const std::string& state) {
    return state == "ok" ? 0 : state == "degraded" ? 1 : state == "excluded" ? 2 : 3;
  };
  std::map<std::tuple<std::string, int, std::string>, NodeGroup> groups;
  for (const auto& n : nodes) {
    NodeGroup& g = groups[{n.group, state_rank(n.state), n.state}];
    const double speed = n.marked_speed * n.processors;
    if (g.hosts.empty()) {
      g.group = n.group;
      g.state = n.state;
      g.group_marked_speed = n.group_marked_speed;
      g.hardware = n.group_hardware;
      g.min_processors = g.max_processors = n.processors;
      g.min_node_speed = g.max_node_speed = speed;
    }
    g.hosts.push_back(n.host);
    g.min_processors = std::min(g.min_processors, n.processors);
    g.max_processors = std::max(g.max_processors, n.processors);
    g.min_node_speed = std::min(g.min_node_speed, speed);
    g.max_node_speed = std::max(g.max_node_speed, speed);
    g.total_node_speed += speed;
  }
  std::vector<NodeGroup> out;
  for (auto& [key, g] : groups) {
    g.hosts = sort_hostnames(g.hosts);
    out.push_back(std::move(g));
  }
  return out;
}

ReportSection node_map_section(const ReportData& data) {
  ReportSection section{"nodes",
                        "Node map",
                        "Marked speed of the nodes (per-processor figure x processors) by "
                        "group, from the plans loaded into the database: one row per group and "
                        "state with its hosts as a Slurm host list; every node in the folded "
                        "table and its downloads. Degraded nodes are slower than their hardware "
                        "twins; excluded nodes are not used.",
                        {},
                        {},
                        {},
                        {}};
  std::map<std::string, std::vector<NodeRow>> by_site;
  for (const auto& n : data.nodes) by_site[n.site].push_back(n);
  for (auto& [site, nodes] : by_site) {
    std::stable_sort(nodes.begin(), nodes.end(), [](const NodeRow& a, const NodeRow& b) {
      return a.group != b.group ? a.group < b.group : natural_host_less(a.host, b.host);
    });
    // The nodes not ok, per state, as host lists.
    std::map<std::string, std::vector<std::string>> by_state;
    for (const auto& n : nodes)
      if (n.state != "ok") by_state[n.state].push_back(n.host);
    std::vector<std::string> states;
    for (auto& [state, hosts] : by_state)
      states.push_back(fmt::format("{} {} ({})", hosts.size(), state,
                                   compress_hostlist(sort_hostnames(hosts))));
    if (!states.empty())
      section.notes.push_back(
          fmt::format("site {}: nodes not ok: {}", site, fmt::join(states, "; ")));
    const BarChart chart =
        nodes.size() > kMaxNodeBars ? group_speed_chart(site, nodes) : node_map_chart(site, nodes);
    std::vector<ReportTable> tables{node_group_table(site, nodes)};
    std::vector<GroupCpuKindRow> kinds;
    for (const GroupCpuKindRow& k : data.cpu_kinds)
      if (k.site == site) kinds.push_back(k);
    if (!kinds.empty()) tables.push_back(cpu_kind_table(site, kinds));
    tables.push_back(node_table(site, nodes));
    add_figure(section, "site " + site, render_svg(chart), std::move(tables));
  }
  if (by_site.empty())
    section.notes.push_back(
        "no nodes stored: load a plan file (written by hetscale jobgen) with hetscale collect "
        "--db URI <study dir>");
  return section;
}

namespace {

/// Charts in one row, two to a line at half width when there are several, with their
/// tables under them.
void add_chart_row(ReportSection& section, const std::vector<BarChart>& charts,
                   std::vector<ReportTable> tables) {
  if (charts.empty()) return;
  const int width = charts.size() > 1 ? kHalfChartWidth : 720;
  add_figure(section, "", render_svg(charts.front(), width), std::move(tables));
  for (std::size_t i = 1; i < charts.size(); ++i)
    section.figures.back().beside.push_back(render_svg(charts[i], width));
}

void add_heterogeneity_figures(const ReportData& data, ReportSection& section) {
  std::vector<BarChart> charts;
  std::vector<ReportTable> tables;
  for (const auto& e : data.experiments)
    if (BarChart chart = time_variability_chart(e); has_marks(chart)) {
      charts.push_back(std::move(chart));
      tables.push_back(time_variability_table(e));
    }
  add_chart_row(section, charts, std::move(tables));
  if (!any_data(data, [](const ExperimentData& e) { return !e.node_time_variability.empty(); }))
    section.notes.push_back(
        "no run-time variability: needs per-rank timings of configurations repeated at least "
        "twice (repetitions >= 2 in the experiment spec; hetscale collect)");
  const BarChart sh = sh_chart(data.experiments);
  if (has_marks(sh)) {
    add_figure(section, "", render_svg(sh), {sh_table(data.experiments)});
  } else {
    section.notes.push_back(
        "no TH/SH: needs the availability of the sets' nodes (hetscale classify --availability, "
        "then hetscale groups --db)");
  }
}

void add_partition_figures(const ReportData& data, ReportSection& section) {
  std::vector<BarChart> charts;
  std::vector<ReportTable> tables;
  for (const auto& e : data.experiments) {
    std::vector<std::optional<int>> sets;
    for (const auto& p : e.partitions)
      if (std::find(sets.begin(), sets.end(), p.set_index) == sets.end())
        sets.push_back(p.set_index);
    for (const auto& s : sets)
      if (BarChart chart = shares_chart(e, s); has_marks(chart)) {
        charts.push_back(std::move(chart));
        tables.push_back(shares_table(e, s));
      }
  }
  const BarChart tau = tau_chart(data.experiments);
  if (has_marks(tau)) {
    charts.push_back(tau);
    tables.push_back(partitions_table(data.experiments));
  } else if (!any_data(data, [](const ExperimentData& e) { return !e.partitions.empty(); })) {
    section.notes.push_back(
        "no partitions stored: run hetscale equalize --db URI --experiment NAME ...");
  } else {
    section.tables.push_back(partitions_table(data.experiments));
    section.notes.push_back("no simulated tau stored with the partitions");
  }
  add_chart_row(section, charts, std::move(tables));
}

void add_gain_figures(const ReportData& data, ReportSection& section) {
  std::vector<BarChart> charts;
  std::vector<ReportTable> tables;
  for (const auto& e : data.experiments)
    if (BarChart chart = gain_chart(e); has_marks(chart)) {
      charts.push_back(std::move(chart));
      tables.push_back(gain_table(e));
    }
  add_chart_row(section, charts, std::move(tables));
  if (charts.empty())
    section.notes.push_back(
        "no measured gain: no set and size has runs with both weights_source 'marked' and "
        "'equalized'; run the same jobs with HETSCALE_WEIGHTS=equalized after hetscale equalize, "
        "then hetscale collect");
}

}  // namespace

ReportSection heterogeneity_section(const ReportData& data) {
  ReportSection section{"heterogeneity",
                        "Heterogeneity and partitions",
                        "Run-time variability of a node: relative spread of its time per "
                        "operation across repetitions times sqrt(seconds). TH of a node: "
                        "sigma_A / a of its measured availability; SH of a set: max TH - mean "
                        "TH. Partitions: the newest "
                        "proportional and equalized partitions (hetscale equalize) with their "
                        "simulated tau, and the measured gain where the same runs exist with "
                        "marked and with equalized weights.",
                        {},
                        {},
                        {},
                        {}};
  add_heterogeneity_figures(data, section);
  add_partition_figures(data, section);
  add_gain_figures(data, section);
  return section;
}

// --- measured and twin --------------------------------------------------------------

namespace {
/// (twin - measured) / measured of one field of both time splits; NaN unless both exist.
double split_difference(const std::optional<TimeSplit>& measured,
                        const std::optional<TimeSplit>& twin, double TimeSplit::*field) {
  if (!measured || !twin) return kNaN;
  return relative_change((*twin).*field, (*measured).*field);
}
}  // namespace

double TwinEfficiencyRow::relative_difference() const {
  if (!measured || !twin) return kNaN;
  return relative_change(twin->speed_efficiency, measured->speed_efficiency);
}

double TwinEfficiencyRow::wall_difference() const {
  return split_difference(measured_split, twin_split, &TimeSplit::wall_seconds);
}

double TwinEfficiencyRow::compute_difference() const {
  return split_difference(measured_split, twin_split, &TimeSplit::slowest_compute_seconds);
}

double TwinEfficiencyRow::outside_compute_difference() const {
  return split_difference(measured_split, twin_split, &TimeSplit::outside_compute_seconds);
}

double TwinPsiRow::relative_difference() const {
  return relative_change(twin, measured);
}

namespace {
double forecast_error(const OptionalNumber& forecast, const OptionalNumber& twin) {
  return relative_change(forecast, twin);
}
}  // namespace

double CapacityTwinRow::parameter_error() const {
  if (!forecast || !twin) return kNaN;
  return forecast_error(forecast->predicted_parameter, twin->parameter_value);
}

double CapacityTwinRow::work_error() const {
  if (!forecast || !twin) return kNaN;
  return forecast_error(forecast->predicted_work, twin->work);
}

double CapacityTwinRow::psi_error() const {
  return forecast ? forecast_error(forecast->predicted_psi, twin_psi) : kNaN;
}

std::vector<std::string> CapacityTwinRow::twin_outside_interval() const {
  std::vector<std::string> out;
  if (!forecast || !twin) return out;
  if (outside_interval(twin->parameter_value, forecast->predicted_parameter_interval))
    out.emplace_back("parameter");
  if (outside_interval(twin->work, forecast->predicted_work_interval)) out.emplace_back("work");
  if (outside_interval(twin_psi, forecast->predicted_psi_interval)) out.emplace_back("psi");
  return out;
}

std::vector<TwinEfficiencyRow> twin_efficiency_rows(const ExperimentData& measured,
                                                    const ExperimentData& twin) {
  std::set<int> measured_sets;
  std::set<int> twin_sets;
  for (const auto& p : measured.curve) measured_sets.insert(p.set_index);
  for (const auto& p : twin.curve) twin_sets.insert(p.set_index);
  std::map<std::pair<int, double>, TwinEfficiencyRow> rows;
  auto row = [&](const CurvePoint& p) -> TwinEfficiencyRow& {
    TwinEfficiencyRow& r = rows[{p.set_index, p.parameter_value}];
    r.set_index = p.set_index;
    r.parameter_value = p.parameter_value;
    return r;
  };
  for (const auto& p : measured.curve)
    if (twin_sets.contains(p.set_index)) row(p).measured = p;
  for (const auto& p : twin.curve)
    if (measured_sets.contains(p.set_index)) row(p).twin = p;
  for (const auto* e : {&measured, &twin})
    for (const auto& split : e->time_split)
      if (const auto at = rows.find({split.set_index, split.parameter_value}); at != rows.end())
        (e == &measured ? at->second.measured_split : at->second.twin_split) = split;
  std::vector<TwinEfficiencyRow> out;
  for (auto& [key, r] : rows) out.push_back(std::move(r));
  return out;
}

bool TwinEfficiencyRow::twin_within_measured_runs() const {
  return measured && twin && twin->speed_efficiency >= measured->min_speed_efficiency &&
         twin->speed_efficiency <= measured->max_speed_efficiency;
}

std::string TwinEfficiencyRow::where_in_time() const {
  const double compute = compute_difference();
  const double beyond = outside_compute_difference();
  if (!std::isfinite(compute) || !std::isfinite(beyond)) return "no compute times";
  return std::abs(compute) >= std::abs(beyond) ? "compute" : "beyond compute";
}

std::vector<TwinEfficiencyRow> twin_misses(const std::vector<TwinEfficiencyRow>& rows) {
  std::vector<TwinEfficiencyRow> out;
  for (const auto& r : rows)
    if (const double d = r.relative_difference(); std::isfinite(d) && std::abs(d) > kTwinTolerance)
      out.push_back(r);
  return out;
}

LineChart twin_efficiency_chart(const ExperimentData& measured, const ExperimentData& twin,
                                int set_index) {
  LineChart chart;
  chart.title = fmt::format("Measured and twin E_s, {}, {}", experiment_label(measured),
                            set_label(measured, set_index));
  chart.y_label = "speed-efficiency E_s = W / (T C) (dimensionless)";
  Series mean{"measured mean E_s", {}, true, true, false};
  Series spread{"measured smallest and largest run", {}, false, true, false};
  Series simulated{"twin E_s (" + experiment_label(twin) + ")", {}, true, true, true};
  bool positive = true;
  for (const auto& r : twin_efficiency_rows(measured, twin)) {
    if (r.set_index != set_index) continue;
    positive = positive && r.parameter_value > 0;
    if (r.measured) {
      mean.points.push_back({r.parameter_value, r.measured->speed_efficiency});
      spread.points.push_back({r.parameter_value, r.measured->min_speed_efficiency});
      spread.points.push_back({r.parameter_value, r.measured->max_speed_efficiency});
    }
    if (r.twin) simulated.points.push_back({r.parameter_value, r.twin->speed_efficiency});
  }
  chart.log_x = positive;
  chart.x_label =
      parameter_label(measured) + (positive ? " (problem size, log scale)" : " (problem size)");
  chart.series = {mean, spread, simulated};
  std::set<double> targets;
  for (const auto& w : measured.required_work) targets.insert(w.target_efficiency);
  for (double t : targets) chart.horizontal_lines.push_back({"target " + target_label(t), t});
  return chart;
}

std::vector<TwinPsiRow> twin_psi_rows(const ExperimentData& measured, const ExperimentData& twin) {
  std::map<std::tuple<double, int, int>, TwinPsiRow> rows;
  for (const auto* e : {&measured, &twin})
    for (const auto& p : e->psi) {
      TwinPsiRow& r = rows[{p.target_efficiency, p.set_index, p.next_set_index}];
      r.target_efficiency = p.target_efficiency;
      r.set_index = p.set_index;
      r.next_set_index = p.next_set_index;
      if (e == &measured) {
        r.measured = p.psi;
        r.measured_interval = p.psi_interval;
      } else {
        r.twin = p.psi;
      }
    }
  std::vector<TwinPsiRow> out;
  for (auto& [key, r] : rows) out.push_back(r);
  return out;
}

std::vector<CapacityTwinRow> capacity_twin_rows(const ExperimentData& measured,
                                                const ExperimentData& twin) {
  // The nodes of the largest measured set: from its analysis or forecast rows, else from the
  // twin's set of the same index (the twin's sets are the measured ones, then more).
  std::optional<int> largest_set;
  for (const auto& p : measured.curve) largest_set = std::max(largest_set.value_or(p.set_index), p.set_index);
  int largest = 0;
  for (const auto& w : measured.required_work) largest = std::max(largest, w.node_count);
  for (const auto& f : measured.forecasts)
    if (f.kind == "measured") largest = std::max(largest, f.node_count);
  for (const auto& w : twin.required_work)
    if (largest_set && w.set_index <= *largest_set) largest = std::max(largest, w.node_count);
  std::map<std::pair<double, int>, CapacityTwinRow> rows;
  auto row = [&](double target, int nodes) -> CapacityTwinRow& {
    CapacityTwinRow& r = rows[{target, nodes}];
    r.target_efficiency = target;
    r.node_count = nodes;
    return r;
  };
  std::set<double> twin_targets;
  for (const auto& w : twin.required_work) {
    twin_targets.insert(w.target_efficiency);
    if (w.node_count <= largest) continue;
    CapacityTwinRow& r = row(w.target_efficiency, w.node_count);
    r.twin = w;
    for (const auto& p : twin.psi)
      if (p.target_efficiency == w.target_efficiency && p.next_set_index == w.set_index)
        r.twin_psi = p.psi;
  }
  for (const auto& f : measured.forecasts) {
    if (f.node_count <= largest || !twin_targets.contains(f.target_efficiency)) continue;
    if (f.kind != "doubling" && !rows.contains({f.target_efficiency, f.node_count})) continue;
    CapacityTwinRow& r = row(f.target_efficiency, f.node_count);
    if (!r.forecast || (r.forecast->kind != "doubling" && f.kind == "doubling")) r.forecast = f;
  }
  std::vector<CapacityTwinRow> out;
  for (auto& [key, r] : rows) out.push_back(std::move(r));
  return out;
}

namespace {

std::string twin_id(const TwinPair& pair) {
  return slug(pair.measured) + "-twin";
}

ReportTable twin_efficiency_table(const TwinPair& pair, const ExperimentData& measured) {
  std::vector<std::vector<Cell>> rows;
  auto value = [](const std::optional<CurvePoint>& p, double CurvePoint::*field) {
    return p ? number((*p).*field) : number(kNaN);
  };
  auto seconds = [](const std::optional<TimeSplit>& s, double TimeSplit::*field) {
    return s ? number((*s).*field) : number(kNaN);
  };
  for (const auto& r : twin_efficiency_rows(measured, pair.twin)) {
    rows.push_back({integer(r.set_index), number(r.parameter_value),
                    r.measured ? integer(r.measured->runs) : Cell{"0", "0", true},
                    r.measured ? figure(r.measured->speed_efficiency,
                                        r.measured->speed_efficiency_interval)
                               : number(kNaN),
                    value(r.measured, &CurvePoint::min_speed_efficiency),
                    value(r.measured, &CurvePoint::max_speed_efficiency),
                    r.measured ? number(r.measured->stddev_speed_efficiency) : number(kNaN),
                    value(r.twin, &CurvePoint::speed_efficiency),
                    percent(r.relative_difference()),
                    seconds(r.measured_split, &TimeSplit::wall_seconds),
                    seconds(r.measured_split, &TimeSplit::slowest_compute_seconds),
                    seconds(r.measured_split, &TimeSplit::outside_compute_seconds),
                    seconds(r.twin_split, &TimeSplit::wall_seconds),
                    seconds(r.twin_split, &TimeSplit::slowest_compute_seconds),
                    seconds(r.twin_split, &TimeSplit::outside_compute_seconds),
                    percent(r.wall_difference()), percent(r.compute_difference()),
                    percent(r.outside_compute_difference())});
  }
  return make_table(
      twin_id(pair) + "-efficiency",
      captioned(fmt::format("Measured and twin E_s per set and size, {}", experiment_label(measured)),
                measured.curve, &CurvePoint::speed_efficiency_interval),
      {"set_index", "parameter_value", "measured_runs", "measured_speed_efficiency",
       "measured_min_speed_efficiency", "measured_max_speed_efficiency",
       "measured_stddev_speed_efficiency", "twin_speed_efficiency", "relative_difference",
       "measured_wall_seconds", "measured_slowest_compute_seconds",
       "measured_outside_compute_seconds", "twin_wall_seconds", "twin_slowest_compute_seconds",
       "twin_outside_compute_seconds", "wall_difference", "compute_difference",
       "outside_compute_difference"},
      rows);
}

/// The sizes at which the twin misses the measured mean E_s by more than kTwinTolerance:
/// the difference, whether the twin lies within the measured runs, and where in T the
/// difference lies.
ReportTable twin_miss_table(const TwinPair& pair, const ExperimentData& measured,
                            const std::vector<TwinEfficiencyRow>& misses) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& r : misses)
    rows.push_back({integer(r.set_index), number(r.parameter_value), integer(r.measured->runs),
                    figure(r.measured->speed_efficiency, r.measured->speed_efficiency_interval),
                    number(r.twin->speed_efficiency), percent(r.relative_difference()),
                    text(r.twin_within_measured_runs() ? "yes" : "no"),
                    percent(r.wall_difference()), percent(r.compute_difference()),
                    percent(r.outside_compute_difference()), text(r.where_in_time())});
  return make_table(
      twin_id(pair) + "-misses",
      captioned(fmt::format("Sizes where the twin's E_s misses the measured mean by more than "
                            "{:.0f}%, {}",
                            100 * kTwinTolerance, experiment_label(measured)),
                measured.curve, &CurvePoint::speed_efficiency_interval),
      {"set_index", parameter_name(measured), "measured_runs", "measured_speed_efficiency",
       "twin_speed_efficiency", "difference", "twin_within_measured_runs", "wall_difference",
       "compute_difference", "outside_compute_difference", "larger_difference_in"},
      rows);
}

ReportTable twin_psi_table(const TwinPair& pair, const ExperimentData& measured) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& r : twin_psi_rows(measured, pair.twin))
    rows.push_back({number(r.target_efficiency), integer(r.set_index), integer(r.next_set_index),
                    figure(r.measured, r.measured_interval), number(r.twin),
                    percent(r.relative_difference())});
  return make_table(
      twin_id(pair) + "-psi",
      captioned("psi between consecutive sets, measured and twin, " + experiment_label(measured),
                measured.psi, &PsiRow::psi_interval),
      {"target_efficiency", "set_index", "next_set_index", "measured_psi", "twin_psi",
       "relative_difference"},
      rows);
}

/// "twin outside the 90% interval: parameter, work", or empty where the twin lies inside
/// every interval the forecast has.
std::string outside_text(const CapacityTwinRow& r) {
  const std::vector<std::string> figures = r.twin_outside_interval();
  if (figures.empty()) return "";
  double level = 0;
  for (const auto* i : {&r.forecast->predicted_parameter_interval,
                        &r.forecast->predicted_work_interval, &r.forecast->predicted_psi_interval})
    if (*i) {
      level = (*i)->level;
      break;
    }
  return fmt::format("twin outside the {:g}% interval: {}", 100 * level, fmt::join(figures, ", "));
}

ReportTable capacity_twin_table(const TwinPair& pair, const ExperimentData& measured,
                                const std::vector<CapacityTwinRow>& rows) {
  std::vector<std::vector<Cell>> cells;
  std::vector<OptionalInterval> intervals;
  for (const auto& r : rows) {
    const OptionalNumber none;
    const auto& f = r.forecast;
    const auto& t = r.twin;
    if (f)
      intervals.insert(intervals.end(),
                       {f->predicted_parameter_interval, f->predicted_psi_interval});
    cells.push_back({number(r.target_efficiency), integer(r.node_count),
                     text(f ? f->kind + ": " + f->label : "no forecast"),
                     number(f ? f->marked_speed : kNaN),
                     figure(f ? f->predicted_parameter : none,
                            f ? f->predicted_parameter_interval : OptionalInterval()),
                     figure(f ? f->predicted_work : none,
                            f ? f->predicted_work_interval : OptionalInterval()),
                     figure(f ? f->predicted_psi : none,
                            f ? f->predicted_psi_interval : OptionalInterval()),
                     t ? integer(t->set_index) : number(kNaN), text(t ? t->status : "not simulated"),
                     number(t ? t->marked_speed : kNaN),
                     t && t->parameter_value ? number(t->parameter_value)
                                             : missing(t ? t->status : "not simulated"),
                     number(t ? t->work : none), number(r.twin_psi), percent(r.parameter_error()),
                     percent(r.work_error()), percent(r.psi_error()),
                     text(outside_text(r))});
  }
  return make_table(
      twin_id(pair) + "-capacity",
      captioned(fmt::format("Forecast and twin on the sets beyond the measured ones, {} and {}",
                            experiment_label(measured), experiment_label(pair.twin)),
                intervals),
      {"target_efficiency", "node_count", "forecast",
       {"forecast_marked_speed", unit_of(measured), true}, "predicted_parameter",
       {"predicted_work", kWorkUnit}, "predicted_psi", {"twin_set_index", "", true},
       {"twin_status", "", true}, {"twin_marked_speed", unit_of(measured), true},
       "twin_parameter_value",
       {"twin_work", kWorkUnit}, "twin_psi", "parameter_error", "work_error", "psi_error",
       "twin_outside_interval"},
      cells);
}

/// The twin beside the forecasts of `measured`, with notes on the sets only one side has.
void add_capacity_twin(const TwinPair& pair, const ExperimentData& measured,
                       ReportSection& section) {
  const std::vector<CapacityTwinRow> rows = capacity_twin_rows(measured, pair.twin);
  std::vector<int> unsimulated;
  std::vector<std::string> outside;  // the sets whose twin lies outside the forecast's interval
  std::size_t compared = 0;          // the sets with both
  for (const auto& r : rows) {
    if (!r.twin && std::find(unsimulated.begin(), unsimulated.end(), r.node_count) == unsimulated.end())
      unsimulated.push_back(r.node_count);
    if (r.twin && !r.forecast)
      section.notes.push_back(fmt::format(
          "{}, twin set {} ({} nodes) at {}: no forecast of hetscale predict for {} nodes from "
          "{}",
          experiment_label(pair.twin), r.twin->set_index, r.node_count,
          target_label(r.target_efficiency), r.node_count, pair.measured));
    if (const std::vector<std::string> figures = r.twin_outside_interval(); !figures.empty())
      outside.push_back(fmt::format("{} nodes at {} ({})", r.node_count, target_label(r.target_efficiency),
                                    fmt::join(figures, ", ")));
    if (r.twin && r.forecast) ++compared;
  }
  // One line for the experiment: the table's last column says it row by row.
  if (!outside.empty())
    section.notes.push_back(fmt::format("{}: the twin lies outside the forecast's interval on {} of {} sets: {}",
                                        experiment_label(pair.twin), outside.size(), compared,
                                        fmt::join(outside, "; ")));
  if (!unsimulated.empty())
    section.notes.push_back(fmt::format(
        "{}: forecasts for {} nodes have no twin set beside them: the twin's site or study "
        "stops short of them",
        experiment_label(pair.twin), fmt::join(unsimulated, ", ")));
  if (!rows.empty())
    add_figure(section, fmt::format("{} and its twin {}", experiment_label(measured),
                                    experiment_label(pair.twin)),
               "", {capacity_twin_table(pair, measured, rows)});
}

void add_twin_figures(const TwinPair& pair, const ExperimentData& measured,
                      ReportSection& section) {
  const std::string heading =
      fmt::format("{} and its twin {}", experiment_label(measured), experiment_label(pair.twin));
  const std::vector<TwinEfficiencyRow> rows = twin_efficiency_rows(measured, pair.twin);
  std::set<int> sets;
  for (const auto& r : rows) sets.insert(r.set_index);
  // The sets' charts two to a row, then one table of every set and size.
  std::vector<std::string> charts;
  for (int s : sets)
    charts.push_back(render_svg(twin_efficiency_chart(measured, pair.twin, s), kHalfChartWidth));
  if (!charts.empty()) {
    add_figure(section, heading, charts.front(), {twin_efficiency_table(pair, measured)});
    section.figures.back().beside.assign(charts.begin() + 1, charts.end());
  } else {
    section.notes.push_back(fmt::format("{}: no machine set has E_s points in both", heading));
  }
  const auto both = std::count_if(rows.begin(), rows.end(), [](const TwinEfficiencyRow& r) {
    return std::isfinite(r.relative_difference());
  });
  if (const std::vector<TwinEfficiencyRow> misses = twin_misses(rows); !misses.empty()) {
    const ReportTable table = twin_miss_table(pair, measured, misses);
    section.notes.push_back(fmt::format(
        "{}: the twin's E_s differs from the measured mean by more than {:.0f}% at {} of {} "
        "sizes (table \"{}\")",
        heading, 100 * kTwinTolerance, misses.size(), both, table.title));
    add_figure(section, "", "", {table});
  }
  const BarChart psi = psi_chart({measured, pair.twin});
  if (has_marks(psi))
    add_figure(section, "", render_svg(psi), {twin_psi_table(pair, measured)});
  else
    section.notes.push_back(fmt::format(
        "{}: no psi of both: run hetscale analyze --db URI --experiment NAME --target E_s for "
        "each",
        heading));
}

}  // namespace

ReportSection twin_section(const ReportData& data) {
  ReportSection section{"twin",
                        "Measured and twin",
                        "Each experiment next to its twin, the experiment of the same name "
                        "with the suffix -twin simulated on the SimGrid model of the site "
                        "(hetscale twin study): E_s per machine set in both and psi between "
                        "consecutive sets. Differences are (twin - measured) / measured. Each "
                        "size's run time T is split into the compute of its slowest rank and "
                        "the time beyond it (communication and waiting), so that a difference "
                        "of E_s shows which part of T it comes from. The "
                        "twin's sets beyond the measured ones are in Capacity planning, beside "
                        "the forecasts.",
                        {},
                        {},
                        {},
                        {}};
  for (const auto& pair : data.twins)
    for (const auto& e : data.experiments)
      if (!e.from_files && shown_name(e) == pair.measured) add_twin_figures(pair, e, section);
  return section;
}

ReportSection capacity_section(const ReportData& data) {
  ReportSection section{"capacity",
                        "Capacity planning",
                        "Forecasts of hetscale predict: required work and psi for the measured "
                        "sets, the next doublings of the site and what-if sets, with the error "
                        "of the prediction where the set was measured. psi of a measured set or "
                        "a doubling is against the row before it; of a what-if set, against the "
                        "measured set it grows (named in its label after 'on'). Where the "
                        "experiment has a twin, the twin's sets beyond the measured ones beside "
                        "the forecasts of as many nodes: required parameter, work and psi "
                        "against the set before, each side, with the errors (forecast - twin) / "
                        "twin.",
                        {},
                        {},
                        {},
                        {}};
  for (const auto& e : data.experiments) {
    for (double target : targets_of(e)) {
      const std::string note = forecast_error_note(e, target);
      if (!note.empty()) section.notes.push_back(note);
      const std::string heading =
          fmt::format("{} at {}", experiment_label(e), target_label(target));
      // The required work and psi charts side by side, the forecast's table under them.
      std::vector<std::string> charts;
      for (const LineChart& chart : {forecast_work_chart(e, target), forecast_psi_chart(e, target)})
        if (has_marks(chart)) charts.push_back(render_svg(chart, kHalfChartWidth));
      add_figure(section, heading, charts.empty() ? "" : charts.front(),
                 {forecast_table(e, target)});
      if (charts.size() > 1) section.figures.back().beside = {charts.back()};
    }
    if (e.from_files) continue;
    for (const auto& pair : data.twins)
      if (shown_name(e) == pair.measured) add_capacity_twin(pair, e, section);
  }
  if (!any_data(data, [](const ExperimentData& e) { return !e.forecasts.empty(); }))
    section.notes.push_back(
        "no forecasts stored: run hetscale predict --db URI --experiment NAME (next doublings "
        "and what-if sets)");
  return section;
}

Report build_report(const ReportData& data, const std::string& title, const std::string& subtitle) {
  Report report{title, subtitle,
                {summary_section(data), efficiency_section(data), psi_section(data)}};
  if (!data.twins.empty()) report.sections.push_back(twin_section(data));
  for (auto* section : {&node_map_section, &heterogeneity_section, &capacity_section})
    report.sections.push_back(section(data));
  return report;
}

}  // namespace hetscale::report
