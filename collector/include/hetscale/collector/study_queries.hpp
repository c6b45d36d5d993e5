// What a study asks of the database between its stages: which configuration of an
// experiment's largest set to equalize, and the measured and simulated times of its re-run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

/// The largest set's configuration run at least twice (equalize needs each node's spread):
/// the most repeated, ties to the largest parameter; its runs' mean wall time with marked
/// weights. None when no size of the largest set was run twice.
struct EqualizeChoice {
  int set_index = 0;
  double parameter = 0;
  double mean_seconds = 0;
};
std::optional<EqualizeChoice> equalize_choice(pg::Connection& conn, const std::string& experiment);

/// One line of the re-run's comparison: "measured <weights source>" (runs, mean wall time)
/// over the runs of the re-run's own array jobs only (marked and equalized steps in turn,
/// so both see the same state of the machine; earlier marked runs of that size are left
/// out), or "simulated <method>" (simulated tau) from hetscale.latest_partitions.
struct TimeComparison {
  std::string what;
  std::optional<long long> runs;
  double seconds = 0;
};
std::vector<TimeComparison> rerun_comparison(pg::Connection& conn, const std::string& experiment, int set_index,
                                             double parameter, const std::vector<std::uint64_t>& rerun_array_jobs);

}  // namespace hetscale::collector
