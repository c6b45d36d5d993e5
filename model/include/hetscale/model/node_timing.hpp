// Per-node speed and its variation from measured rank timings (docs/science.md section 3):
// the inputs of the equalization scheme, read off a machine set's repeated runs instead
// of an input file. A node's seconds per unit of work in one run is its slowest rank's
// compute time divided by the work the node was given (sum of its ranks' weights x W).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/model/equalization.hpp"

namespace hetscale {

/// One rank of one run.
struct RankSample {
  long long run = 0;  // any id that groups the ranks of one run
  std::string host;
  double weight = 0;           // share of the run's work given to this rank
  double run_work = 0;         // W of the run
  double compute_seconds = 0;  // the rank's compute time
};

/// What the repetitions say about one node.
struct NodeTimingStats {
  std::string host;
  std::size_t repetitions = 0;        // runs the node took part in
  double mean_seconds_per_op = 0;     // m_i: mean over runs of time / work given
  double sd_seconds_per_op = 0;       // d_i: sample standard deviation of the same
  double mean_work = 0;               // X_i: mean work the node was given per run
};

/// Per-node statistics, hosts in natural (Slurm) order. Throws Error when a rank has a
/// non-positive weight x work or compute time.
std::vector<NodeTimingStats> node_timing_stats(const std::vector<RankSample>& ranks);

/// The model view of a node: speed s_i = 1 / m_i and k_i = sigma_T / sqrt(t) at the
/// measured work X_i (sigma_T = X_i d_i, t = X_i m_i), so k_i = d_i sqrt(X_i / m_i).
VariableComputer variable_computer_from(const NodeTimingStats& stats);

/// Rejects what the equalization cannot use, with the reason and what to run: fewer than
/// two nodes, a node with fewer than two repetitions (its spread is unknown). Returns a
/// note (empty when none) for inputs that are usable but say little: no node varies.
std::string check_equalization_input(const std::vector<NodeTimingStats>& stats);

/// A node's newest availability measurement (`classify --availability`): TH_i = sigma_Ai /
/// a_i and the lag at which its autocorrelation drops below 1/e (none: not found).
struct MeasuredAvailability {
  std::string host;
  double th = 0;
  std::optional<double> correlation_seconds;
};

/// Which variation the equalization uses for the nodes of `stats`, and why.
struct VariationChoice {
  std::vector<VariableComputer> computers;  // in the order of `stats`
  bool from_availability = false;
  std::string source;  // in words, for the output
};

/// The speeds are the rank timings' (1 / mean seconds per op). The variation k_i is the
/// availability's, k_i = TH_i sqrt(c_i), when every node has an availability measurement
/// with a correlation time; c_i = 2 x the 1/e lag (the integral of an autocorrelation that
/// decays exponentially, E[L^2]/E[L] in the interval model). Otherwise the run-time figure
/// sigma_T / sqrt(t) of variable_computer_from, and `source` names the unmeasured nodes.
VariationChoice choose_variation(const std::vector<NodeTimingStats>& stats,
                                 const std::vector<MeasuredAvailability>& availability);

}  // namespace hetscale
