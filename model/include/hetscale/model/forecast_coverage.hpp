// How often a forecast row's prediction interval (forecast_bootstrap.hpp) contains what one
// new run needs, measured on a synthetic experiment of known truth: the mm family
// W = 2 N^3, eta = 0.8, T0 = 2 ms [p > 1] + 3e-9 N^2 ceil(log2 p), runs on sets of 1, 2, 4
// and 8 processes of 1e9 op/s each at N = 200, 400, 800, 1600, each run's times the
// model's times a log-normal noise factor of a given relative standard deviation; the
// forecast on a set of 32 processes that no run saw, at E_s 0.6. The table of
// docs/science.md ("Intervals of the forecast") and its unit tests come from here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hetscale/model/bootstrap.hpp"
#include "hetscale/model/capacity_forecast.hpp"
#include "hetscale/model/forecast_bootstrap.hpp"
#include "hetscale/model/prediction.hpp"

namespace hetscale {

/// The target of the synthetic forecast and the processes of its held-out set.
inline constexpr double forecast_coverage_target = 0.6;
inline constexpr std::size_t forecast_coverage_processes = 32;

/// A log-normal factor of mean 1 and relative standard deviation `noise`.
double lognormal_noise_factor(ResampleRandom& random, double noise);

/// The synthetic experiment's runs: `repeats` per set and size, each of its own noise.
std::vector<TimingSample> synthetic_forecast_runs(ResampleRandom& random, double noise,
                                                  std::size_t repeats);

/// The parameter at which a run of noise factor `factor` (its times the model's times
/// `factor`) on `processes` reaches `target`: the true E_s / factor = target.
double synthetic_required_parameter(std::size_t processes, double factor,
                                    double target = forecast_coverage_target);

/// The runs' forecast on the set of 8 processes (measured) and on the held-out set, with
/// their intervals.
std::vector<ForecastRow> synthetic_forecast(const std::vector<TimingSample>& runs,
                                            const ForecastIntervalOptions& options,
                                            double target = forecast_coverage_target);

struct ForecastCoverageSetup {
  double noise = 0.05;          // relative standard deviation of a run's times
  std::size_t repeats = 2;      // runs per set and size
  std::size_t trials = 200;     // synthetic experiments, each with its own noise
  std::size_t resamples = 400;  // per forecast
  std::uint64_t seed = 2026;    // of the noise; each trial's bootstrap has a seed of its own
  bool run_noise = true;        // ForecastIntervalOptions::run_noise
};

struct ForecastCoverageResult {
  std::size_t trials = 0;
  std::size_t covered = 0;       // the held-out row's interval contains what a new run needs (an
                                 // open bound covers everything on its side)
  std::size_t open = 0;          // intervals with a bound open
  double median_half_width = 0;  // over the closed intervals, relative to the parameter of
                                 // a run without noise
  [[nodiscard]] double coverage() const {
    return trials == 0 ? 0 : static_cast<double>(covered) / static_cast<double>(trials);
  }
};

/// Per trial: runs of `setup.noise`, the forecast's interval on the held-out set, and a
/// new run's noise factor, whose required parameter the interval should contain.
/// Deterministic for a setup.
ForecastCoverageResult measure_forecast_coverage(const ForecastCoverageSetup& setup);

}  // namespace hetscale
