// From measured (parameter, speed-efficiency) points of one machine set, a smooth
// monotone curve E_s(N), and the parameter that reaches a target E_s (docs/science.md
// section 1, "Finding W' in practice"). Never extrapolates. Method: docs/fitting.md.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace hetscale {

/// A measured mean E_s with |E_s - target| <= tolerance x target counts as reaching the
/// target. One default for `hetscale jobgen --refine` (stops refining such a set) and
/// `hetscale analyze` (accepts that measured point when the runs do not bracket the target).
inline constexpr double default_efficiency_tolerance = 0.02;

struct EfficiencyPoint {
  double parameter = 0;   // the workload parameter, e.g. N
  double efficiency = 0;  // measured E_s of one run
};

/// Outcome of reading a target off a curve.
struct TargetReading {
  enum class Status {
    found,            // parameter holds the value where the curve reaches the target
    below_range,      // target below every fitted value: smaller problems are needed
    above_range,      // target above every fitted value: larger problems are needed
    too_few_points,   // fewer than two distinct parameter values
    within_tolerance  // not bracketed, but a measured mean E_s is within the tolerance:
                      // parameter is that measured value (parameter_within only)
  };
  Status status = Status::too_few_points;
  double parameter = 0;     // valid when has_parameter()
  std::string explanation;  // one line for users, also when found
  /// Whether the reading gives a parameter: status found or within_tolerance.
  [[nodiscard]] bool has_parameter() const noexcept {
    return status == Status::found || status == Status::within_tolerance;
  }
};

/// One distinct measured parameter after fitting.
struct FittedKnot {
  double parameter = 0;
  double mean_efficiency = 0;    // mean of the repeats measured at this parameter
  double fitted_efficiency = 0;  // after the monotone (isotonic) fit
  std::size_t repeats = 0;
};

class EfficiencyCurve {
 public:
  /// Fits the curve; repeated parameters are averaged. Throws Error on non-finite or
  /// non-positive parameters or non-finite or negative efficiencies. Fewer than two
  /// distinct parameters is not an error here: parameter_at() reports too_few_points.
  static EfficiencyCurve fit(std::span<const EfficiencyPoint> points);
  /// The same fit from the repeats already averaged: `knots` holds the distinct
  /// parameters, ascending, each with its mean E_s and number of repeats (its
  /// fitted_efficiency is ignored). What fit() does after averaging; the bootstrap
  /// (bootstrap.hpp) refits its resampled means through it. Throws Error on parameters
  /// that are not positive, finite and strictly ascending, means that are not finite and
  /// >= 0, or a knot without repeats.
  static EfficiencyCurve fit_averaged(std::vector<FittedKnot> knots);

  /// Fitted E_s at a parameter within [min_parameter, max_parameter]; throws Error
  /// outside that range or when the curve has fewer than two knots.
  [[nodiscard]] double at(double parameter) const;
  /// Smallest and largest measured parameter; throw Error on a curve without points.
  [[nodiscard]] double min_parameter() const;
  [[nodiscard]] double max_parameter() const;
  /// The distinct parameters, ascending, with their mean and fitted E_s.
  [[nodiscard]] const std::vector<FittedKnot>& knots() const noexcept { return knots_; }
  /// Inverts the curve for a target E_s, inside the measured range only; a flat stretch
  /// at exactly the target gives its smallest parameter. Throws Error on a non-finite
  /// target.
  [[nodiscard]] TargetReading parameter_at(double target_efficiency) const;
  /// parameter_at(), except that when the target is not bracketed and the measured mean
  /// E_s nearest to it is within `tolerance` x target, the status is within_tolerance and
  /// the parameter is that measured one. Throws Error unless 0 <= tolerance < 1.
  [[nodiscard]] TargetReading parameter_within(double target_efficiency, double tolerance) const;

 private:
  [[nodiscard]] double at_log(double log_parameter, std::size_t interval) const;
  void require_curve() const;

  std::vector<FittedKnot> knots_;
  std::vector<double> log_parameters_;  // ln(parameter) of each knot: the fit's abscissa
  std::vector<double> fitted_;          // fitted E_s of each knot (copy kept for the cubic)
  std::vector<double> slopes_;          // monotone Hermite slopes dE_s/d ln(N) at the knots
};

}  // namespace hetscale
