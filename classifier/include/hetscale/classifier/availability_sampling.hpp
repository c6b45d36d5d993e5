// Availability of a node (docs/science.md section 3): its delivered speed sampled in short
// windows over a period, a slice of the marked-speed benchmark run back to back, divided by
// its marked speed. Gives a_i, sigma_Ai, TH_i = sigma_Ai / a_i and how long availability
// stays correlated (`hetscale classify --availability`, docs/admin-classify.md).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/classifier/benchmark.hpp"
#include "hetscale/site/node_record.hpp"

namespace hetscale {

struct AvailabilityOptions {
  double seconds = 0;       // the sampling period; 0: availability is not measured
  double window = 0.1;      // seconds per window
  double marked_speed = 0;  // per processor, the reference; 0: the record's own marked speed
};

/// The delivered speed per processor, one figure per window of `window` seconds.
struct SpeedSamples {
  std::vector<double> speeds;
  double window = 0;
};

/// Samples the benchmark of `request` (its CPUs, workers and size) for `seconds` in windows
/// of `window` seconds. Throws (any std::exception) when it cannot.
using SamplingFunction =
    std::function<SpeedSamples(const BenchmarkRequest& request, double seconds, double window)>;

/// The lag (seconds) at which the autocorrelation of `series` first drops below 1/e,
/// interpolated linearly between the two windows around the crossing; none for a constant
/// series, one shorter than 2 windows, or one whose autocorrelation stays above 1/e.
/// The autocorrelation at lag k is sum_t (x_t - m)(x_{t+k} - m) / sum_t (x_t - m)^2.
std::optional<double> correlation_seconds(const std::vector<double>& series, double window);

/// A(t) = speed / reference_speed per window, its mean a_i, population standard deviation
/// sigma_Ai, TH_i = sigma_Ai / a_i (0 when a_i is 0) and correlation_seconds.
/// Throws Error for no window, a window or reference speed that is not positive, or a
/// negative or non-finite speed.
NodeAvailability summarize_availability(const std::vector<double>& speeds, double window,
                                        double reference_speed, const std::string& reference);

/// Checks the options (period at least one window, window positive, marked speed >= 0);
/// throws Error naming the option.
void check_availability_options(const AvailabilityOptions& options);

}  // namespace hetscale
