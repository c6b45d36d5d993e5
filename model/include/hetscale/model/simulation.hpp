// Monte Carlo of shared heterogeneous computers (docs/science.md section 3, Huang & Lee):
// each computer's availability A_i(t) is drawn anew at the start of every interval
// (interval lengths random), work X_i advances at alpha_i A_i(t), and the run is split
// into N_s phases that all wait for the slowest computer. Gives tau = E[T], sigma_T,
// sigma_T / tau and the risk factor Prob[T > tau_d]. Reproducible from a seed whatever
// the number of threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hetscale/model/availability.hpp"
#include "hetscale/model/equalization.hpp"

namespace hetscale {

struct SimulatedComputer {
  double max_power = 1;          // alpha_i: work per time unit when fully available
  double mean_availability = 1;  // a_i in (0, 1]
  double availability_sd = 0;    // sigma_Ai
};

struct SimulationOptions {
  std::size_t repetitions = 1000;
  std::uint64_t seed = 1;
  double max_interval = 20;     // interval lengths uniform in [0, max_interval] time units
  std::size_t sync_points = 1;  // N_s: phases that each end with everyone waiting
  AvailabilityDistribution distribution = AvailabilityDistribution::uniform;
  double deadline = 0;  // tau_d for the risk factor; 0 = tau of this simulation
  // Optional communication after every phase: `communication_time` at full network
  // availability, slowed on each computer by its own network availability, drawn per
  // computer and phase; the phase ends when the slowest computer has communicated.
  double communication_time = 0;
  double network_availability = 1;
  double network_availability_sd = 0;
  unsigned threads = 0;  // 0 = all hardware threads
};

struct SimulationResult {
  double tau = 0;            // mean parallel time E[T]
  double sigma_t = 0;        // standard deviation of T
  double normalised_sd = 0;  // sigma_T / tau
  double risk_factor = 0;    // Prob[T > tau_d]
  double deadline = 0;       // the tau_d used
};

/// The simulated computers as the stochastic model sees them (docs/science.md section 3):
/// s_i = alpha_i a_i, and k_i from TH_i = sigma_Ai / a_i and the correlation time of
/// intervals uniform in [0, max_interval] (variation_from_heterogeneity,
/// correlation_time_of_uniform_intervals). Throws Error for max_interval <= 0.
std::vector<VariableComputer> variable_computers(std::span<const SimulatedComputer> computers, double max_interval);

/// Simulates running `work[i]` on computer i. Throws Error on invalid input (availability
/// outside [0, 1] for the chosen distribution, no computers, work not matching...).
SimulationResult simulate(std::span<const SimulatedComputer> computers,
                          std::span<const double> work, const SimulationOptions& options);

/// Searches the partition of `total_work` that minimises the simulated tau, with common
/// random numbers (every candidate sees the same availability draws), starting from
/// `start` (e.g. the equalized partition). Pairwise golden-section transfers, `sweeps`
/// times over neighbouring pairs.
std::vector<double> optimise_partition(std::span<const SimulatedComputer> computers,
                                       std::span<const double> start,
                                       const SimulationOptions& options, int sweeps = 4);

}  // namespace hetscale
