// hetscale-mm: C = A x B (docs/science.md section 1). Rank 0 scatters contiguous row blocks of
// A in proportion to the weights and broadcasts B; each rank multiplies its block with
// OpenBLAS (one thread); rank 0 gathers C and checks it by Freivalds' method. The timed
// collectives are common/collectives.hpp's: non-blocking ones completed as HETSCALE_MPI_WAIT
// says (docs/kernels.md).
// Computation and big buffers go through common/engine.hpp (computed, or charged in the
// SimGrid build).
#include <cstdio>
#include <memory>
#include <vector>

#include "common/collectives.hpp"
#include "common/kernel_driver.hpp"
#include "common/layout.hpp"
#include "common/row_distribution.hpp"
#include "serial/blas.hpp"
#include "serial/operation_counts.hpp"
#include "serial/random_fill.hpp"

namespace hetscale::kernels {
namespace {

class MatrixMultiply final : public Kernel {
 public:
  explicit MatrixMultiply(const KernelContext& context)
      : mpi_(context.mpi),
        wait_(context.wait),
        compute_(context.compute),
        n_(context.n),
        seed_(context.seed) {
    const std::vector<std::size_t> rows = block_counts(n_, context.weights);
    layout_ = row_layout(rows, n_);
    rows_ = rows[static_cast<std::size_t>(mpi_.rank())];
    // Charged, B holds one item (its broadcast reads and writes none) and rank 0's A and C
    // the largest rank's rows: no buffer of N^2 items (collectives.hpp).
    b_ = Buffer<double>(broadcast_items(n_ * n_, compute_), compute_);
    local_a_ = Buffer<double>(rows_ * n_, compute_);
    local_c_ = Buffer<double>(rows_ * n_, compute_);
    if (mpi_.rank() == 0) {
      a_ = Buffer<double>(root_items(layout_, compute_), compute_);
      c_ = Buffer<double>(root_items(layout_, compute_), compute_);
      when_computing(compute_, [&] {
        fill_uniform(a_, seed_, 1);
        fill_uniform(b_, seed_, 2);
      });
    }
  }

  void run(PhaseTimer& timer) override {
    timer.communicate([&] {
      scatterv(a_.data(), layout_, MPI_DOUBLE, local_a_.data(), 0, mpi_.comm(), wait_);
      broadcast(b_.data(), n_ * n_, MPI_DOUBLE, 0, mpi_.comm(), wait_);
    });
    timer.compute([&] {
      compute_or_charge(compute_, mm_multiply_operations(rows_, n_),
                        [&] { multiply(rows_, n_, local_a_.data(), b_.data(), local_c_.data()); });
    });
    timer.communicate([&] {
      gatherv(local_c_.data(), MPI_DOUBLE, c_.data(), layout_, 0, mpi_.comm(), wait_);
    });
  }

  Verification verify() override {
    double verdict[2] = {0, 0};  // ok, worst ratio
    if (mpi_.rank() == 0) {
      const FreivaldsResult result = freivalds_check(n_, a_, b_, c_, seed_);
      verdict[0] = result.ok ? 1 : 0;
      verdict[1] = result.worst_ratio;
    }
    check_mpi(MPI_Bcast(verdict, 2, MPI_DOUBLE, 0, mpi_.comm()), "MPI_Bcast");
    char detail[96];
    std::snprintf(detail, sizeof detail, "Freivalds, 3 rounds: worst error %.3g of the rounding bound",
                  verdict[1]);
    return {verdict[0] == 1, detail};
  }

 private:
  const MpiSession& mpi_;
  WaitMode wait_;
  ComputeMode compute_;
  std::size_t n_;
  std::uint64_t seed_;
  Layout layout_;
  std::size_t rows_ = 0;
  Buffer<double> a_, b_, c_;  // a_ and c_ on rank 0 only
  Buffer<double> local_a_, local_c_;
};

}  // namespace
}  // namespace hetscale::kernels

int main(int argc, char** argv) {
  using namespace hetscale::kernels;
  return kernel_main(argc, argv, {"mm", [](const KernelContext& context) -> std::unique_ptr<Kernel> {
                                    return std::make_unique<MatrixMultiply>(context);
                                  }});
}
