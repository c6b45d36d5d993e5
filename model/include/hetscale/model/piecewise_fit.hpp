// Piecewise-linear fits of a message's time in its size: T(B) = latency_k + B
// seconds_per_byte_k on segment k, the breakpoints found from the data by segmented
// regression (docs/twin.md, "Calibration"). Every split of the sorted sizes into 1 to
// `max_segments` runs of at least `min_sizes_per_segment` sizes is tried (dynamic
// programming over the sizes), each run fitted by least squares in relative error
// ((T - y) / y, as the times span nine decades), and the number of segments chosen by
// the Bayesian information criterion. Segments are independent lines: a protocol switch
// (eager to rendezvous) is a jump, not a kink.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hetscale {

/// One measured message: its size and a time (a median over repetitions, or one sample).
struct SizedTime {
  double bytes = 0;
  double seconds = 0;
};

/// One segment of a piecewise-linear model, fitted on the sizes first_bytes..last_bytes.
struct LinearSegment {
  double first_bytes = 0;
  double last_bytes = 0;
  double latency_seconds = 0;   // the line's value at 0 bytes
  double seconds_per_byte = 0;  // 1 / bandwidth
  [[nodiscard]] double at(double bytes) const { return latency_seconds + seconds_per_byte * bytes; }
};

struct PiecewiseLinearFit {
  std::vector<LinearSegment> segments;  // by size, at least one
  double relative_rms = 0;  // sqrt(mean of ((T - y) / y)^2) over the points
  double bic = 0;           // n ln(RSS / n) + (3 K - 1) ln n, K segments
  std::size_t points = 0;

  /// The segment a size falls in: segment k holds the sizes up to the geometric mean of
  /// its last size and the next segment's first (below the first segment: the first;
  /// above the last: the last).
  [[nodiscard]] const LinearSegment& segment_of(double bytes) const;
  /// T(bytes) on its segment, never below 0.
  [[nodiscard]] double at(double bytes) const;
  /// The geometric means between segments: size b belongs to segment k when b is at most
  /// boundary k and above boundary k - 1.
  [[nodiscard]] std::vector<double> boundaries() const;
};

struct PiecewiseFitOptions {
  std::size_t max_segments = 4;
  std::size_t min_sizes_per_segment = 3;  // distinct sizes, so that each line has a residual
};

/// Fits `points` (any order; a size may repeat). Throws Error for a point whose size is
/// negative or not finite, or whose time is not positive and finite, and for fewer than 2
/// distinct sizes or more than 1000. With fewer than 2 min_sizes_per_segment distinct sizes
/// the fit is one line.
PiecewiseLinearFit fit_piecewise_linear(std::span<const SizedTime> points, const PiecewiseFitOptions& options = {});

}  // namespace hetscale
