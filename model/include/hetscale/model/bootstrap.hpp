// How sure a figure read off a machine set's E_s curve is (docs/science.md, "Intervals of
// the measured figures"): a stratified residual bootstrap of the set's runs, refitted
// through the very fit and root of `hetscale analyze` (EfficiencyCurve), and percentile
// intervals of the replicates. The parts are separate so that any figure computed from a
// set's runs can be resampled the same way: the random source, the seed of a figure, the
// replicate generator, the percentile interval and the reported bounds;
// required_parameter_interval puts them together for the required parameter at a target.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/model/efficiency_fit.hpp"

namespace hetscale {

/// The level of every interval of a measured figure (per-size E_s, required parameter and
/// work, psi).
inline constexpr double measured_interval_level = 0.95;

/// Replicates of a bootstrap unless told otherwise.
inline constexpr std::size_t default_resamples = 2000;

/// A size with more runs than this draws its replicate mean from the normal distribution
/// of the mean of that many draws from the pool (its mean and variance are the pool's)
/// instead of drawing each run: the same distribution within a fraction of a percent at
/// such counts, at a cost that does not grow with the runs (docs/performance.md).
inline constexpr std::size_t exact_resample_runs = 64;

/// The name of the required parameter's interval method, as stored and printed.
inline constexpr std::string_view residual_bootstrap_method =
    "stratified residual bootstrap, percentile";

/// The name of the per-size E_s interval method, as stored and printed.
inline constexpr std::string_view mean_t_interval_method = "Student t interval of the mean";

/// Random numbers for resampling: splitmix64, so that one seed gives the same stream on
/// every platform and standard library (the distributions of <random> do not).
class ResampleRandom {
 public:
  explicit ResampleRandom(std::uint64_t seed) noexcept : state_(seed) {}
  /// The next 64 random bits.
  std::uint64_t next() noexcept;
  /// Uniform in [0, n); n >= 1.
  std::size_t below(std::size_t n) noexcept;
  /// Standard normal (Box-Muller).
  double normal() noexcept;

 private:
  std::uint64_t state_;
};

/// The seed of one figure's resamples, from the names that identify it (FNV-1a 64 of the
/// parts, each ended by a zero byte): the same names give the same replicates, so a stored
/// interval can be computed again and comes out the same.
std::uint64_t resample_seed(std::initializer_list<std::string_view> names);

/// The seed of a set's required-parameter bootstrap: resample_seed of the experiment's
/// name, the set's index and the target (shortest text of each number).
std::uint64_t required_parameter_seed(std::string_view experiment, int set_index, double target);

/// A two-sided percentile interval of replicates; a bound is -inf or +inf where the
/// replicates at that percentile lie beyond what was measured.
struct PercentileInterval {
  double low = 0;
  double high = 0;
};

/// The percentile interval at `level` (in (0, 1)) of `replicates`: the k-th smallest and
/// the k-th largest, k = floor((B + 1) (1 - level) / 2), at least 1. -inf and +inf are
/// ordinary ends of the order; a NaN (a replicate whose figure is undetermined) counts as
/// -inf for the lower bound and +inf for the upper, so it can only widen the interval.
/// Throws Error for no replicates or a level outside (0, 1).
PercentileInterval percentile_interval(std::span<const double> replicates, double level);

/// An interval as reported: a bound beyond what was measured (an infinite percentile) is
/// absent, and `note` says why. Without an interval `reason` says why in a few words (as a
/// table cell shows it: "too few runs") and `note` in full; an interval whose bounds are
/// both open has no `reason`.
struct ReportedInterval {
  std::optional<double> low{};
  std::optional<double> high{};
  std::string reason{};  // empty with an interval
  std::string note{};    // empty when both bounds are there
};

/// The percentile interval of `replicates` as reported: an infinite bound is absent, with a
/// note naming the share of replicates beyond it and where they lie (`below` and `above`
/// complete "... of the resamples fall ..."; e.g. "below the smallest measured size 800").
ReportedInterval reported_interval(std::span<const double> replicates, double level,
                                   std::string_view below, std::string_view above);

/// One set's runs as the bootstrap resamples them (docs/science.md): per size j with n_j
/// runs and mean m_j, and for each size with n_j >= 2 the relative residuals
/// r_jk = E_jk / m_j, corrected for the n_j - 1 degrees of freedom of their mean,
/// 1 + (r_jk - 1) sqrt(n_j / (n_j - 1)), scaled around 1 by `deviation_scale` (1: none),
/// at least 0, pooled over the sizes. A replicate gives every size the mean of n_j values
/// m_j r* with r* drawn from the pool with replacement, so sizes with one run vary too.
/// The pool is sorted: the replicates depend on the runs, not on their order.
class ResidualResampler {
 public:
  /// Throws Error on points EfficiencyCurve::fit refuses, or a deviation_scale that is not
  /// positive and finite.
  explicit ResidualResampler(std::span<const EfficiencyPoint> points, double deviation_scale = 1);
  /// The same with `curve`, EfficiencyCurve::fit of `points`, fitted already.
  ResidualResampler(const EfficiencyCurve& curve, std::span<const EfficiencyPoint> points,
                    double deviation_scale = 1);

  /// Scales the pool's deviations by `deviation_scale` (of the deviations as corrected
  /// for their degrees of freedom, not of the scale before). Throws Error for a scale that
  /// is not positive and finite.
  void set_deviation_scale(double deviation_scale);

  /// The sizes, ascending, with their run counts and mean E_s (EfficiencyCurve's knots).
  [[nodiscard]] const std::vector<FittedKnot>& sizes() const noexcept { return sizes_; }
  /// Residuals in the pool (the runs of the sizes with at least 2 runs); 0: no replicate.
  [[nodiscard]] std::size_t pooled() const noexcept { return pool_.size(); }
  /// The pool's degrees of freedom: the sum of n_j - 1 over its sizes.
  [[nodiscard]] std::size_t degrees_of_freedom() const noexcept { return degrees_of_freedom_; }

  /// One replicate: `out` becomes sizes() with each mean E_s resampled. Throws Error when
  /// the pool is empty.
  void replicate(ResampleRandom& random, std::vector<FittedKnot>& out) const;

 private:
  std::vector<FittedKnot> sizes_;
  std::vector<double> deviations_;  // r_jk - 1 corrected for their degrees of freedom, sorted
  std::vector<double> pool_;        // 1 + deviation x scale, at least 0; sorted
  double pool_sd_ = 0;        // standard deviation of the pool (its mean is 1)
  std::size_t degrees_of_freedom_ = 0;
};

/// The indexes into curve.knots() of the two measured sizes that bracket the target of
/// `reading`: around the root where it was found (a root exactly at the first knot takes
/// the first two); for a reading within tolerance, the measured size taken and its
/// neighbour towards the other sizes. Nothing for a reading without a parameter or a curve
/// of fewer than two sizes.
std::optional<std::array<std::size_t, 2>> bracketing_sizes(const EfficiencyCurve& curve,
                                                           const TargetReading& reading);

struct BootstrapOptions {
  std::size_t resamples = default_resamples;
  double level = measured_interval_level;  // 0.95 or 0.99 (normal_quantile)
  std::uint64_t seed = 0;  // required_parameter_seed for analyze's figures
  // Scales the pooled residuals' deviations (ResidualResampler); 0: the small-sample
  // correction t_{df, level} / z_level of the pool's degrees of freedom.
  double deviation_scale = 0;
};

/// The required parameter's interval and the replicates it was read from.
struct ParameterInterval {
  ReportedInterval interval{};
  std::vector<double> replicates{};  // one root per resample; -inf / +inf: below / above the
                                   // measured sizes; empty when there is no interval
  std::size_t pooled = 0;          // residuals in the pool
  double deviation_scale = 1;      // the scale applied to the pool's deviations
};

/// The interval of the parameter at which the set's curve reaches `target`, as `hetscale
/// analyze` reads it (EfficiencyCurve::fit, then parameter_within(target, tolerance)):
/// `options.resamples` replicates of ResidualResampler, each refitted and read again (a
/// root below the smallest measured size counts as -inf, above the largest as +inf), and
/// their reported_interval. No interval (no replicates, a note why) when the set's reading
/// has no parameter, or when either size that brackets the target (bracketing_sizes) has
/// fewer than 2 runs: the note names both sizes and their run counts. Throws Error for
/// points EfficiencyCurve::fit refuses, and for a level normal_quantile does not support
/// (whatever the runs).
ParameterInterval required_parameter_interval(std::span<const EfficiencyPoint> points, double target,
                                              double tolerance, const BootstrapOptions& options);
/// The same with `curve`, EfficiencyCurve::fit of `points`, fitted already (analyze reads
/// its parameter off the same curve).
ParameterInterval required_parameter_interval(const EfficiencyCurve& curve,
                                              std::span<const EfficiencyPoint> points, double target,
                                              double tolerance, const BootstrapOptions& options);

/// The statuses of a set refined to a precision (jobgen's refinement, the study, the report).
inline constexpr std::string_view precision_reached_status = "reached";
inline constexpr std::string_view precision_not_reached_status = "precision_not_reached";

/// (high - low) / 2 / parameter: the interval's half-width relative to the figure; absent
/// when a bound is absent (open, or no interval) or the parameter is not positive.
std::optional<double> relative_half_width(const ReportedInterval& interval, double parameter);

/// Whether a set's required parameter is as precise as a refinement asks (`precision`, a
/// relative half-width in (0, 1)), and the line that says so: "precision 10% reached:
/// half-width 4.2% after 12 runs" or "precision 10% not reached: half-width 14% after 60
/// runs" ("no interval" / "an open bound" in place of the half-width when it has none).
struct PrecisionCheck {
  bool reached = false;
  std::optional<double> half_width{};  // relative_half_width
  std::string text{};
  /// The set's status, as every output names it: "reached" or "precision_not_reached".
  [[nodiscard]] std::string_view status() const {
    return reached ? precision_reached_status : precision_not_reached_status;
  }
};
PrecisionCheck check_precision(double precision, double parameter, const ReportedInterval& interval,
                               std::size_t runs);

/// psi = C' W / (C W') of each pair of replicates (index-wise) of two consecutive sets
/// (isospeed::psi): +inf when W is +inf or W' is -inf (a root above the measured sizes of
/// the first set or below those of the second), -inf in the opposite cases, NaN when both
/// roots lie beyond the same side or either replicate is NaN (undetermined: a forecast's
/// replicate the time model could not be fitted to). Throws Error for replicates of
/// different counts.
std::vector<double> psi_replicates(double marked_speed, std::span<const double> work,
                                   double next_marked_speed, std::span<const double> next_work);

}  // namespace hetscale
