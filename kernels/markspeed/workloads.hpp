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
};

/// The effective problem size: spec.n for kernels, else options.size or the default.
[[nodiscard]] std::size_t effective_size(const BenchmarkSpec& spec, std::size_t size);

/// Allocates and fills the worker's data (call after pinning: first touch places it).
[[nodiscard]] std::unique_ptr<Workload> make_workload(const BenchmarkSpec& spec, std::size_t size,
                                                      unsigned seed);

}  // namespace hetscale::markspeed
