// From the rows of the dashboard views (collector::read_report_data) to the report: one
// function per chart (tested on its own) and one per section. A chart is drawn only when it
// has at least one mark; otherwise the section says which command would fill it.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/report_views.hpp"
#include "html_report.hpp"
#include "svg_chart.hpp"

namespace hetscale::report {

// The rows the report maps, as the collector reads them from the views.
using collector::CurvePoint;
using collector::ExperimentData;
using collector::GroupCpuKindRow;
using collector::Forecast;
using collector::NodeRow;
using collector::NodeTimeVariability;
using collector::OptionalInterval;
using collector::OptionalNumber;
using collector::PartitionShare;
using collector::PsiRow;
using collector::ReportData;
using collector::RequiredWork;
using collector::TimeSplit;
using collector::TwinPair;

/// E_s against the problem parameter, one curve per set, the target lines and the
/// read-off points (parameter at target, status found) of set_required_work.
LineChart efficiency_chart(const ExperimentData& experiment);

/// psi per pair of consecutive sets ("set 0 -> 1"), one bar series per experiment and
/// target; NULL psi is no bar.
BarChart psi_chart(const std::vector<ExperimentData>& experiments);

/// Marked speed of every node of one site (per-processor figure x processors), coloured
/// by group, with degraded and excluded nodes marked above their bars.
BarChart node_map_chart(const std::string& site, const std::vector<NodeRow>& nodes);

/// Sites with more nodes than this get one bar group per node group instead of one bar
/// per node: up to this many, every node's label fits under its bar.
inline constexpr std::size_t kMaxNodeBars = 40;

/// The nodes of one group in one state: their hosts in natural order (site/hostlist.hpp),
/// the range of their processors and node speeds (marked speed x processors), and the sum
/// of their node speeds.
struct NodeGroup {
  std::string group;
  std::string state;
  std::vector<std::string> hosts;
  int min_processors = 0;
  int max_processors = 0;
  double min_node_speed = 0;
  double max_node_speed = 0;
  double group_marked_speed = 0;
  double total_node_speed = 0;
  std::string hardware;  // the group's hardware line; empty when not stored
};

/// By group, then state: ok, degraded, excluded, then any other by name.
std::vector<NodeGroup> node_groups(const std::vector<NodeRow>& nodes);

/// Smallest, mean and largest node marked speed per group over its states (node_groups),
/// with the count of nodes not ok.
BarChart group_speed_chart(const std::string& site, const std::vector<NodeRow>& nodes);

/// Run-time variability per host (categories), one bar series per set.
BarChart time_variability_chart(const ExperimentData& experiment);

/// SH (from availability TH) per set (categories "set k"), one bar series per experiment.
BarChart sh_chart(const std::vector<ExperimentData>& experiments);

/// Shares per host of the newest partitions of one set, one bar series per method.
BarChart shares_chart(const ExperimentData& experiment, const std::optional<int>& set_index);

/// Simulated tau per experiment and set (categories), one bar series per method.
BarChart tau_chart(const std::vector<ExperimentData>& experiments);

/// A configuration (set, parameter) run with both marked and equalized weights.
struct MeasuredGain {
  int set_index = 0;
  OptionalNumber parameter_value;
  double marked_seconds = 0;
  double equalized_seconds = 0;
  long long marked_runs = 0;
  long long equalized_runs = 0;
  /// 1 - T_equalized / T_marked: the fraction of the run time equalization saved.
  [[nodiscard]] double gain() const { return 1 - equalized_seconds / marked_seconds; }
};
std::vector<MeasuredGain> measured_gains(const ExperimentData& experiment);

/// Mean wall time with marked and with equalized weights per configuration that has both.
BarChart gain_chart(const ExperimentData& experiment);

/// Predicted psi of the forecast rows of one target against their node counts (log
/// scale): measured sets and doublings joined (each against the row before), what-if sets
/// as points (each against the set it grows).
LineChart forecast_psi_chart(const ExperimentData& experiment, double target);

/// Required work against marked speed (log-log): predicted along the measured sets and
/// doublings, predicted what-if sets, and the measured work where there is one.
LineChart forecast_work_chart(const ExperimentData& experiment, double target);

// --- measured and twin (ReportData::twins) ---------------------------------------------

/// One parameter value of a set in a measured experiment and in its twin: the curve
/// points (mean E_s and its spread) of each, either possibly absent, and where each one's
/// run time goes (set_time_split), absent where the ranks timed no compute.
struct TwinEfficiencyRow {
  int set_index = 0;
  double parameter_value = 0;
  std::optional<CurvePoint> measured;
  std::optional<CurvePoint> twin;
  std::optional<TimeSplit> measured_split;
  std::optional<TimeSplit> twin_split;
  /// (twin - measured) / measured of the mean E_s; NaN unless both exist.
  [[nodiscard]] double relative_difference() const;
  /// (twin - measured) / measured of the mean T, of the slowest rank's compute and of the
  /// time beyond it; NaN unless both splits exist (and the measured figure is not 0).
  [[nodiscard]] double wall_difference() const;
  [[nodiscard]] double compute_difference() const;
  [[nodiscard]] double outside_compute_difference() const;
  /// Whether the twin's E_s lies within the measured runs' smallest and largest.
  [[nodiscard]] bool twin_within_measured_runs() const;
  /// The part of T whose difference is the larger: "compute" (the slowest rank's) or
  /// "beyond compute" (the time beyond it); "no compute times" without both splits.
  [[nodiscard]] std::string where_in_time() const;
};

/// How far the twin's E_s may differ from the measured mean before the section names the
/// size: 10%, the twin's calibration target.
inline constexpr double kTwinTolerance = 0.10;

/// The rows of `rows` whose twin differs from the measured mean E_s by more than
/// kTwinTolerance: the section's table of misses (set, size, measured, twin, difference,
/// where in T).
std::vector<TwinEfficiencyRow> twin_misses(const std::vector<TwinEfficiencyRow>& rows);

/// The rows of the sets with curve points in both experiments, by set and parameter value.
std::vector<TwinEfficiencyRow> twin_efficiency_rows(const ExperimentData& measured,
                                                    const ExperimentData& twin);

/// E_s of one set against the problem parameter: the measured mean (line), the smallest
/// and largest measured run (markers), the twin's E_s (dashed line) and the targets.
LineChart twin_efficiency_chart(const ExperimentData& measured, const ExperimentData& twin,
                                int set_index);

/// psi of one pair of consecutive sets at one target, measured and twin.
struct TwinPsiRow {
  double target_efficiency = 0;
  int set_index = 0;
  int next_set_index = 0;
  OptionalNumber measured;  // absent: no such row measured, or psi NULL
  OptionalInterval measured_interval = {};  // the measured psi's, as set_psi gives it
  OptionalNumber twin;
  /// (twin - measured) / measured; NaN unless both exist.
  [[nodiscard]] double relative_difference() const;
};
std::vector<TwinPsiRow> twin_psi_rows(const ExperimentData& measured, const ExperimentData& twin);

/// A set beyond the largest measured one at one target at which the twin was analyzed:
/// the measured experiment's forecast (hetscale predict) for a set of that many nodes, a
/// doubling row first, and the twin's set of as many nodes, each with its required
/// parameter, work and psi against the set before it. Either side may be absent: a forecast
/// past the twin's largest set, a twin set no forecast reaches.
struct CapacityTwinRow {
  double target_efficiency = 0;
  int node_count = 0;
  std::optional<Forecast> forecast;
  std::optional<RequiredWork> twin;
  OptionalNumber twin_psi;  // psi from the twin's previous set to this one
  /// (forecast - twin) / twin of the parameter, the work and psi; NaN unless both exist.
  [[nodiscard]] double parameter_error() const;
  [[nodiscard]] double work_error() const;
  [[nodiscard]] double psi_error() const;
  /// The figures ("parameter", "work", "psi") at which the twin lies outside the forecast's
  /// interval (beyond a bound it has: an open side holds everything); empty when there are
  /// none, or no forecast, twin or interval to compare.
  [[nodiscard]] std::vector<std::string> twin_outside_interval() const;
};
/// By target, then node count.
std::vector<CapacityTwinRow> capacity_twin_rows(const ExperimentData& measured,
                                                const ExperimentData& twin);

// --- summary ---------------------------------------------------------------------------

/// The node counts at which the summary sets forecasts beside the twin (docs/dashboards.md).
inline constexpr int kSummaryNodes[] = {64, 256, 1024};

/// How far a forecast may lie from the measured figure or the twin's and still hold, when
/// no interval of the forecast says more: 20%.
inline constexpr double kSummaryAgreement = 0.20;

/// One row of an experiment's summary at one target: the largest measured set, or a
/// forecast or the twin at one node count. A figure without a value has a note saying why.
struct SummaryRow {
  int node_count = 0;
  std::string source;  // measured | forecast | twin
  std::string set;     // which set: "set 2", "doubling: set 7", "twin set 6"
  OptionalNumber parameter;
  OptionalInterval parameter_interval;
  OptionalNumber work;
  OptionalInterval work_interval;
  OptionalNumber psi;
  OptionalInterval psi_interval;
  std::string psi_from;  // the set psi is against
  /// Twin rows: (forecast - twin) / twin of the required parameter; NaN unless both exist.
  double forecast_versus_twin = std::numeric_limits<double>::quiet_NaN();
  std::string note;  // e.g. "not simulated", "above_range"
};

/// What the summary says of one experiment at one target: its rows and its verdict, the
/// figures that hold and those that do not, each with why.
struct ExperimentSummary {
  std::string experiment;
  double target = 0;
  std::vector<SummaryRow> rows;
  std::vector<std::string> holds;
  std::vector<std::string> fails;
  /// "Holds: a; b. Does not hold: c; d." (either part left out when empty).
  [[nodiscard]] std::string verdict() const;
};

/// The node counts the summary shows at `target`: those of kSummaryNodes that a forecast or
/// the twin reaches beyond the largest measured set; when none does, the largest node count
/// either reaches beyond it.
std::vector<int> summary_nodes(const ExperimentData& measured, const ExperimentData* twin,
                               double target);

/// The summary of `measured` (with its twin, if any: without one, no twin rows) at each of
/// its targets.
std::vector<ExperimentSummary> experiment_summaries(const ExperimentData& measured,
                                                    const ExperimentData* twin);

/// True when the chart would draw at least one mark.
bool has_marks(const LineChart& chart);
bool has_marks(const BarChart& chart);

/// "Summary", the report's first section: per experiment and target, a table of its
/// figures at the largest measured set and at the summary's node counts, and its verdict.
ReportSection summary_section(const ReportData& data);
ReportSection efficiency_section(const ReportData& data);
ReportSection psi_section(const ReportData& data);
ReportSection node_map_section(const ReportData& data);
ReportSection heterogeneity_section(const ReportData& data);
ReportSection capacity_section(const ReportData& data);
/// "Measured and twin": one part per pair of ReportData::twins.
ReportSection twin_section(const ReportData& data);

/// The whole report: the summary, then the five sections above in that order, with the
/// section "Measured and twin" after psi when the data has twins.
Report build_report(const ReportData& data, const std::string& title, const std::string& subtitle);

}  // namespace hetscale::report
