// Reads the report's data from the documented views only (docs/dashboards.md), so that
// `hetscale report` works with the read-only role hetscale_reader, like a dashboard.
#pragma once

#include <compare>
#include <map>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"
#include "report_data.hpp"

namespace hetscale::report {

/// Schema version the views come from (migration 0009: TH and SH from availability).
inline constexpr int kReportSchemaVersion = 9;

/// Schema version from which run_efficiency has the runs' engine (migration 0008): older
/// databases have no twin runs, so their reports pair no twins.
inline constexpr int kTwinSchemaVersion = 8;

/// Schema version from which the views carry experiment_owner and experiment_cluster
/// (migration 0012): older databases key experiments by name alone.
inline constexpr int kOwnerSchemaVersion = 12;

/// An experiment of the views: its name, owner and cluster (owner and cluster empty in a
/// database older than kOwnerSchemaVersion).
struct ExperimentKey {
  std::string name;
  std::string owner;
  std::string cluster;
  auto operator<=>(const ExperimentKey&) const = default;
};

/// The experiments that have rows in any of the views, sorted by name, owner, cluster.
std::vector<ExperimentKey> report_experiments(pg::Connection& conn);

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
/// node. Throws Error for a name that names no experiment with rows, or several, and for a
/// database older than the views. Each experiment's `label` is experiment_key_label().
///
/// An experiment named E + "-twin" of the same owner and cluster as E, whose runs are all
/// twin runs (engine 'simgrid'), is the twin of E when E is in the report (TwinPair),
/// whether or not it was named itself. `twins` (experiment -> twin, named as `names`) pairs
/// explicitly instead: the experiment is in the report and the given twin, whose runs must
/// all be twin runs, is its twin.
ReportData read_report_data(pg::Connection& conn, const std::vector<std::string>& names,
                            const std::map<std::string, std::string>& twins = {});

}  // namespace hetscale::report
