#include "hetscale/model/sample_statistics.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale {
namespace {

// Chi-square quantile with k degrees of freedom at the lower (z < 0) or upper (z > 0)
// tail of a two-sided interval: table values at 95% up to 30 degrees of freedom, else
// Wilson-Hilferty, for the normal quantile z.
double chi_square_quantile(std::size_t k, double z) {
  static constexpr std::array<double, 30> lower95 = {
      0.000982, 0.0506, 0.216,  0.484,  0.831,  1.237,  1.690,  2.180,  2.700,  3.247,
      3.816,    4.404,  5.009,  5.629,  6.262,  6.908,  7.564,  8.231,  8.907,  9.591,
      10.283,   10.982, 11.689, 12.401, 13.120, 13.844, 14.573, 15.308, 16.047, 16.791};
  static constexpr std::array<double, 30> upper95 = {
      5.024,  7.378,  9.348,  11.143, 12.833, 14.449, 16.013, 17.535, 19.023, 20.483,
      21.920, 23.337, 24.736, 26.119, 27.488, 28.845, 30.191, 31.526, 32.852, 34.170,
      35.479, 36.781, 38.076, 39.364, 40.646, 41.923, 43.195, 44.461, 45.722, 46.979};
  if (k >= 1 && k <= 30 && std::abs(std::abs(z) - 1.959963984540054) < 1e-12)
    return z < 0 ? lower95[k - 1] : upper95[k - 1];
  const double n = static_cast<double>(k);
  const double a = 2.0 / (9.0 * n);
  const double c = 1.0 - a + z * std::sqrt(a);
  return n * c * c * c;
}

}  // namespace

double normal_quantile(double level) {
  if (level == 0.95) return 1.959963984540054;
  if (level == 0.99) return 2.5758293035489004;
  throw Error("an interval's level must be 0.95 or 0.99 (the levels of the quantile tables), got " +
              detail::shortest_text(level));
}

double student_t_quantile(double level, std::size_t df) {
  static constexpr std::array<double, 30> t95 = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  static constexpr std::array<double, 30> t99 = {
      63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
      3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
      2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750};
  const double z = normal_quantile(level);
  if (df == 0) throw Error("a t quantile needs at least 1 degree of freedom");
  if (df <= 30) return level == 0.95 ? t95[df - 1] : t99[df - 1];
  const double n = static_cast<double>(df);
  const double z3 = z * z * z;
  const double z5 = z3 * z * z;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n);
}

SampleSummary summarize_sample(std::span<const double> values, double level) {
  if (values.size() < 2) throw Error("a confidence interval needs at least 2 values");
  const double z = normal_quantile(level);
  const MeanEstimate estimate = mean_estimate(values, level);
  SampleSummary out;
  out.count = estimate.count;
  out.mean = estimate.mean;
  out.stddev = *estimate.stddev;
  out.mean_interval = {*estimate.low, *estimate.high};
  const double df = static_cast<double>(out.count - 1);
  if (out.mean <= 0) throw Error("the coefficient of variation needs a positive mean");
  out.cv = out.stddev / out.mean;
  // sigma lies in [s sqrt(df / chi2_hi), s sqrt(df / chi2_lo)]; the CV interval divides
  // it by the mean (the mean's own spread is small beside it for the CVs of a few %).
  const double chi_hi = chi_square_quantile(out.count - 1, z);
  const double chi_lo = std::max(chi_square_quantile(out.count - 1, -z), 1e-12);
  out.cv_interval = {out.cv * std::sqrt(df / chi_hi), out.cv * std::sqrt(df / chi_lo)};
  return out;
}

MeanEstimate mean_estimate(std::span<const double> values, double level,
                           std::optional<double> lowest) {
  if (values.empty()) throw Error("a mean needs at least 1 value");
  MeanEstimate out;
  out.count = values.size();
  double sum = 0;
  for (double v : values) sum += v;
  out.mean = sum / static_cast<double>(out.count);
  if (out.count < 2) {
    (void)normal_quantile(level);  // the level is checked whatever the count
    out.reason = "1 run";
    out.note = out.reason;
    return out;
  }
  double squares = 0;
  for (double v : values) squares += (v - out.mean) * (v - out.mean);
  out.stddev = std::sqrt(squares / static_cast<double>(out.count - 1));
  const double half =
      student_t_quantile(level, out.count - 1) * *out.stddev / std::sqrt(static_cast<double>(out.count));
  out.low = out.mean - half;
  out.high = out.mean + half;
  if (lowest && *out.low < *lowest) {
    out.note = "lower bound clamped at " + detail::rounded_text(*lowest) + " from " +
               detail::rounded_text(*out.low) + ": the figure cannot be less";
    out.low = *lowest;
  }
  return out;
}

std::string verdict(const Interval& interval, const Interval& target) {
  if (interval.low >= target.low && interval.high <= target.high) return "met";
  if (interval.high < target.low || interval.low > target.high) return "missed";
  return "undecided";
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(values.begin(), middle)) / 2;
}

}  // namespace hetscale
