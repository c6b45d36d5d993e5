// hetscale-lu: solves A x = b by blocked right-looking LU factorisation with partial
// pivoting (docs/kernels.md). Rows are dealt out in blocks of NB rows, the blocks in the
// weighted cyclic pattern of `ge` (block_cyclic_owners), so the owner of the diagonal
// block of a block column owns all of its NB rows. For each panel of NB columns, that
// owner gathers the panel's rows from every rank, factorises it (factor_panel: partial
// pivoting, sub-panels updated by dgemm) and scatters it back with the pivots; the row
// swaps are then applied to the rest of the rows (one message per pair of ranks that
// exchange rows); the owner solves its block row of U (dtrsm) and broadcasts it, and
// every rank updates its own rows below with one dgemm. The right-hand side travels with
// the row swaps; rank 0 gathers the factors and solves L U x = P b (the sequential
// part), then checks the scaled residual. On one rank no message is sent. Computation
// and big buffers go through common/engine.hpp (computed, or charged in the SimGrid
// build, where a charged run takes ge's pseudo-random stand-in pivots).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/collectives.hpp"
#include "common/kernel_driver.hpp"
#include "common/layout.hpp"
#include "common/row_distribution.hpp"
#include "hetscale/base/error.hpp"
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
    rows_left_ = rows_of;
    layout_ = row_layout(rows_of, stride_);
    local_ = Buffer<double>(positions_.size() * stride_, compute_);
    pivots_.resize(block_);
    if (mpi_.size() > 1) {
      u_ = Buffer<double>(block_ * n_, compute_);
      panel_part_ = Buffer<double>((positions_.size() + 1) * block_, compute_);
      panel_parts_ = Buffer<double>((n_ + static_cast<std::size_t>(mpi_.size())) * block_, compute_);
      panel_ = Buffer<double>(n_ * block_, compute_);
    }
    if (mpi_.rank() == 0) {
      original_ = Buffer<double>(n_ * stride_, compute_);
      when_computing(compute_, [&] { fill_uniform(original_, context.seed, 7); });
      factors_ = Buffer<double>(n_ * stride_, compute_);
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
  double* row_at(std::size_t position) {
    return local_.data() + static_cast<std::size_t>(local_index_[position]) * stride_;
  }
  bool mine(std::size_t position) const { return owners_[position] == mpi_.rank(); }
  bool alone() const { return mpi_.size() == 1; }
  // My rows at positions >= g: local rows first_local_[g] .. end.
  std::size_t rows_from(std::size_t g) const { return positions_.size() - first_local_[g]; }

  // Right-looking, panel by panel of NB columns.
  void factor(PhaseTimer& timer) {
    for (std::size_t k0 = 0; k0 < n_; k0 += block_) {
      panel_first_ = k0;
      panel_width_ = std::min(block_, n_ - k0);
      if (alone()) {
        factor_panel_here(timer);
      } else {
        factor_panel_on_owner(timer);
        timer.communicate([&] { apply_deferred_swaps(); });
      }
      update(timer, k0, panel_width_, n_);
      for (std::size_t g = k0; g < k0 + panel_width_; ++g) --rows_left_[static_cast<std::size_t>(owners_[g])];
    }
  }

  // One rank: the panel in place, then its row swaps on the rest of the rows.
  void factor_panel_here(PhaseTimer& timer) {
    const std::size_t k0 = panel_first_, b = panel_width_, rows = n_ - k0;
    timer.compute([&] {
      compute_or_charge(compute_, factor_ * lu_panel_operations(rows, b),
                        [&] { factor_panel(rows, b, row_at(k0) + k0, stride_, pivots_.data(), k0); });
    });
    timer.communicate([&] {
      when_computing(compute_, [&] {
        for (std::size_t j = 0; j < b; ++j) {
          if (pivots_[j] == j) continue;
          double* here = row_at(k0 + j);
          double* there = row_at(k0 + pivots_[j]);
          std::swap_ranges(here, here + k0, there);
          std::swap_ranges(here + k0 + b, here + stride_, there + k0 + b);
        }
      });
    });
  }

  // More ranks: the owner of the diagonal block gathers the panel (rows at positions
  // >= k0, its NB columns), factorises it and scatters it back with the pivots.
  void factor_panel_on_owner(PhaseTimer& timer) {
    const std::size_t k0 = panel_first_, b = panel_width_, rows = n_ - k0;
    const int diagonal = owners_[k0];
    const bool owner = diagonal == mpi_.rank();
    const auto ranks = static_cast<std::size_t>(mpi_.size());
    // Rank r's rows in the panel, and its part of the scatter: the pivots, then its rows.
    const std::vector<std::size_t>& panel_rows = rows_left_;
    const Layout gathered = row_layout(panel_rows, b);
    std::vector<std::size_t> with_pivots(ranks);
    for (std::size_t r = 0; r < ranks; ++r) with_pivots[r] = panel_rows[r] * b + b;
    const Layout scattered = row_layout(with_pivots, 1);
    const std::size_t mine_rows = rows_from(k0);
    Buffer<double>& send = panel_part_;
    Buffer<double>& all = panel_parts_;
    Buffer<double>& panel = panel_;
    timer.communicate([&] {
      when_computing(compute_, [&] {
        for (std::size_t i = 0; i < mine_rows; ++i)
          std::copy_n(local_.data() + (first_local_[k0] + i) * stride_ + k0, b, send.data() + i * b);
      });
      gatherv(send.data(), MPI_DOUBLE, all.data(), gathered, diagonal, mpi_.comm(), wait_);
      if (owner) when_computing(compute_, [&] { reorder_panel(all.data(), gathered, panel.data(), true); });
    });
    // Only the owner computes here: the others skip the phase and its two clock readings,
    // which on a thousand simulated ranks are a simulator call each.
    if (owner) {
      timer.compute([&] {
        compute_or_charge(compute_, factor_ * lu_panel_operations(rows, b),
                          [&] { factor_panel(rows, b, panel.data(), b, pivots_.data(), k0); });
      });
    }
    timer.communicate([&] {
      if (owner) {
        when_computing(compute_, [&] {
          for (std::size_t r = 0; r < ranks; ++r)
            for (std::size_t j = 0; j < b; ++j)
              all[scattered.displacements[r] + j] = static_cast<double>(pivots_[j]);
          reorder_panel(all.data(), scattered, panel.data(), false);
        });
      }
      scatterv(all.data(), scattered, MPI_DOUBLE, send.data(), diagonal, mpi_.comm(), wait_);
      // A charged run factorises nothing: ge's stand-in pivots on every rank, so that the
      // row exchanges still cost their messages.
      for (std::size_t j = 0; j < b; ++j) {
        pivots_[j] = compute_ == ComputeMode::real ? static_cast<std::size_t>(send[j])
                                                   : stand_in_pivot(seed_, n_, k0 + j) - k0;
      }
      when_computing(compute_, [&] {
        for (std::size_t i = 0; i < mine_rows; ++i)
          std::copy_n(send.data() + b + i * b, b, local_.data() + (first_local_[k0] + i) * stride_ + k0);
      });
      swaps_.clear();
      for (std::size_t j = 0; j < b; ++j)
        if (pivots_[j] != j) swaps_.emplace_back(k0 + j, k0 + pivots_[j]);
    });
  }

  // Between the owners' parts (layout, each part starting after `skip` numbers: none when
  // gathered, the pivots when scattered) and the panel in position order.
  void reorder_panel(double* parts, const Layout& layout, double* panel, bool into_panel) const {
    const std::size_t k0 = panel_first_, b = panel_width_;
    const std::size_t skip = into_panel ? 0 : b;
    std::vector<std::size_t> next(layout.displacements.size());
    for (std::size_t r = 0; r < next.size(); ++r) next[r] = layout.displacements[r] + skip;
    for (std::size_t g = k0; g < n_; ++g) {
      std::size_t& at = next[static_cast<std::size_t>(owners_[g])];
      double* row = panel + (g - k0) * b;
      if (into_panel) {
        std::copy_n(parts + at, b, row);
      } else {
        std::copy_n(row, b, parts + at);
      }
      at += b;
    }
  }

  // After a panel: the row swaps of its columns applied to the rest of the rows (columns
  // left of the panel, right of it, and the right-hand side). Their net permutation is
  // applied at once: one message per pair of ranks that exchange rows, rows in position
  // order.
  void apply_deferred_swaps() {
    std::map<std::size_t, std::size_t> origin;  // position -> where its new content was
    for (const auto& [j, p] : swaps_) {
      const std::size_t at_j = origin.contains(j) ? origin[j] : j;
      const std::size_t at_p = origin.contains(p) ? origin[p] : p;
      origin[j] = at_p;
      origin[p] = at_j;
    }
    const std::size_t k0 = panel_first_;
    const std::size_t right = k0 + panel_width_;
    const std::size_t length = stride_ - panel_width_;  // columns [0, k0) and [right, n]
    auto pack = [&](std::size_t position, double* out) {
      const double* row = row_at(position);
      std::copy_n(row, k0, out);
      std::copy_n(row + right, stride_ - right, out + k0);
    };
    auto unpack = [&](const double* in, std::size_t position) {
      double* row = row_at(position);
      std::copy_n(in, k0, row);
      std::copy_n(in + k0, stride_ - right, row + right);
    };
    // Only the ranks this one exchanges rows with, in rank order (at most 2 NB of them):
    // nothing here grows with the number of ranks.
    std::map<int, std::size_t> sent, received;
    std::vector<std::size_t> local;
    for (const auto& [q, o] : origin) {
      if (q == o) continue;
      if (mine(o) && !mine(q)) ++sent[owners_[q]];
      if (mine(q) && !mine(o)) ++received[owners_[o]];
      if (mine(q) && mine(o)) local.push_back(q);
    }
    std::map<int, Buffer<double>> out, in;
    std::vector<MPI_Request> requests;
    const int tag = static_cast<int>((k0 / block_) % kernel_tags);
    for (const auto& [r, rows] : received) {
      Buffer<double>& buffer = in[r] = Buffer<double>(rows * length, compute_);
      start_receive(buffer.data(), buffer.size(), MPI_DOUBLE, r, tag, mpi_.comm(), requests);
    }
    for (const auto& [r, rows] : sent) {
      Buffer<double>& buffer = out[r] = Buffer<double>(rows * length, compute_);
      when_computing(compute_, [&] {
        std::size_t at = 0;
        for (const auto& [q, o] : origin)
          if (q != o && mine(o) && owners_[q] == r) pack(o, buffer.data() + length * at++);
      });
      start_send(buffer.data(), buffer.size(), MPI_DOUBLE, r, tag, mpi_.comm(), requests);
    }
    when_computing(compute_, [&] {  // local moves: all sources read before any is written
      std::vector<double> moved(local.size() * length);
      for (std::size_t i = 0; i < local.size(); ++i) pack(origin[local[i]], moved.data() + i * length);
      for (std::size_t i = 0; i < local.size(); ++i) unpack(moved.data() + i * length, local[i]);
    });
    complete_all(requests, wait_, "MPI_Isend/MPI_Irecv");
    when_computing(compute_, [&] {
      std::map<int, std::size_t> next;
      for (const auto& [q, o] : origin) {
        if (q == o || !mine(q) || mine(o)) continue;
        const int r = owners_[o];
        unpack(in[r].data() + length * next[r]++, q);
      }
    });
  }

  // After columns [s, s + w) are factorised: the block row of U in columns [s + w, end)
  // (the owner of rows s .. s + w - 1 solves it and broadcasts it), then every rank's
  // rows below by one dgemm.
  void update(PhaseTimer& timer, std::size_t s, std::size_t w, std::size_t end) {
    const std::size_t c = s + w;
    const std::size_t cols = end - c;
    if (cols == 0) return;
    const int diagonal = owners_[s];
    if (diagonal == mpi_.rank()) {
      timer.compute([&] {
        compute_or_charge(compute_, factor_ * lu_triangular_operations(w, cols),
                          [&] { solve_unit_lower(w, cols, row_at(s) + s, stride_, row_at(s) + c, stride_); });
      });
    }
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
        broadcast(u_.data(), w * cols, MPI_DOUBLE, diagonal, mpi_.comm(), wait_);
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
        pack_rows_by_owner(original_.data(), stride_, std::span(owners_).first(n_), layout_, packed.data());
      });
    }
    scatterv(packed.data(), layout_, MPI_DOUBLE, local_.data(), 0, mpi_.comm(), wait_);
  }

  // Rank 0 gathers every rank's rows of the factors and puts them back in position order.
  void collect() {
    if (alone()) {
      when_computing(compute_, [&] { std::copy_n(local_.data(), local_.size(), factors_.data()); });
      return;
    }
    Buffer<double> packed(mpi_.rank() == 0 ? n_ * stride_ : 0, compute_);
    gatherv(local_.data(), MPI_DOUBLE, packed.data(), layout_, 0, mpi_.comm(), wait_);
    if (mpi_.rank() != 0) return;
    when_computing(compute_, [&] {
      unpack_rows_by_owner(packed.data(), stride_, std::span(owners_).first(n_), layout_, factors_.data());
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
  std::vector<std::size_t> rows_left_;    // rank -> its rows at positions >= the panel's first
  Layout layout_;
  Buffer<double> local_;
  // More than one rank: a block row of U as broadcast; my part of a panel (with the
  // pivots when scattered), all parts and the panel itself on the diagonal block's owner.
  Buffer<double> u_, panel_part_, panel_parts_, panel_;
  std::vector<std::size_t> pivots_;  // of the panel, relative to its first row
  std::size_t panel_first_ = 0, panel_width_ = 0;  // the panel being factorised
  std::vector<std::pair<std::size_t, std::size_t>> swaps_;  // its row swaps, in order
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
