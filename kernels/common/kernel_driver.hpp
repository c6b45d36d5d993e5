// The frame every kernel runs in: MPI session, options, weights, the timed region,
// the answer check, and the run record appended by rank 0. A kernel only supplies how
// to prepare its data, run, and verify.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/engine.hpp"
#include "common/mpi_session.hpp"
#include "common/mpi_wait.hpp"
#include "common/phase_timer.hpp"
#include "serial/fft.hpp"

namespace hetscale::kernels {

struct KernelContext {
  const MpiSession& mpi;
  std::size_t n = 0;
  std::uint64_t seed = 1;
  std::vector<double> weights;  // one per rank, sum 1
  WaitMode wait = WaitMode::spin;
  ComputeMode compute = ComputeMode::real;  // real: compute; flops: charge (engine.hpp)
  FftPlanning fft_planning = FftPlanning::measure;   // conv2d
  std::optional<std::filesystem::path> fft_wisdom;    // conv2d: wisdom file, if any
};

struct Verification {
  bool ok = false;
  std::string detail;  // e.g. "scaled residual 0.012 < 16"; meaningful on rank 0
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  /// The timed region: distribution, computation, collection. Collective.
  virtual void run(PhaseTimer& timer) = 0;
  /// Checks the answer; collective, the same verdict on every rank. Not called when the
  /// operations were charged (ComputeMode::flops): there is no answer to check.
  [[nodiscard]] virtual Verification verify() = 0;
};

struct KernelDefinition {
  std::string name;  // "mm": program "hetscale-mm", workload "mm"
  /// Generates inputs and buffers; no communication (a failure is reported collectively).
  std::function<std::unique_ptr<Kernel>(const KernelContext&)> prepare;
};

/// The verdict on rank 0's HPL scaled residual (serial/elimination.hpp), broadcast so
/// every rank reaches the same one; below residual_bound is correct, NaN is not.
[[nodiscard]] Verification residual_verdict(const MpiSession& mpi, double residual_on_rank0);

/// main() of a kernel. Exit codes: 0 verified (or charged: --compute flops), 1 wrong
/// answer or failure, 2 bad usage.
int kernel_main(int argc, char** argv, const KernelDefinition& definition);

}  // namespace hetscale::kernels
