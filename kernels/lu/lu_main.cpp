// hetscale-lu: solves A x = b by blocked right-looking LU factorisation with partial
// pivoting (docs/kernels.md). Columns are dealt out in blocks of NB columns, the blocks in
// the weighted cyclic pattern of `ge`'s rows (cyclic_owners), and every rank holds
// all N rows of its columns. For each panel of NB columns, its owner factorises it
// (factor_panel: partial pivoting, sub-panels updated by dgemm) and broadcasts its rows
// below the diagonal with the pivots: the panel's one message tree. Every rank then swaps
// the rows of its own columns, solves its part of the block row of U (dtrsm) and updates
// its columns right of the panel with one dgemm. Rank 0 holds the right-hand side, swapped
// as the rows are, gathers the factors and solves L U x = P b (the sequential part), then
// checks the scaled residual. On one rank no message is sent. Computation and big buffers
// go through common/engine.hpp (computed, or charged in the SimGrid build, where a
// charged run swaps nothing: the row swaps are local and send no message).
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "common/collectives.hpp"
#include "common/kernel_driver.hpp"
#include "common/layout.hpp"
#include "common/row_distribution.hpp"
#include "serial/blas.hpp"
#include "serial/elimination.hpp"
#include "serial/lu.hpp"
#include "serial/operation_counts.hpp"
#include "serial/random_fill.hpp"

namespace hetscale::kernels {
namespace {

class BlockedLu final : public Kernel {
 public:
  explicit BlockedLu(const KernelContext& context)
      : mpi_(context.mpi),
        wait_(context.wait),
        compute_(context.compute),
        n_(context.n),
        factor_(declared_work_factor("lu", context.n)),
        block_(lu_block_size(context.n, static_cast<std::size_t>(context.mpi.size()))),
        block_owners_(shared_cyclic_owners((context.n + block_ - 1) / block_, context.weights)),
        first_local_(block_owners_->size() + 1, 0) {
    std::vector<std::size_t> columns_of(static_cast<std::size_t>(mpi_.size()), 0);
    for (std::size_t k = 0; k < block_owners_->size(); ++k) {
      const std::size_t columns = std::min(block_, n_ - k * block_);
      const int rank = (*block_owners_)[k];
      first_local_[k] = width_;
      if (rank == mpi_.rank()) width_ += columns;
      columns_of[static_cast<std::size_t>(rank)] += columns;
    }
    first_local_.back() = width_;
    layout_ = row_layout(columns_of, n_);
    local_ = Buffer<double>(n_ * width_, compute_);
    pivots_.resize(block_);
    if (mpi_.size() > 1) panel_ = Buffer<double>(n_ * block_ + block_, compute_);
    if (mpi_.rank() == 0) {
      original_ = Buffer<double>(computed_items(n_ * (n_ + 1), compute_), compute_);
      when_computing(compute_, [&] {
        fill_uniform(original_, context.seed, 7);
        rhs_.resize(n_);
      });
      factors_ = Buffer<double>(computed_items(n_ * (n_ + 1), compute_), compute_);
    }
  }

  void run(PhaseTimer& timer) override {
    timer.communicate([&] { distribute(); });
    factor(timer);
    timer.communicate([&] { collect(); });
    timer.compute([&] {
      if (mpi_.rank() == 0) {
        compute_or_charge(compute_, factor_ * lu_solve_operations(n_),
                          [&] { x_ = solve_with_factors(n_, factors_); });
      }
    });
  }

  Verification verify() override {
    return residual_verdict(mpi_, mpi_.rank() == 0 ? scaled_residual(n_, original_, x_) : 0.0);
  }

 private:
  bool alone() const { return mpi_.size() == 1; }
  // Row i of my columns, from my first column at a position >= g.
  double* at(std::size_t i, std::size_t g) { return local_.data() + i * width_ + first_local(g); }
  int owner(std::size_t g) const { return (*block_owners_)[g / block_]; }
  // My first local column at a position >= g, g the first column of a block or n.
  std::size_t first_local(std::size_t g) const { return first_local_[(g + block_ - 1) / block_]; }

  // Right-looking, panel by panel of NB columns.
  void factor(PhaseTimer& timer) {
    for (std::size_t k0 = 0; k0 < n_; k0 += block_) {
      const std::size_t b = std::min(block_, n_ - k0), rows = n_ - k0;
      const int diagonal = owner(k0);
      const bool mine = diagonal == mpi_.rank();
      // Only the owner factorises: the others skip the phase and its two clock readings,
      // which on a thousand simulated ranks are a simulator call each.
      if (mine) {
        timer.compute([&] {
          compute_or_charge(compute_, factor_ * lu_panel_operations(rows, b),
                            [&] { factor_panel(rows, b, at(k0, k0), width_, pivots_.data(), k0); });
        });
      }
      if (alone()) {
        update(timer, k0, b, at(k0, k0), width_);
      } else {
        timer.communicate([&] { broadcast_panel(k0, b, diagonal); });
        update(timer, k0, b, panel_.data(), b);
      }
    }
  }

  // The owner's panel (its rows from k0, NB columns) and then its pivots, to every rank.
  void broadcast_panel(std::size_t k0, std::size_t b, int diagonal) {
    const std::size_t rows = n_ - k0;
    if (diagonal == mpi_.rank()) {
      when_computing(compute_, [&] {
        for (std::size_t i = 0; i < rows; ++i) std::copy_n(at(k0 + i, k0), b, panel_.data() + i * b);
        for (std::size_t j = 0; j < b; ++j) panel_[rows * b + j] = static_cast<double>(pivots_[j]);
      });
    }
    broadcast(panel_.data(), rows * b + b, MPI_DOUBLE, diagonal, mpi_.comm(), wait_);
    when_computing(compute_, [&] {
      for (std::size_t j = 0; j < b; ++j) pivots_[j] = static_cast<std::size_t>(panel_[rows * b + j]);
    });
  }

  // After the panel of columns [k0, k0 + b): its row swaps on my other columns (and on the
  // right-hand side), then my part of its block row of U and my columns right of it.
  void update(PhaseTimer& timer, std::size_t k0, std::size_t b, const double* l, std::size_t ldl) {
    const std::size_t c = k0 + b, rows = n_ - c;
    const std::size_t cols = width_ - first_local(c);
    // A charged run swaps nothing; a rank with no column right of the panel has no more.
    if (cols == 0 && compute_ != ComputeMode::real) return;
    timer.compute([&] {
      when_computing(compute_, [&] { swap_rows(k0, b); });
      compute_or_charge(compute_, factor_ * (lu_triangular_operations(b, cols) + lu_update_operations(rows, b, cols)),
                        [&] {
                          solve_unit_lower(b, cols, l, ldl, at(k0, c), width_);
                          multiply_subtract(rows, cols, b, l + b * ldl, ldl, at(k0, c), width_, at(c, c), width_);
                        });
    });
  }

  // The panel's pivots, in order, on my columns outside the panel and on the right-hand side.
  void swap_rows(std::size_t k0, std::size_t b) {
    const std::size_t left = first_local(k0), right = first_local(k0 + b);
    for (std::size_t j = 0; j < b; ++j) {
      const std::size_t p = pivots_[j];
      if (p == j) continue;
      double* here = local_.data() + (k0 + j) * width_;
      double* there = local_.data() + (k0 + p) * width_;
      std::swap_ranges(here, here + left, there);
      std::swap_ranges(here + right, here + width_, there + right);
      if (!rhs_.empty()) std::swap(rhs_[k0 + j], rhs_[k0 + p]);
    }
  }

  // Between the augmented rows (stride n + 1) and the owners' blocks, each block its n
  // rows of the owner's columns; the last column is the right-hand side, kept on rank 0.
  void pack_columns(const double* augmented, double* packed) {
    std::vector<std::size_t> next = layout_.displacements;
    for (std::size_t i = 0; i < n_; ++i)
      for (std::size_t g = 0; g < n_; ++g)
        packed[next[static_cast<std::size_t>(owner(g))]++] = augmented[i * (n_ + 1) + g];
    for (std::size_t i = 0; i < n_; ++i) rhs_[i] = augmented[i * (n_ + 1) + n_];
  }
  void unpack_columns(const double* packed, double* augmented) {
    std::vector<std::size_t> next = layout_.displacements;
    for (std::size_t i = 0; i < n_; ++i)
      for (std::size_t g = 0; g < n_; ++g)
        augmented[i * (n_ + 1) + g] = packed[next[static_cast<std::size_t>(owner(g))]++];
    for (std::size_t i = 0; i < n_; ++i) augmented[i * (n_ + 1) + n_] = rhs_[i];
  }

  // Rank 0 packs the columns owner by owner and scatters them.
  void distribute() {
    if (alone()) {
      when_computing(compute_, [&] { pack_columns(original_.data(), local_.data()); });
      return;
    }
    Buffer<double> packed;
    if (mpi_.rank() == 0) {
      packed = Buffer<double>(root_items(layout_, compute_), compute_);
      when_computing(compute_, [&] { pack_columns(original_.data(), packed.data()); });
    }
    scatterv(packed.data(), layout_, MPI_DOUBLE, local_.data(), 0, mpi_.comm(), wait_);
  }

  // Rank 0 gathers every rank's columns of the factors and puts them back in place.
  void collect() {
    if (alone()) {
      when_computing(compute_, [&] { unpack_columns(local_.data(), factors_.data()); });
      return;
    }
    Buffer<double> packed(mpi_.rank() == 0 ? root_items(layout_, compute_) : 0, compute_);
    gatherv(local_.data(), MPI_DOUBLE, packed.data(), layout_, 0, mpi_.comm(), wait_);
    if (mpi_.rank() != 0) return;
    when_computing(compute_, [&] { unpack_columns(packed.data(), factors_.data()); });
  }

  const MpiSession& mpi_;
  WaitMode wait_;
  ComputeMode compute_;
  std::size_t n_;
  double factor_;  // declared-work factor of the charges (serial/operation_counts.hpp)
  std::size_t block_;  // NB
  // Per block of NB columns (N / NB of them, not N: on a thousand simulated ranks in one
  // process, per-column maps at N = 500,000 were 6 GB).
  std::shared_ptr<const std::vector<int>> block_owners_;  // block -> its rank, shared by all ranks
  std::vector<std::size_t> first_local_;  // block k -> my first local column in block k or after
  std::size_t width_ = 0;                 // my columns: local_ is n rows of them
  Layout layout_;                         // rank -> its n rows of columns, for the scatter and gather
  Buffer<double> local_;
  // More than one rank: the panel as broadcast, its rows from the diagonal then the pivots.
  Buffer<double> panel_;
  std::vector<std::size_t> pivots_;  // of the panel, relative to its first row
  Buffer<double> original_, factors_;  // rank 0 only
  std::vector<double> rhs_;            // rank 0, computing: the right-hand side, swapped as the rows
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
