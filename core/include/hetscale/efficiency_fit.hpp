// From measured (parameter, speed-efficiency) points of one machine set, a smooth
// monotone curve E_s(N), and the parameter that reaches a target E_s (SCIENCE.md
// section 1, "Finding W' in practice"). Never extrapolates silently.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace hetscale {

struct EfficiencyPoint {
  double parameter = 0;   // the workload parameter, e.g. N
  double efficiency = 0;  // measured E_s of one run
};

/// Outcome of reading a target off a curve.
struct TargetReading {
  enum class Status {
    found,         // parameter holds the value where the curve reaches the target
    below_range,   // target below every fitted value: smaller problems are needed
    above_range,   // target above every fitted value: larger problems are needed
    too_few_points // fewer than two distinct parameter values
  };
  Status status = Status::too_few_points;
  double parameter = 0;  // valid when status == found
  std::string explanation;  // one line for users, also when found
};

class EfficiencyCurve {
 public:
  /// Fits the curve; repeated parameters are averaged. Throws Error on non-finite or
  /// non-positive parameters or non-finite efficiencies.
  static EfficiencyCurve fit(std::span<const EfficiencyPoint> points);

  /// Fitted E_s at parameter n, which must lie within [min_parameter, max_parameter].
  [[nodiscard]] double at(double parameter) const;
  [[nodiscard]] double min_parameter() const;
  [[nodiscard]] double max_parameter() const;
  /// Inverts the curve for a target E_s, inside the measured range only.
  [[nodiscard]] TargetReading parameter_at(double target_efficiency) const;

 private:
  std::vector<double> knots_;   // distinct parameters, ascending (log-space internally)
  std::vector<double> values_;  // fitted, non-decreasing E_s at the knots
  std::vector<double> slopes_;  // monotone Hermite slopes at the knots
};

}  // namespace hetscale
