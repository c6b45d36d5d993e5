// `hetscale equalize --db`: the rank timings of one configuration of a machine set (the
// inputs of the equalization scheme) and the partitions computed from them, stored in
// hetscale.partitions and hetscale.partition_shares (migration 0004).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"
#include "hetscale/model/node_timing.hpp"

namespace hetscale::collector {

/// One configuration (the runs' parameter values) of a set and the ranks of its runs.
struct SetTimings {
  long long experiment_id = 0;
  std::string parameter_name;  // e.g. "N"
  double parameter = 0;        // the chosen value
  std::size_t runs = 0;        // repetitions of that configuration
  std::string choice;          // how the configuration was chosen, for the user
  std::vector<RankSample> ranks;
};

/// The ranks of the set's runs at `parameter`, or, without it, at the configuration with
/// the most repetitions (ties: the largest parameter, whose longer runs time better).
/// Throws Error for an unknown experiment, a set without runs or an unmeasured value
/// (naming the measured ones).
SetTimings load_set_timings(pg::Connection& conn, const std::string& experiment, int set_index,
                            std::optional<double> parameter);

struct StoredShare {
  std::string host;
  double share = 0;
  double mean_seconds_per_op = 0;
  double sd_seconds_per_op = 0;
  double expected_seconds = 0;  // t_i + sigma_Ti of the partition
};

struct StoredPartition {
  std::optional<long long> experiment_id;
  std::optional<int> set_index;
  std::string method;  // proportional | equalized | equalized_linear
  double seconds = 0;
  std::string node_list;
  double degree_of_equalization = 0;
  double simulated_tau = 0;
  double simulated_sigma = 0;
  double simulated_risk = 0;
  std::optional<std::string> file_name;
  std::vector<StoredShare> shares;
};

/// Inserts the partition and its shares (the caller's transaction); returns partition_id.
/// The newest availability measurement (hetscale.node_availability_th) of each of `hosts`
/// that has one, among the nodes of the experiment's site (of any site when the
/// experiment has none). Throws pg::DbError.
std::vector<MeasuredAvailability> load_host_availability(pg::Connection& conn,
                                                         long long experiment_id,
                                                         const std::vector<std::string>& hosts);

long long store_partition(pg::Connection& conn, const StoredPartition& partition);

}  // namespace hetscale::collector
