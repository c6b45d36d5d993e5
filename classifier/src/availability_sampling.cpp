#include "hetscale/classifier/availability_sampling.hpp"

#include <fmt/format.h>

#include <cmath>

#include "hetscale/base/error.hpp"

namespace hetscale {

std::optional<double> correlation_seconds(const std::vector<double>& series, double window) {
  const std::size_t n = series.size();
  if (n < 2) return std::nullopt;
  double mean = 0;
  for (double x : series) mean += x;
  mean /= static_cast<double>(n);
  double c0 = 0;
  for (double x : series) c0 += (x - mean) * (x - mean);
  // A series constant up to rounding has no correlation to speak of.
  if (!(c0 > 1e-24 * static_cast<double>(n) * (1 + mean * mean))) return std::nullopt;
  const double threshold = std::exp(-1.0);
  double previous = 1;  // r(0)
  for (std::size_t k = 1; k < n; ++k) {
    double ck = 0;
    for (std::size_t t = 0; t + k < n; ++t) ck += (series[t] - mean) * (series[t + k] - mean);
    const double r = ck / c0;
    if (r < threshold) {
      const double fraction = (previous - threshold) / (previous - r);
      return (static_cast<double>(k - 1) + fraction) * window;
    }
    previous = r;
  }
  return std::nullopt;
}

NodeAvailability summarize_availability(const std::vector<double>& speeds, double window,
                                        double reference_speed, const std::string& reference) {
  if (speeds.empty()) throw Error("availability: no window was sampled");
  if (!(window > 0) || !std::isfinite(window))
    throw Error("availability: the window must be a positive number of seconds");
  if (!(reference_speed > 0) || !std::isfinite(reference_speed))
    throw Error("availability: the marked speed it is relative to must be positive");
  NodeAvailability a;
  a.window_seconds = window;
  a.period_seconds = window * static_cast<double>(speeds.size());
  a.reference_speed = reference_speed;
  a.reference = reference;
  for (double speed : speeds) {
    if (!(speed >= 0) || !std::isfinite(speed))
      throw Error(fmt::format("availability: a window's speed is {}", speed));
    a.series.push_back(speed / reference_speed);
  }
  double sum = 0;
  for (double x : a.series) sum += x;
  a.mean = sum / static_cast<double>(a.series.size());
  double squares = 0;
  for (double x : a.series) squares += (x - a.mean) * (x - a.mean);
  a.sd = std::sqrt(squares / static_cast<double>(a.series.size()));
  a.th = a.mean > 0 ? a.sd / a.mean : 0;
  a.correlation_seconds = correlation_seconds(a.series, window);
  return a;
}

void check_availability_options(const AvailabilityOptions& options) {
  if (!(options.window > 0) || !std::isfinite(options.window))
    throw Error("--window must be a positive number of seconds");
  if (!(options.seconds >= options.window) || !std::isfinite(options.seconds))
    throw Error(fmt::format("--availability must be at least one window ({} s) long",
                            options.window));
  if (!(options.marked_speed >= 0) || !std::isfinite(options.marked_speed))
    throw Error("--marked-speed must be a positive number");
}

}  // namespace hetscale
