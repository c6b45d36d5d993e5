// What the report shows, read from the documented views only (docs/dashboards.md), so
// that `hetscale report` works with the read-only role hetscale_reader, like a dashboard:
// one struct per view, with the view's column names, and the reader that fills them in one
// snapshot. The rows are pure data, so that the report's mapping to charts
// (report/report_sections.hpp) is tested without a database.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"
#include "hetscale/model/bootstrap.hpp"

namespace hetscale::collector {

using OptionalNumber = std::optional<double>;

/// The interval of a figure of a view: its bounds at `level` (e.g. 0.95) by `method`, or
/// the view's reason for having none in a few words (`reason`: "too few runs"; a table
/// cell shows it) and in full (`detail`: a footnote). A figure whose view gives no interval
/// has none (std::nullopt): the report then shows the bare figure (docs/dashboards.md).
struct Interval {
  double level = 0;
  OptionalNumber low;
  OptionalNumber high;
  std::string reason;        // why there are no bounds, in a few words; empty when there are
  std::string detail = {};   // the view's note: why a bound or the interval is missing
  std::string method = {};   // e.g. "Student t interval of the mean"; empty when not stored
  std::optional<long long> resamples = {};  // of a bootstrap interval
};
using OptionalInterval = std::optional<Interval>;

/// hetscale.set_efficiency_curve: one point of a set's E_s curve.
struct CurvePoint {
  int set_index = 0;
  double parameter_value = 0;
  long long runs = 0;
  double work = 0;
  double speed_efficiency = 0;
  double min_speed_efficiency = 0;
  double max_speed_efficiency = 0;
  OptionalNumber stddev_speed_efficiency;  // NULL for a single run
  // The mean's interval (Student t) as `hetscale analyze` stored it (migration 21):
  // std::nullopt before migration 21; else its bounds, or `reason` says why there are
  // none ("1 run", "not analyzed") and `detail` in full.
  OptionalInterval speed_efficiency_interval = {};
};

/// hetscale.set_time_split: where the run time of one point of a set's curve goes, over its
/// runs whose ranks timed their compute: the mean T, the mean compute seconds of each run's
/// slowest rank, and the mean of T beyond them (communication and waiting).
struct TimeSplit {
  int set_index = 0;
  double parameter_value = 0;
  long long runs = 0;
  double wall_seconds = 0;
  double slowest_compute_seconds = 0;
  double outside_compute_seconds = 0;
};

/// hetscale.set_required_work: the parameter and work at which a set reaches a target.
struct RequiredWork {
  int set_index = 0;
  int node_count = 0;
  double marked_speed = 0;
  double target_efficiency = 0;
  std::string status;  // found | below_range | above_range | too_few_points
  OptionalNumber parameter_value;
  OptionalNumber work;
  OptionalNumber nearest_efficiency;
  std::string explanation;
  // The intervals of the parameter and of W at its bounds (migration 21; stratified
  // residual bootstrap): std::nullopt before migration 21; a bound absent where the
  // resamples put it beyond the measured sizes (open), both absent without an interval;
  // `reason` and `detail` say why.
  OptionalInterval parameter_interval = {};
  OptionalInterval work_interval = {};
  // What the experiment's latest plan asks of its refinement: [refine] precision and
  // max_runs_per_set (migration 25; absent when it asks no precision, and before migration
  // 25). precision_check() says whether the set reached it.
  OptionalNumber precision{};
  std::optional<int> max_runs_per_set{};
};

/// hetscale.set_psi: psi between consecutive sets at one target.
struct PsiRow {
  double target_efficiency = 0;
  int set_index = 0;
  int next_set_index = 0;
  double marked_speed = 0;
  double next_marked_speed = 0;
  OptionalNumber work;
  OptionalNumber next_work;
  OptionalNumber psi;
  // psi's interval (migration 21; the two sets' resamples paired), as RequiredWork's; its
  // level, method and resamples from migration 23.
  OptionalInterval psi_interval = {};
};

/// hetscale.node_time_variability: run-time variability of a host within a set,
/// sigma_T / t x sqrt(t) over repeated runs (per sqrt(second)).
struct NodeTimeVariability {
  int set_index = 0;
  std::string host;
  long long configurations = 0;
  long long runs = 0;
  double per_sqrt_s = 0;
};

/// hetscale.set_availability_sh: SH of a set from its nodes' availability TH
/// (`classify --availability`), over the `measured_nodes` of its `nodes` that have one.
struct SetSh {
  int set_index = 0;
  long long nodes = 0;
  long long measured_nodes = 0;
  double max_th = 0;
  double mean_th = 0;
  double sh = 0;
};

/// hetscale.weights_comparison: mean run time per configuration and weights source.
struct WeightsRow {
  int set_index = 0;
  OptionalNumber parameter_value;
  std::string weights_source;  // marked | equalized | file | equal ...
  long long runs = 0;
  double mean_wall_seconds = 0;
  OptionalNumber stddev_wall_seconds;
};

/// hetscale.latest_partitions: one host's share in the newest partition per method.
struct PartitionShare {
  long long partition_id = 0;
  std::optional<int> set_index;
  std::string method;  // proportional | equalized | equalized_linear
  double seconds = 0;
  std::string node_list;
  OptionalNumber degree_of_equalization;
  OptionalNumber simulated_tau;
  OptionalNumber simulated_sigma;
  OptionalNumber simulated_risk;
  std::string host;
  double share = 0;
  OptionalNumber mean_seconds_per_op;
  OptionalNumber sd_seconds_per_op;
  OptionalNumber expected_seconds;
};

/// hetscale.capacity_forecast: one row of the newest prediction run. `predicted_psi` is
/// against the row before it, or for a what-if set against the measured set it grows (its
/// label names it after "on").
struct Forecast {
  int position = 0;
  double target_efficiency = 0;
  std::string kind;  // measured | doubling | what_if
  std::string label;
  std::optional<int> set_index;
  int node_count = 0;
  double marked_speed = 0;
  OptionalNumber predicted_parameter;
  OptionalNumber predicted_work;
  OptionalNumber predicted_psi;
  OptionalNumber measured_parameter;
  OptionalNumber measured_work;
  OptionalNumber relative_error;
  std::string model;
  // The 90% prediction intervals as `hetscale predict` stored them (migration 22):
  // std::nullopt before migration 22 or for an absent figure; else the bounds (one absent
  // where it is open), or `reason` says why there are none and `detail` in full.
  OptionalInterval predicted_parameter_interval = {};
  OptionalInterval predicted_work_interval = {};
  OptionalInterval predicted_psi_interval = {};
};

/// hetscale.node_map: a node of a site.
struct NodeRow {
  std::string site;
  std::string group;
  double group_marked_speed = 0;
  std::string host;
  int processors = 1;
  double marked_speed = 0;  // per processor
  std::string speed_unit;
  std::string state;  // ok | degraded | excluded
  // What the group's nodes have, as the site table says (migration 27): empty when not
  // stored (a site of declared speeds, or a database before migration 27).
  std::string group_hardware{};
};

/// hetscale.group_cpu_kind_speeds: one kind of core of a group's hybrid nodes (migration 27).
struct GroupCpuKindRow {
  std::string site;
  std::string group;
  int kind = 0;                   // its place in the site table, least efficient first
  std::vector<long long> cpus{};    // OS indices of the kind's CPUs on each node of the group
  std::optional<int> efficiency{};  // hwloc's rank, 0 the most power-efficient
  std::string core_type{};          // empty when not known
  double marked_speed = 0;          // per processor
  double group_marked_speed = 0;    // per processor, of all the node's CPUs
  std::string speed_unit{};
};

/// Everything the views hold about one experiment.
struct ExperimentData {
  std::string name;         // may be empty: records without an experiment name
  std::string owner;        // empty in a database without owners in its views
  std::string cluster;      // the Slurm cluster; '' when no run named one
  std::string label;        // how the report names it (see shown_name)
  bool from_files = false;  // partitions computed from input files, of no experiment
  std::string parameter;    // the problem parameter's name (e.g. "N"); may be empty
  std::string speed_unit;   // unit of the marked speeds; may be empty
  std::vector<CurvePoint> curve;
  std::vector<TimeSplit> time_split;  // empty in a database before migration 18
  std::vector<RequiredWork> required_work;
  std::vector<PsiRow> psi;
  std::vector<NodeTimeVariability> node_time_variability;
  std::vector<SetSh> set_sh;
  std::vector<WeightsRow> weights;
  std::vector<PartitionShare> partitions;
  std::vector<Forecast> forecasts;
};

/// Whether the set of `work` reached the precision its experiment's refinement asks
/// (RequiredWork::precision), over the set's runs (the runs of its curve points): the status
/// ("reached" or "precision_not_reached") and the line the report shows. Nothing when no
/// precision is asked.
std::optional<PrecisionCheck> precision_check(const ExperimentData& e, const RequiredWork& work);

/// The name the report shows for `e`: its label (`owner/name` where two experiments of the
/// report share a name), else its name.
inline const std::string& shown_name(const ExperimentData& e) {
  return e.label.empty() ? e.name : e.label;
}

/// The suffix that names the twin of an experiment: the twin of "mm" is "mm-twin".
inline constexpr const char* kTwinSuffix = "-twin";

/// A twin experiment (every run simulated: engine 'simgrid') paired with the measured
/// experiment of the report shown as `measured` (shown_name), whose name plus kTwinSuffix is
/// the twin's, of the same owner and cluster.
/// Only the section "Measured and twin" shows it.
struct TwinPair {
  std::string measured;
  ExperimentData twin;
};

struct ReportData {
  std::vector<ExperimentData> experiments;
  std::vector<TwinPair> twins;  // twins of experiments above; not in `experiments`
  std::vector<NodeRow> nodes;
  std::vector<GroupCpuKindRow> cpu_kinds;  // empty before migration 27
};

/// An experiment of the views: its name, owner and cluster (owner and cluster empty in a
/// database whose views have no owners, before migration 12).
struct ExperimentKey {
  std::string name;
  std::string owner;
  std::string cluster;
  auto operator<=>(const ExperimentKey&) const = default;
};

/// How the report names `key` among `known`: its name when no other experiment has that
/// name, else `owner/name`, and `cluster:owner/name` when the clusters of that name differ.
std::string experiment_key_label(const ExperimentKey& key, const std::vector<ExperimentKey>& known);

/// The experiment of `known` that `given` names: `NAME` when one experiment has that name,
/// else `OWNER/NAME` or `CLUSTER:OWNER/NAME`. Throws Error for a name of none (listing the
/// experiments with data) or of several (listing them as OWNER/NAME).
ExperimentKey find_report_experiment(const std::vector<ExperimentKey>& known,
                                     const std::string& given);

/// Every view row of the named experiments (`find_report_experiment`; all experiments with
/// data when `names` is empty; then also partitions computed from input files) and every
/// node, read as of one moment: in a snapshot transaction of its own on `conn` (none may be
/// open there). Throws Error for a name that names no experiment with rows, or several, and
/// for a database older than the views (migration 9). Each experiment's `label` is
/// experiment_key_label().
///
/// An experiment named E + "-twin" of the same owner and cluster as E, whose runs are all
/// twin runs (engine 'simgrid'), is the twin of E when E is in the report (TwinPair),
/// whether or not it was named itself. `twins` (experiment -> twin, named as `names`) pairs
/// explicitly instead: the experiment is in the report and the given twin, whose runs must
/// all be twin runs, is its twin.
ReportData read_report_data(pg::Connection& conn, const std::vector<std::string>& names,
                            const std::map<std::string, std::string>& twins = {});

}  // namespace hetscale::collector
