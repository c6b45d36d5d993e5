// How often the required parameter's bootstrap interval (bootstrap.hpp) covers the truth,
// measured on synthetic sets whose E_s curve is known: E_s(N) = 0.6 N / (N + 500), eight
// doubling sizes 100 to 12800, target 0.4 (reached at N = 1000 exactly), each run's E_s
// the curve's times log-normal noise of a given relative standard deviation; and how often
// psi's interval does, between that set (C = 1) and a second of C' = 2 whose curve is
// E_s(N) = 0.6 N / (N + 1000) (the target at N' = 2000), with W = N^3: psi = C' W / (C W')
// = 2 / 8 = 0.25. The tables of docs/science.md ("Coverage") and their unit tests come
// from here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hetscale {

struct CoverageSetup {
  double noise = 0.15;           // relative standard deviation of a run's E_s
  std::size_t runs_per_size = 3;
  std::size_t trials = 200;      // synthetic sets, each with its own noise
  std::size_t resamples = 2000;  // per interval
  std::uint64_t seed = 1;        // of the noise; each trial's bootstrap has a seed of its own
  double deviation_scale = 0;    // BootstrapOptions::deviation_scale (0: t_df / z)
};

struct CoverageResult {
  std::size_t trials = 0;
  std::size_t with_interval = 0;  // trials whose set gave an interval
  std::size_t covered = 0;        // ... that contains the true parameter (an open bound
                                  // covers everything on its side)
  std::size_t open = 0;           // ... with a bound open
  double median_half_width = 0;   // median over the closed intervals of (high - low) / 2,
                                  // relative to the true parameter
  [[nodiscard]] double coverage() const {
    return with_interval == 0 ? 0 : static_cast<double>(covered) / static_cast<double>(with_interval);
  }
};

/// The true parameter of the synthetic curve at its target.
inline constexpr double coverage_true_parameter = 1000;

/// Runs `setup.trials` synthetic sets through required_parameter_interval (at the default
/// tolerance) and counts how often the interval covers coverage_true_parameter.
/// Deterministic for a setup.
CoverageResult measure_coverage(const CoverageSetup& setup);

/// The true psi between the two synthetic sets of measure_psi_coverage.
inline constexpr double coverage_true_psi = 0.25;

/// Runs `setup.trials` pairs of synthetic sets (each with noise of its own) through
/// required_parameter_interval, pairs their work replicates as analyze does (psi_replicates,
/// reported_interval at the same level) and counts how often psi's interval covers
/// coverage_true_psi; `with_interval` counts the pairs whose sets both gave one. The half-
/// widths are relative to the true psi. Deterministic for a setup.
CoverageResult measure_psi_coverage(const CoverageSetup& setup);

}  // namespace hetscale
