// hetscale-lu: solves A x = b by blocked right-looking LU factorisation with partial
// pivoting (docs/kernels.md). Rows are dealt out in blocks of NB rows, the blocks in the
// weighted cyclic pattern of `ge` (block_cyclic_owners), so the owner of the diagonal
// block of a block column owns all of its NB rows. A panel of NB columns is factorised
// in sub-panels of lu_inner_block columns; each column step finds the pivot by an
// allreduce (max-loc), swaps the whole rows at pivot and diagonal positions (a message
// when two ranks own them), broadcasts the pivot row's part in the sub-panel and
// eliminates below it. After each sub-panel and each panel, the diagonal block's owner
// solves its block row of U (dtrsm) and broadcasts it, and every rank updates its own
// rows below with one dgemm. The right-hand side travels with the row swaps; rank 0
// gathers the factors and solves L U x = P b (the sequential part), then checks the
// scaled residual. On one rank no message is sent. Computation and big buffers go
// through common/engine.hpp (computed, or charged in the SimGrid build, where a charged
// run takes ge's pseudo-random stand-in pivot).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/collectives.hpp"
#include "common/kernel_driver.hpp"
#include "common/layout.hpp"
#include "hetscale/error.hpp"
#include "hetscale/row_distribution.hpp"
#include "serial/blas.hpp"
#include "serial/elimination.hpp"
#include "serial/lu.hpp"
#include "serial/operation_counts.hpp"
#include "serial/random_fill.hpp"

namespace hetscale::kernels {
namespace {

struct PivotCandidate {  // layout of MPI_DOUBLE_INT
  double magnitude;
  int position;
};

class BlockedLu final : public Kernel {
 public:
  explicit BlockedLu(const KernelContext& context)
      : mpi_(context.mpi),
        wait_(context.wait),
        compute_(context.compute),
        n_(context.n),
        stride_(context.n + 1),
        seed_(context.seed),
        factor_(declared_work_factor("lu", context.n)),
        block_(lu_block_size(context.n, static_cast<std::size_t>(context.mpi.size()))),
        owners_(block_cyclic_owners(context.n, block_, context.weights)),
        local_index_(context.n, -1),
        first_local_(context.n + 1, 0) {
    std::vector<std::size_t> rows_of(static_cast<std::size_t>(mpi_.size()), 0);
    for (std::size_t g = 0; g < n_; ++g) {
      first_local_[g] = positions_.size();
      if (owners_[g] == mpi_.rank()) {
        local_index_[g] = static_cast<long>(positions_.size());
        positions_.push_back(g);
      }
      ++rows_of[static_cast<std::size_t>(owners_[g])];
    }
    first_local_[n_] = positions_.size();
    layout_ = int_layout(rows_of, stride_);
    local_ = Buffer<double>(positions_.size() * stride_, compute_);
    swap_ = Buffer<double>(stride_, compute_);
    pivot_.resize(std::max(block_, lu_inner_block));
    if (mpi_.size() > 1) u_ = Buffer<double>(block_ * n_, compute_);
    if (mpi_.rank() == 0) {
      original_ = Buffer<double>(n_ * stride_, compute_);
      when_computing(compute_, [&] { fill_uniform(original_, context.seed, 7); });
      factors_ = Buffer<double>(n_ * stride_, compute_);
    }
  }

  void run(PhaseTimer& timer) override {
    timer.communicate([&] { distribute(); });
    factor(timer, 0, n_, 0);
    timer.communicate([&] { collect(); });
    timer.compute([&] {
      if (mpi_.rank() == 0) {
        compute_or_charge(compute_, factor_ * lu_solve_operations(n_),
                          [&] { x_ = solve_with_factors(n_, factors_); });
      }
    });
  }

  Verification verify() override {
    double residual = 0;
    if (mpi_.rank() == 0) residual = scaled_residual(n_, original_, x_);
    check_mpi(MPI_Bcast(&residual, 1, MPI_DOUBLE, 0, mpi_.comm()), "MPI_Bcast");
    char detail[96];
    const bool ok = residual < residual_bound;  // NaN fails
    std::snprintf(detail, sizeof detail, "scaled residual %.3g %s %.0f", residual, ok ? "<" : ">=",
                  residual_bound);
    return {ok, detail};
  }

 private:
  double* row_at(std::size_t position) {
    return local_.data() + static_cast<std::size_t>(local_index_[position]) * stride_;
  }
  bool mine(std::size_t position) const { return owners_[position] == mpi_.rank(); }
  bool alone() const { return mpi_.size() == 1; }
  // My rows at positions >= g: local rows first_local_[g] .. end.
  std::size_t rows_from(std::size_t g) const { return positions_.size() - first_local_[g]; }

  // Factorises columns [c0, c0 + width) on the rows at positions >= c0, in blocks of
  // widths[level] columns (NB, then lu_inner_block, then single columns).
  void factor(PhaseTimer& timer, std::size_t c0, std::size_t width, std::size_t level) {
    const std::size_t widths[2] = {block_, lu_inner_block};
    if (level == 2) {
      for (std::size_t j = c0; j < c0 + width; ++j) column_step(timer, j, c0 + width);
      return;
    }
    for (std::size_t s = c0; s < c0 + width; s += widths[level]) {
      const std::size_t w = std::min(widths[level], c0 + width - s);
      factor(timer, s, w, level + 1);
      update(timer, s, w, c0 + width);
    }
  }

  // Column j of a sub-panel ending at column `end`: pivot, row swap, elimination below.
  void column_step(PhaseTimer& timer, std::size_t j, std::size_t end) {
    const std::size_t first = first_local_[j];
    // A charged run searches nothing (comparisons are not counted): its stand-in pivot.
    PivotCandidate candidate = compute_ == ComputeMode::real
                                   ? PivotCandidate{-1.0, static_cast<int>(n_)}
                                   : PivotCandidate{1.0, static_cast<int>(stand_in_pivot(seed_, n_, j))};
    timer.compute([&] {
      compute_or_charge(compute_, 0, [&] {
        const double* column = local_.data() + j;
        for (std::size_t l = first; l < positions_.size(); ++l) {
          const double magnitude = std::abs(column[l * stride_]);
          if (magnitude > candidate.magnitude) candidate = {magnitude, static_cast<int>(positions_[l])};
        }
      });
    });
    PivotCandidate pivot = candidate;
    const std::size_t length = end - j;
    timer.communicate([&] {
      if (!alone()) allreduce(&candidate, &pivot, 1, MPI_DOUBLE_INT, MPI_MAXLOC, mpi_.comm(), wait_);
      if (!(pivot.magnitude > 0)) throw Error("the matrix is singular (column " + std::to_string(j) + ")");
      swap_rows(j, static_cast<std::size_t>(pivot.position));
      if (!alone()) {
        if (mine(j)) when_computing(compute_, [&] { std::copy_n(row_at(j) + j, length, pivot_.data()); });
        broadcast(pivot_.data(), static_cast<int>(length), MPI_DOUBLE, owners_[j], mpi_.comm(), wait_);
      }
    });
    const std::size_t below = rows_from(j + 1);
    timer.compute([&] {
      compute_or_charge(compute_, factor_ * lu_column_operations(below, length), [&] {
        const double* pivot_row = alone() ? row_at(j) + j : pivot_.data();
        for (std::size_t l = first_local_[j + 1]; l < positions_.size(); ++l)
          eliminate_keeping_multiplier(local_.data() + l * stride_ + j, pivot_row, length);
      });
    });
  }

  // Exchanges the whole rows (coefficients and right-hand side) at positions k and p.
  void swap_rows(std::size_t k, std::size_t p) {
    if (p == k) return;
    if (mine(k) && mine(p)) {
      when_computing(compute_, [&] { std::swap_ranges(row_at(k), row_at(k) + stride_, row_at(p)); });
      return;
    }
    if (!mine(k) && !mine(p)) return;
    const std::size_t here = mine(k) ? k : p;
    const int other = owners_[mine(k) ? p : k];
    const int len = static_cast<int>(stride_);
    const int tag = static_cast<int>(k % 32768);
    when_computing(compute_, [&] { std::copy_n(row_at(here), stride_, swap_.data()); });
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    check_mpi(MPI_Irecv(row_at(here), len, MPI_DOUBLE, other, tag, mpi_.comm(), &requests[0]), "MPI_Irecv");
    check_mpi(MPI_Isend(swap_.data(), len, MPI_DOUBLE, other, tag, mpi_.comm(), &requests[1]), "MPI_Isend");
    complete(requests[1], wait_, "MPI_Isend");
    complete(requests[0], wait_, "MPI_Irecv");
  }

  // After columns [s, s + w) are factorised: the block row of U in columns [s + w, end)
  // (the owner of rows s .. s + w - 1 solves it and broadcasts it), then every rank's
  // rows below by one dgemm.
  void update(PhaseTimer& timer, std::size_t s, std::size_t w, std::size_t end) {
    const std::size_t c = s + w;
    const std::size_t cols = end - c;
    if (cols == 0) return;
    const int diagonal = owners_[s];
    timer.compute([&] {
      if (diagonal != mpi_.rank()) return;
      compute_or_charge(compute_, factor_ * lu_triangular_operations(w, cols),
                        [&] { solve_unit_lower(w, cols, row_at(s) + s, stride_, row_at(s) + c, stride_); });
    });
    const double* u = nullptr;
    std::size_t ldu = 0;
    if (alone()) {
      u = row_at(s) + c;
      ldu = stride_;
    } else {
      timer.communicate([&] {
        if (diagonal == mpi_.rank()) {
          when_computing(compute_, [&] {
            for (std::size_t i = 0; i < w; ++i) std::copy_n(row_at(s + i) + c, cols, u_.data() + i * cols);
          });
        }
        broadcast(u_.data(), static_cast<int>(w * cols), MPI_DOUBLE, diagonal, mpi_.comm(), wait_);
      });
      u = u_.data();
      ldu = cols;
    }
    const std::size_t first = first_local_[c];
    const std::size_t rows = positions_.size() - first;
    timer.compute([&] {
      compute_or_charge(compute_, factor_ * lu_update_operations(rows, w, cols), [&] {
        double* block = local_.data() + first * stride_;
        multiply_subtract(rows, cols, w, block + s, stride_, u, ldu, block + c, stride_);
      });
    });
  }

  // Rank 0 packs the rows owner by owner and scatters them.
  void distribute() {
    if (alone()) {
      when_computing(compute_, [&] { std::copy_n(original_.data(), original_.size(), local_.data()); });
      return;
    }
    Buffer<double> packed;
    if (mpi_.rank() == 0) {
      packed = Buffer<double>(n_ * stride_, compute_);
      when_computing(compute_, [&] {
        std::vector<std::size_t> next(layout_.displacements.begin(), layout_.displacements.end());
        for (std::size_t g = 0; g < n_; ++g) {
          auto& at = next[static_cast<std::size_t>(owners_[g])];
          std::copy_n(original_.data() + g * stride_, stride_, packed.data() + at);
          at += stride_;
        }
      });
    }
    scatterv(packed.data(), layout_.counts.data(), layout_.displacements.data(), MPI_DOUBLE, local_.data(),
             static_cast<int>(local_.size()), 0, mpi_.comm(), wait_);
  }

  // Rank 0 gathers every rank's rows of the factors and puts them back in position order.
  void collect() {
    if (alone()) {
      when_computing(compute_, [&] { std::copy_n(local_.data(), local_.size(), factors_.data()); });
      return;
    }
    Buffer<double> packed(mpi_.rank() == 0 ? n_ * stride_ : 0, compute_);
    gatherv(local_.data(), static_cast<int>(local_.size()), MPI_DOUBLE, packed.data(), layout_.counts.data(),
            layout_.displacements.data(), 0, mpi_.comm(), wait_);
    if (mpi_.rank() != 0) return;
    when_computing(compute_, [&] {
      std::vector<std::size_t> next(layout_.displacements.begin(), layout_.displacements.end());
      for (std::size_t g = 0; g < n_; ++g) {
        auto& at = next[static_cast<std::size_t>(owners_[g])];
        std::copy_n(packed.data() + at, stride_, factors_.data() + g * stride_);
        at += stride_;
      }
    });
  }

  const MpiSession& mpi_;
  WaitMode wait_;
  ComputeMode compute_;
  std::size_t n_;
  std::size_t stride_;  // n coefficients + right-hand side
  std::uint64_t seed_;
  double factor_;  // declared-work factor of the charges (serial/operation_counts.hpp)
  std::size_t block_;  // NB
  std::vector<int> owners_;
  std::vector<long> local_index_;         // position -> local row, -1 when not mine
  std::vector<std::size_t> first_local_;  // position g -> my first local row at a position >= g
  std::vector<std::size_t> positions_;    // my positions, ascending
  IntLayout layout_;
  Buffer<double> local_, swap_;
  Buffer<double> u_;           // a block row of U as broadcast (more than one rank)
  std::vector<double> pivot_;  // the pivot row's part in a sub-panel (more than one rank)
  Buffer<double> original_, factors_;  // rank 0 only
  std::vector<double> x_;              // rank 0 only
};

}  // namespace
}  // namespace hetscale::kernels

int main(int argc, char** argv) {
  using namespace hetscale::kernels;
  return kernel_main(argc, argv, {"lu", [](const KernelContext& context) -> std::unique_ptr<Kernel> {
                                    return std::make_unique<BlockedLu>(context);
                                  }});
}
