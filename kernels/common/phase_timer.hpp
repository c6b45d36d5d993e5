// Per-rank time spent computing vs communicating inside a kernel's timed region.
#pragma once

#include <mpi.h>

#include <utility>

namespace hetscale::kernels {

class PhaseTimer {
 public:
  template <typename F>
  void compute(F&& step) {
    compute_seconds_ += timed(std::forward<F>(step));
  }
  template <typename F>
  void communicate(F&& step) {
    communication_seconds_ += timed(std::forward<F>(step));
  }
  [[nodiscard]] double compute_seconds() const noexcept { return compute_seconds_; }
  [[nodiscard]] double communication_seconds() const noexcept { return communication_seconds_; }

 private:
  template <typename F>
  static double timed(F&& step) {
    const double start = MPI_Wtime();
    std::forward<F>(step)();
    return MPI_Wtime() - start;
  }
  double compute_seconds_ = 0;
  double communication_seconds_ = 0;
};

}  // namespace hetscale::kernels
