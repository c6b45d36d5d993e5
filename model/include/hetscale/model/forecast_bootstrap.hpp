// How sure a forecast row is (docs/science.md, "Intervals of the forecast"): prediction
// intervals of the required parameter, its work and psi on every row of a capacity
// forecast, from a residual bootstrap of the fitted runs' wall times (the uncertainty of
// the fit: the time model refitted on each replicate) and a run-noise factor per row and
// replicate (the spread a new run on the set would show). The random source, the
// percentile interval and the reported bounds are bootstrap.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/model/bootstrap.hpp"
#include "hetscale/model/capacity_forecast.hpp"
#include "hetscale/model/prediction.hpp"
#include "hetscale/model/workload.hpp"

namespace hetscale {

/// The level of every interval of a forecast row (required parameter, work, psi).
inline constexpr double forecast_interval_level = 0.90;

/// Replicates of a forecast's bootstrap unless told otherwise: enough that a bound moves
/// by a small fraction of the interval's width between two seeds (docs/science.md,
/// section 6).
inline constexpr std::size_t default_forecast_resamples = 1000;

/// The name of the forecast rows' interval method, as stored and printed: with run noise
/// (the interval of one new run on each set), or without (the interval of the mean run).
inline constexpr std::string_view forecast_interval_method =
    "residual bootstrap of the time model with run noise, percentile";
inline constexpr std::string_view forecast_mean_interval_method =
    "residual bootstrap of the time model, percentile";
[[nodiscard]] constexpr std::string_view forecast_interval_method_of(bool run_noise) {
  return run_noise ? forecast_interval_method : forecast_mean_interval_method;
}

/// The seed of an experiment's forecast bootstrap: resample_seed of "forecast", the
/// experiment's name and the target (shortest text). Each row's run noise is seeded from it
/// and the row's label (forecast_row_seed), so that a row's interval does not depend on
/// the other rows asked for.
std::uint64_t forecast_seed(std::string_view experiment, double target);
std::uint64_t forecast_row_seed(std::uint64_t seed, std::string_view label);

/// The fitted runs as the forecast's bootstrap resamples them: for run i with wall time
/// T_i and fitted time F_i (the model's T at its N, C, p), the relative residual
/// r_i = T_i / F_i; the pool holds 1 + (r_i - mean r) sqrt(n / df), at least 0, sorted,
/// with df = n - the model's fitted coefficients (the residuals' degrees of freedom). A
/// replicate keeps every run's set, size and processes (so sets and sizes with repetitions
/// keep them) and scales the run's times (wall, compute, communication alike) by
/// F_i r* / T_i, r* drawn from the pool with replacement: its wall time becomes the fitted
/// time times a resampled residual, its split between compute and communication the run's.
class TimeResampler {
 public:
  /// Throws Error when a sample's wall time is not positive.
  TimeResampler(const TimeModel& model, std::span<const TimingSample> samples);

  /// The residuals' degrees of freedom; 0: no interval (as many coefficients as runs).
  [[nodiscard]] std::size_t degrees_of_freedom() const noexcept { return degrees_of_freedom_; }
  [[nodiscard]] std::size_t runs() const noexcept { return samples_.size(); }
  [[nodiscard]] std::size_t coefficients() const noexcept { return coefficients_; }

  /// One replicate of the runs into `out`. Throws Error without degrees of freedom.
  void replicate(ResampleRandom& random, std::vector<TimingSample>& out) const;
  /// One run-noise factor: a residual drawn from the pool. Throws Error without degrees of
  /// freedom.
  [[nodiscard]] double run_noise(ResampleRandom& random) const;

 private:
  std::vector<TimingSample> samples_;
  std::vector<double> fitted_seconds_;
  std::vector<double> pool_;  // sorted
  std::size_t coefficients_ = 0;
  std::size_t degrees_of_freedom_ = 0;
};

struct ForecastIntervalOptions {
  std::size_t resamples = default_forecast_resamples;
  double level = forecast_interval_level;
  std::uint64_t seed = 0;  // forecast_seed for `hetscale predict`
  /// Multiply each replicate's time at a row's set by a run-noise factor (a prediction
  /// interval: where one new run lands); false leaves the fit's uncertainty alone (the
  /// interval of the mean run).
  bool run_noise = true;
};

/// The replicates the rows' intervals were read from (one per resample; -inf / +inf: the
/// replicate's root lies below / above the range searched; NaN: the replicate's model could
/// not be fitted).
struct ForecastReplicates {
  std::vector<std::vector<double>> parameter;  // [row][resample]
  std::vector<std::vector<double>> work;
  std::size_t runs = 0;                // fitted runs
  std::size_t degrees_of_freedom = 0;  // of their residuals
};

/// Fills the intervals of `rows` (as forecast() gave them with `model` fitted on `samples`
/// at `target`): `options.resamples` replicates of TimeResampler, each refitted with
/// TimeModel::fit(pattern) and solved by predict_parameter on every row at target times the
/// row's run-noise factor (E_s = W / (C T f) reaches the target where the model's E_s
/// reaches target f), in forecast_search_range(model); W at each root; psi of each
/// replicate against the same replicate of the row psi is against (psi_replicates); their
/// reported_interval. A row without a predicted parameter gets no interval of it, the
/// reason "no parameter" and a note why; every row gets none, the reason "too few runs"
/// and a note naming the runs and coefficients, when the runs' residuals have no degrees
/// of freedom.
/// Returns the replicates.
ForecastReplicates add_forecast_intervals(std::vector<ForecastRow>& rows, const TimeModel& model,
                                          std::span<const TimingSample> samples,
                                          const Workload& workload, CommunicationPattern pattern,
                                          double target, double ops_per_unit,
                                          const ForecastIntervalOptions& options);

}  // namespace hetscale
