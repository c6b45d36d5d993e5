// Heterogeneity-aware partitioning (SCIENCE.md section 3, Huang & Lee): step 1 gives each
// computer work in proportion to its mean speed; step 2, the equalization scheme, moves
// work so that t'_i + sigma'_Ti is the same on every computer.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace hetscale {

/// One computer as the stochastic model sees it.
struct VariableComputer {
  double speed = 0;      // s_i = alpha_i a_i: mean speed (work per time unit)
  double variation = 0;  // k_i = sigma_Ti / sqrt(t_i) = TH_i * sqrt(interval): >= 0
};

/// A partition of `total_work` and what the model predicts for it.
struct StochasticPartition {
  std::vector<double> work;       // X_i, sums to the total work
  std::vector<double> mean_time;  // t_i = X_i / s_i
  std::vector<double> time_sd;    // sigma_Ti = k_i sqrt(t_i)
  /// Degree of equalization: percentage standard deviation of t_i + sigma_Ti over the
  /// computers (0 = perfectly equalized).
  double degree = 0;
  std::string note;  // why the partition is what it is, when that needs saying
};

/// k_i from temporal heterogeneity TH_i = sigma_Ai / a_i and the correlation time of the
/// availability, E[L^2] / E[L] for interval lengths L (in the time unit of t): over a time t
/// the work done varies with variance sigma_A^2 t E[L^2]/E[L], so sigma_T = TH sqrt(t E[L^2]/E[L]).
double variation_from_heterogeneity(double temporal_heterogeneity, double correlation_time);

/// E[L^2] / E[L] for interval lengths uniform in [0, max_interval]: 2 max_interval / 3.
double correlation_time_of_uniform_intervals(double max_interval);

/// Step 1: X_i proportional to s_i (all t_i equal).
StochasticPartition proportional_partition(std::span<const VariableComputer> computers,
                                           double total_work);

/// Step 2, exact: solves t'_i + k_i sqrt(t'_i) = L for every i with sum s_i t'_i = total.
StochasticPartition equalized_partition(std::span<const VariableComputer> computers,
                                        double total_work);

/// Step 2 through the paper's linearisation around step 1 (for comparison); a computer
/// whose work would go negative is given none and the rest re-solved (said in `note`).
StochasticPartition linearised_partition(std::span<const VariableComputer> computers,
                                         double total_work);

/// Percentage standard deviation of t_i + sigma_Ti (the degree of equalization).
double equalization_degree(std::span<const double> mean_time, std::span<const double> time_sd);

}  // namespace hetscale
