// What one worker times: a repetition of a benchmark on its own data, as a speed.
#pragma once

#include <cstddef>
#include <memory>

#include "hetscale/markspeed.hpp"

namespace hetscale::markspeed {

/// One timed repetition: its work (Mflop, MB, Mop: the unit's numerator) and wall time.
struct Repetition {
  double work = 0;
  double seconds = 0;
  [[nodiscard]] double speed() const { return work / seconds; }
};

class Workload {
 public:
  virtual ~Workload() = default;
  /// One repetition, timed on the wall clock (untimed setup excluded).
  virtual Repetition run_once() = 0;
  /// A slice of a repetition, timed the same way: the next block of its rows (dgemm, mm)
  /// or elements (stream), one after the other round the data, so that back-to-back
  /// slices run the repetition's own code on its own data. A kernel with no such blocks
  /// (ge, conv2d) runs the whole repetition.
  virtual Repetition run_slice() { return run_once(); }
};

/// How many slices make one repetition (dgemm rows, stream elements of one pass). Few: a
/// dgemm of a thin block of rows runs well below the whole product's speed (the packing
/// of B is paid for fewer rows), and availability is relative to that whole speed.
inline constexpr std::size_t slices_per_repetition = 2;

/// The effective problem size: spec.n for kernels, else options.size or the default.
[[nodiscard]] std::size_t effective_size(const BenchmarkSpec& spec, std::size_t size);

/// Allocates and fills the worker's data (call after pinning: first touch places it).
[[nodiscard]] std::unique_ptr<Workload> make_workload(const BenchmarkSpec& spec, std::size_t size,
                                                      unsigned seed);

}  // namespace hetscale::markspeed
