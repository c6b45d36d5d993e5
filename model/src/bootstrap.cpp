// The stratified residual bootstrap of a set's E_s curve and percentile intervals.
// Method and its measured coverage: docs/science.md, "Intervals of the measured figures".
#include "hetscale/model/bootstrap.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"
#include "hetscale/model/isospeed.hpp"
#include "hetscale/model/sample_statistics.hpp"

namespace hetscale {
namespace {

using detail::rounded_text;
using detail::shortest_text;

constexpr double infinity = std::numeric_limits<double>::infinity();

// The root of a replicate's reading: -inf / +inf where the target lies below / above its
// fitted curve.
double root_of(const TargetReading& reading) {
  switch (reading.status) {
    case TargetReading::Status::found:
    case TargetReading::Status::within_tolerance:
      return reading.parameter;
    case TargetReading::Status::below_range:
      return -infinity;
    case TargetReading::Status::above_range:
      return infinity;
    case TargetReading::Status::too_few_points:
      break;
  }
  return std::numeric_limits<double>::quiet_NaN();  // not reached: replicates keep the sizes
}

std::string runs_text(std::size_t n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); }

std::string share_text(std::size_t count, std::size_t total) {
  return fmt::format("{} of {} resamples", count, total);
}

}  // namespace

std::uint64_t ResampleRandom::next() noexcept {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::size_t ResampleRandom::below(std::size_t n) noexcept {
  // Rejection of the values past the last whole multiple of n: no modulo bias.
  const std::uint64_t bound = static_cast<std::uint64_t>(n);
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              std::numeric_limits<std::uint64_t>::max() % bound;
  std::uint64_t x = next();
  while (x >= limit) x = next();
  return static_cast<std::size_t>(x % bound);
}

double ResampleRandom::normal() noexcept {
  // 53-bit uniforms; u1 in (0, 1] so that its logarithm is finite.
  const double u1 = static_cast<double>((next() >> 11) + 1) * 0x1.0p-53;
  const double u2 = static_cast<double>(next() >> 11) * 0x1.0p-53;
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

std::uint64_t resample_seed(std::initializer_list<std::string_view> names) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a 64
  const auto add = [&hash](unsigned char byte) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  };
  for (std::string_view name : names) {
    for (char c : name) add(static_cast<unsigned char>(c));
    add(0);
  }
  return hash;
}

std::uint64_t required_parameter_seed(std::string_view experiment, int set_index, double target) {
  return resample_seed({experiment, std::to_string(set_index), shortest_text(target)});
}

PercentileInterval percentile_interval(std::span<const double> replicates, double level) {
  if (replicates.empty()) throw Error("a percentile interval needs at least one replicate");
  if (!(level > 0 && level < 1)) throw Error("an interval's level must be in (0, 1)");
  const std::size_t b = replicates.size();
  const auto k = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::floor(static_cast<double>(b + 1) * (1 - level) / 2)));
  const std::size_t at = std::min(k, b) - 1;
  // NaN widens both ends: -inf for the lower order statistic, +inf for the upper.
  std::vector<double> values(replicates.begin(), replicates.end());
  for (double& v : values)
    if (std::isnan(v)) v = -infinity;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  PercentileInterval out;
  out.low = values[at];
  values.assign(replicates.begin(), replicates.end());
  for (double& v : values)
    if (std::isnan(v)) v = infinity;
  const std::size_t upper = b - 1 - at;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(upper), values.end());
  out.high = values[upper];
  return out;
}

ReportedInterval reported_interval(std::span<const double> replicates, double level,
                                   std::string_view below, std::string_view above) {
  const PercentileInterval p = percentile_interval(replicates, level);
  ReportedInterval out;
  std::size_t low_side = 0;
  std::size_t high_side = 0;
  std::size_t undetermined = 0;
  for (double v : replicates) {
    if (std::isnan(v))
      ++undetermined;
    else if (v == -infinity)
      ++low_side;
    else if (v == infinity)
      ++high_side;
  }
  std::vector<std::string> notes;
  if (std::isfinite(p.low))
    out.low = p.low;
  else
    notes.push_back(fmt::format("lower bound open: {} fall {}", share_text(low_side + undetermined,
                                                                           replicates.size()),
                                below));
  if (std::isfinite(p.high))
    out.high = p.high;
  else
    notes.push_back(fmt::format("upper bound open: {} fall {}", share_text(high_side + undetermined,
                                                                           replicates.size()),
                                above));
  out.note = fmt::format("{}", fmt::join(notes, "; "));
  return out;
}

ResidualResampler::ResidualResampler(std::span<const EfficiencyPoint> points, double deviation_scale)
    : ResidualResampler(EfficiencyCurve::fit(points), points, deviation_scale) {}

ResidualResampler::ResidualResampler(const EfficiencyCurve& curve,
                                     std::span<const EfficiencyPoint> points,
                                     double deviation_scale)
    : sizes_(curve.knots()) {
  std::vector<EfficiencyPoint> sorted(points.begin(), points.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.parameter < b.parameter; });
  auto run = sorted.begin();
  for (const FittedKnot& size : sizes_) {
    const auto first = run;
    while (run != sorted.end() && run->parameter == size.parameter) ++run;
    if (size.repeats < 2 || !(size.mean_efficiency > 0)) continue;
    const double n = static_cast<double>(size.repeats);
    const double correction = std::sqrt(n / (n - 1));
    for (auto p = first; p != run; ++p)
      deviations_.push_back((p->efficiency / size.mean_efficiency - 1) * correction);
    degrees_of_freedom_ += size.repeats - 1;
  }
  std::sort(deviations_.begin(), deviations_.end());
  set_deviation_scale(deviation_scale);
}

void ResidualResampler::set_deviation_scale(double deviation_scale) {
  if (!(std::isfinite(deviation_scale) && deviation_scale > 0))
    throw Error("the residuals' deviation scale must be a positive number, got " +
                shortest_text(deviation_scale));
  // 1 + d s at least 0 keeps the order of the sorted deviations: the pool stays sorted.
  pool_.clear();
  double squares = 0;
  for (double d : deviations_) {
    const double r = std::max(0.0, 1 + d * deviation_scale);
    pool_.push_back(r);
    squares += (r - 1) * (r - 1);
  }
  pool_sd_ = pool_.empty() ? 0 : std::sqrt(squares / static_cast<double>(pool_.size()));
}

void ResidualResampler::replicate(ResampleRandom& random, std::vector<FittedKnot>& out) const {
  if (pool_.empty())
    throw Error("no size has 2 or more runs: there are no residuals to resample");
  out = sizes_;
  for (FittedKnot& size : out) {
    double mean_residual = 0;
    if (size.repeats <= exact_resample_runs) {
      double sum = 0;
      for (std::size_t k = 0; k < size.repeats; ++k) sum += pool_[random.below(pool_.size())];
      mean_residual = sum / static_cast<double>(size.repeats);
    } else {
      mean_residual = std::max(
          0.0, 1 + random.normal() * pool_sd_ / std::sqrt(static_cast<double>(size.repeats)));
    }
    size.mean_efficiency *= mean_residual;
    size.fitted_efficiency = 0;
  }
}

std::optional<std::array<std::size_t, 2>> bracketing_sizes(const EfficiencyCurve& curve,
                                                           const TargetReading& reading) {
  const auto& knots = curve.knots();
  if (!reading.has_parameter() || knots.size() < 2) return std::nullopt;
  const auto at = std::lower_bound(
      knots.begin(), knots.end(), reading.parameter,
      [](const FittedKnot& k, double parameter) { return k.parameter < parameter; });
  auto k = static_cast<std::size_t>(at - knots.begin());
  if (reading.status == TargetReading::Status::within_tolerance) {
    // The measured size taken, and its neighbour towards the other sizes.
    return k == 0 ? std::array<std::size_t, 2>{0, 1} : std::array<std::size_t, 2>{k - 1, k};
  }
  k = std::min(k, knots.size() - 1);
  return k == 0 ? std::array<std::size_t, 2>{0, 1} : std::array<std::size_t, 2>{k - 1, k};
}

ParameterInterval required_parameter_interval(std::span<const EfficiencyPoint> points, double target,
                                              double tolerance, const BootstrapOptions& options) {
  return required_parameter_interval(EfficiencyCurve::fit(points), points, target, tolerance,
                                     options);
}

ParameterInterval required_parameter_interval(const EfficiencyCurve& curve,
                                              std::span<const EfficiencyPoint> points, double target,
                                              double tolerance, const BootstrapOptions& options) {
  ParameterInterval out;
  (void)normal_quantile(options.level);  // a level the quantiles support, whatever the runs
  const TargetReading reading = curve.parameter_within(target, tolerance);
  const auto bracket = bracketing_sizes(curve, reading);
  if (!bracket) {
    out.interval.reason = "no parameter";
    out.interval.note = "no interval: the set's runs give no parameter at the target";
    return out;
  }
  const FittedKnot& lo = curve.knots()[(*bracket)[0]];
  const FittedKnot& hi = curve.knots()[(*bracket)[1]];
  if (lo.repeats < 2 || hi.repeats < 2) {
    out.interval.reason = "too few runs";
    out.interval.note = fmt::format(
        "too few runs: {} at {} and {} at {}, the sizes that bracket the target; an interval "
        "needs 2 at each",
        runs_text(lo.repeats), rounded_text(lo.parameter), runs_text(hi.repeats),
        rounded_text(hi.parameter));
    return out;
  }
  if (options.resamples == 0) throw Error("a bootstrap needs at least one resample");
  ResidualResampler resampler(curve, points);
  if (resampler.degrees_of_freedom() == 0) {
    out.interval.reason = "no spread";
    out.interval.note = "no interval: no size with 2 or more runs has a positive mean E_s";
    return out;
  }
  // 0: the small-sample correction of the pool's degrees of freedom.
  const double scale = options.deviation_scale != 0
                           ? options.deviation_scale
                           : student_t_quantile(options.level, resampler.degrees_of_freedom()) /
                                 normal_quantile(options.level);
  resampler.set_deviation_scale(scale);
  out.pooled = resampler.pooled();
  out.deviation_scale = scale;
  ResampleRandom random(options.seed);
  std::vector<FittedKnot> knots;
  out.replicates.reserve(options.resamples);
  for (std::size_t b = 0; b < options.resamples; ++b) {
    resampler.replicate(random, knots);
    out.replicates.push_back(
        root_of(EfficiencyCurve::fit_averaged(knots).parameter_within(target, tolerance)));
  }
  out.interval = reported_interval(
      out.replicates, options.level,
      "below the smallest measured size " + rounded_text(curve.min_parameter()),
      "above the largest measured size " + rounded_text(curve.max_parameter()));
  return out;
}

std::optional<double> relative_half_width(const ReportedInterval& interval, double parameter) {
  if (!interval.low || !interval.high || !(parameter > 0)) return std::nullopt;
  return (*interval.high - *interval.low) / 2 / parameter;
}

PrecisionCheck check_precision(double precision, double parameter, const ReportedInterval& interval,
                               std::size_t runs) {
  PrecisionCheck out;
  out.half_width = relative_half_width(interval, parameter);
  out.reached = out.half_width && *out.half_width <= precision;
  const std::string width =
      out.half_width ? "half-width " + rounded_text(*out.half_width * 100, 2) + "%"
      : interval.low || interval.high ? std::string("an open bound")
                                      : std::string("no interval");
  out.text = fmt::format("precision {}% {}: {} after {}", rounded_text(precision * 100),
                         out.reached ? "reached" : "not reached", width, runs_text(runs));
  return out;
}

std::vector<double> psi_replicates(double marked_speed, std::span<const double> work,
                                   double next_marked_speed, std::span<const double> next_work) {
  if (work.size() != next_work.size())
    throw Error(fmt::format("psi's replicates pair the two sets' index-wise: {} and {} replicates",
                            work.size(), next_work.size()));
  std::vector<double> out;
  out.reserve(work.size());
  for (std::size_t b = 0; b < work.size(); ++b) {
    if (std::isnan(work[b]) || std::isnan(next_work[b])) {  // a replicate with no figure
      out.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    const bool up = work[b] == infinity || next_work[b] == -infinity;
    const bool down = work[b] == -infinity || next_work[b] == infinity;
    if (up && down)
      out.push_back(std::numeric_limits<double>::quiet_NaN());
    else if (up)
      out.push_back(infinity);
    else if (down)
      out.push_back(-infinity);
    else
      out.push_back(isospeed::psi(marked_speed, work[b], next_marked_speed, next_work[b]));
  }
  return out;
}

}  // namespace hetscale
