// E_s(N) curve of one machine set: average repeats, isotonic fit, monotone cubic in
// ln(N), inversion by bisection. Why this method: docs/fitting.md.
#include "hetscale/model/efficiency_fit.hpp"

#include <algorithm>
#include <cmath>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"
#include "isotonic.hpp"
#include "monotone_cubic.hpp"

namespace hetscale {
namespace {

using detail::rounded_text;
using detail::shortest_text;

void validate(std::span<const EfficiencyPoint> points) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const std::string where =
        "point " + std::to_string(i + 1) + " of " + std::to_string(points.size()) + ": ";
    if (!(std::isfinite(p.parameter) && p.parameter > 0)) {
      throw Error(where + "parameter must be a positive finite number, got " +
                  shortest_text(p.parameter));
    }
    if (!(std::isfinite(p.efficiency) && p.efficiency >= 0)) {
      throw Error(where + "speed-efficiency must be a finite number >= 0, got " +
                  shortest_text(p.efficiency));
    }
  }
}

// Distinct parameters, ascending, with the mean E_s of their repeats.
std::vector<FittedKnot> average_repeats(std::span<const EfficiencyPoint> points) {
  std::vector<EfficiencyPoint> sorted(points.begin(), points.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.parameter < b.parameter; });
  std::vector<FittedKnot> knots;
  for (const auto& p : sorted) {
    if (knots.empty() || knots.back().parameter != p.parameter) {
      knots.push_back({p.parameter, 0, 0, 0});
    }
    FittedKnot& k = knots.back();
    k.mean_efficiency += p.efficiency;  // a sum until divided below
    ++k.repeats;
  }
  for (auto& k : knots) k.mean_efficiency /= static_cast<double>(k.repeats);
  return knots;
}

std::string describe_range(const std::vector<FittedKnot>& knots) {
  const auto& lo = knots.front();
  const auto& hi = knots.back();
  return "E_s " + rounded_text(lo.fitted_efficiency) + " at parameter " +
         rounded_text(lo.parameter) + " to " + rounded_text(hi.fitted_efficiency) +
         " at parameter " + rounded_text(hi.parameter);
}

constexpr const char* too_few_message = "need measurements at 2 or more distinct parameter values";

}  // namespace

EfficiencyCurve EfficiencyCurve::fit(std::span<const EfficiencyPoint> points) {
  validate(points);
  return fit_averaged(average_repeats(points));
}

EfficiencyCurve EfficiencyCurve::fit_averaged(std::vector<FittedKnot> knots) {
  for (std::size_t i = 0; i < knots.size(); ++i) {
    const FittedKnot& k = knots[i];
    const auto where = [&] {
      return "size " + std::to_string(i + 1) + " of " + std::to_string(knots.size()) + ": ";
    };
    if (!(std::isfinite(k.parameter) && k.parameter > 0) ||
        (i > 0 && !(k.parameter > knots[i - 1].parameter))) {
      throw Error(where() + "parameters must be positive, finite and ascending, got " +
                  shortest_text(k.parameter));
    }
    if (!(std::isfinite(k.mean_efficiency) && k.mean_efficiency >= 0) || k.repeats == 0) {
      throw Error(where() + "needs a finite mean speed-efficiency >= 0 over at least one run, got " +
                  shortest_text(k.mean_efficiency) + " over " + std::to_string(k.repeats));
    }
  }
  EfficiencyCurve curve;
  curve.knots_ = std::move(knots);
  const std::size_t n = curve.knots_.size();
  std::vector<double> means(n);
  std::vector<double> weights(n);
  curve.log_parameters_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    means[i] = curve.knots_[i].mean_efficiency;
    weights[i] = static_cast<double>(curve.knots_[i].repeats);
    curve.log_parameters_[i] = std::log(curve.knots_[i].parameter);
  }
  curve.fitted_ = detail::isotonic_non_decreasing(means, weights);
  for (std::size_t i = 0; i < n; ++i) curve.knots_[i].fitted_efficiency = curve.fitted_[i];
  if (n >= 2) curve.slopes_ = detail::monotone_slopes(curve.log_parameters_, curve.fitted_);
  return curve;
}

void EfficiencyCurve::require_curve() const {
  if (knots_.size() < 2) {
    throw Error(std::string("efficiency curve: ") + too_few_message + ", got " +
                std::to_string(knots_.size()));
  }
}

double EfficiencyCurve::min_parameter() const {
  if (knots_.empty()) throw Error("efficiency curve has no points");
  return knots_.front().parameter;
}

double EfficiencyCurve::max_parameter() const {
  if (knots_.empty()) throw Error("efficiency curve has no points");
  return knots_.back().parameter;
}

double EfficiencyCurve::at_log(double log_parameter, std::size_t interval) const {
  return detail::hermite_value(log_parameters_, fitted_, slopes_, interval, log_parameter);
}

double EfficiencyCurve::at(double parameter) const {
  require_curve();
  if (!(parameter >= min_parameter() && parameter <= max_parameter())) {
    throw Error("parameter " + shortest_text(parameter) + " is outside the fitted range [" +
                shortest_text(min_parameter()) + ", " + shortest_text(max_parameter()) + "]");
  }
  // Exact knots return their fitted value untouched by ln/exp rounding.
  const auto it = std::lower_bound(knots_.begin(), knots_.end(), parameter,
                                   [](const FittedKnot& k, double p) { return k.parameter < p; });
  if (it->parameter == parameter) return it->fitted_efficiency;
  const auto interval = static_cast<std::size_t>(it - knots_.begin()) - 1;
  return at_log(std::log(parameter), interval);
}

TargetReading EfficiencyCurve::parameter_at(double target_efficiency) const {
  if (!std::isfinite(target_efficiency)) {
    throw Error("target speed-efficiency must be a finite number, got " +
                shortest_text(target_efficiency));
  }
  TargetReading reading;
  const std::string target = "target E_s " + rounded_text(target_efficiency);
  if (knots_.size() < 2) {
    reading.status = TargetReading::Status::too_few_points;
    reading.explanation = std::string(too_few_message) + " to read off " + target + ", got " +
                          std::to_string(knots_.size());
    return reading;
  }
  if (target_efficiency < knots_.front().fitted_efficiency) {
    reading.status = TargetReading::Status::below_range;
    reading.explanation = target + " is below the fitted curve (" + describe_range(knots_) +
                          "): measure smaller parameter values to bracket it (no extrapolation)";
    return reading;
  }
  if (target_efficiency > knots_.back().fitted_efficiency) {
    reading.status = TargetReading::Status::above_range;
    reading.explanation = target + " is above the fitted curve (" + describe_range(knots_) +
                          "): measure larger parameter values to bracket it (no extrapolation; "
                          "if E_s has levelled off, the target may be out of reach on this set)";
    return reading;
  }
  // First knot at or above the target; the curve crosses the target in the interval
  // just before it (or exactly at it, which covers flat stretches).
  const auto it =
      std::lower_bound(knots_.begin(), knots_.end(), target_efficiency,
                       [](const FittedKnot& k, double e) { return k.fitted_efficiency < e; });
  const auto k = static_cast<std::size_t>(it - knots_.begin());
  double parameter = it->parameter;
  if (it->fitted_efficiency != target_efficiency) {
    // Bisection for the smallest ln(N) whose value reaches the target.
    double lo = log_parameters_[k - 1];
    double hi = log_parameters_[k];
    for (int i = 0; i < 200 && hi - lo > 1e-15 * std::max(1.0, std::abs(hi)); ++i) {
      const double mid = lo + (hi - lo) / 2;
      (at_log(mid, k - 1) >= target_efficiency ? hi : lo) = mid;
    }
    parameter = std::exp(hi);
  }
  reading.status = TargetReading::Status::found;
  reading.parameter = parameter;
  reading.explanation = target + " is reached at parameter " + rounded_text(parameter) +
                        " (fitted on " + std::to_string(knots_.size()) +
                        " distinct parameter values from " + rounded_text(min_parameter()) +
                        " to " + rounded_text(max_parameter()) + ")";
  return reading;
}

TargetReading EfficiencyCurve::parameter_within(double target_efficiency, double tolerance) const {
  if (!(tolerance >= 0 && tolerance < 1)) {
    throw Error("tolerance must be in [0, 1) (a fraction of the target), got " +
                shortest_text(tolerance));
  }
  TargetReading reading = parameter_at(target_efficiency);
  if (reading.status == TargetReading::Status::found || knots_.empty()) return reading;
  // The measured mean nearest to the target; the first of equals, as jobgen --refine picks.
  const FittedKnot* nearest = &knots_.front();
  for (const FittedKnot& k : knots_) {
    if (std::abs(k.mean_efficiency - target_efficiency) <
        std::abs(nearest->mean_efficiency - target_efficiency)) {
      nearest = &k;
    }
  }
  if (std::abs(nearest->mean_efficiency - target_efficiency) > tolerance * target_efficiency) {
    return reading;
  }
  reading.status = TargetReading::Status::within_tolerance;
  reading.parameter = nearest->parameter;
  reading.explanation = "target E_s " + rounded_text(target_efficiency) +
                        " is not bracketed by the runs, but the measured mean E_s " +
                        rounded_text(nearest->mean_efficiency) + " at parameter " +
                        rounded_text(nearest->parameter) + " is within " +
                        rounded_text(tolerance * 100) +
                        "% of it: taken as reached there (the rule of jobgen --refine)";
  return reading;
}

}  // namespace hetscale
