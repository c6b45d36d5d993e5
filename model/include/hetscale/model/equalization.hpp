// Heterogeneity-aware partitioning (Huang & Lee): step 1 gives each computer work in
// proportion to its mean speed; step 2 moves work in the direction and by the amount its
// case calls for (the equalization scheme, which makes t'_i + sigma'_Ti the same on every
// computer, where that shortens tau; otherwise the move that shortens the modelled tau
// most). The model of tau: T_i normal with mean t_i and sd sigma_Ti = k_i sqrt(t_i),
// independent, tau = E[max_i T_i].
#pragma once

#include <span>
#include <string>
#include <string_view>
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

/// A partition `work` (X_i, one per computer) as the model sees it: t_i = X_i / s_i,
/// sigma_Ti = k_i sqrt(t_i) and the degree of equalization. Throws Error when the counts
/// differ.
StochasticPartition describe_partition(std::span<const VariableComputer> computers, std::vector<double> work);

/// Percentage standard deviation of t_i + sigma_Ti (the degree of equalization).
double equalization_degree(std::span<const double> mean_time, std::span<const double> time_sd);

/// tau = E[max_i T_i] with T_i ~ N(t_i, sigma_Ti^2) independent, t_i = X_i / s_i and
/// sigma_Ti = k_i sqrt(t_i), by Gauss-Legendre quadrature of the distribution of the
/// maximum; `gradient` (if not null) receives d tau / d X_i.
double modelled_tau(std::span<const VariableComputer> computers, std::span<const double> work,
                    std::vector<double>* gradient = nullptr);

/// The partition of `total_work` (X_i >= 0) with the least modelled tau: projected gradient
/// descent (step scaled by s_i^2, i.e. in the t_i) from step 1 and from the equalized
/// partition, the better kept.
StochasticPartition optimal_partition(std::span<const VariableComputer> computers,
                                      double total_work);

/// Which row of the paper's Table 1 (generalised to N computers) step 2 is in.
enum class EqualizationCase {
  none,               // one computer, no variation, or step 1 is already best: no move
  equal_speeds,       // equal speeds: work to the steadier computers, by equalization
  slow_unsteady,      // the slower computers are the unsteady ones: work to the faster, steadier
                      // ones, by equalization
  slow_steady_close,  // the slower computers are the steadier ones, speeds close: work to the
                      // steadier, slower ones, by equalization
  slow_steady_far,    // the equalizing move would not shorten tau (typically the slower
                      // computers steadier and much slower): no partition meets the condition in
                      // the direction that helps; work moves (towards the faster computers) by
                      // the move that shortens the modelled tau most
};

/// Stable key of a case: none, equal-speeds, slow-unsteady, slow-steady-close, slow-steady-far.
std::string_view case_key(EqualizationCase c);
/// One sentence: which way work moves and how far.
std::string_view case_description(EqualizationCase c);

struct TwoStepPartition {
  StochasticPartition step1;      // proportional
  StochasticPartition equalized;  // exact equalization (the condition, whatever it does to tau)
  StochasticPartition step2;      // what step 2 decides: the partition to run
  EqualizationCase which = EqualizationCase::none;
  /// Equalization cases: the share of the equalizing move taken (1 = equalized exactly;
  /// less or more where the modelled tau is least short of it or beyond it, at most 4).
  /// Other cases: 0.
  double move_fraction = 0;
  double tau_step1 = 0;      // modelled
  double tau_equalized = 0;  // modelled
  double tau_step2 = 0;      // modelled; never above tau_step1
};

/// Step 1, then step 2 by case: the direction of the move is the equalizing one where that
/// shortens the modelled tau (its slope at step 1 is negative), otherwise the projected
/// steepest descent of the modelled tau; the size is the one with the least modelled tau
/// along that direction (work kept >= 0; along the equalizing move, at most 4 times it).
TwoStepPartition two_step_partition(std::span<const VariableComputer> computers,
                                    double total_work);

/// The partition to run for a method: `case` (step 2 by case), `exact` (equalized),
/// `linearised` (the linearised equalization) or `optimum` (optimal_partition). One whose
/// modelled tau exceeds step 1's is replaced by step 1, and its note says so.
struct ChosenPartition {
  TwoStepPartition two_step;
  StochasticPartition partition;
  double tau = 0;  // modelled
};
ChosenPartition choose_partition(std::span<const VariableComputer> computers, double total_work,
                                 std::string_view method);

}  // namespace hetscale
