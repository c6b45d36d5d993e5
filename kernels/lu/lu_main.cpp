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
#include <map>
#include <memory>
#include <string>
#include <utility>
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
    if (mpi_.size() > 1) {
      pivot_send_.resize(2 + 2 * block_);
      pivot_.resize(2 + 2 * block_);
      check_mpi(MPI_Type_contiguous(static_cast<int>(pivot_.size()), MPI_DOUBLE, &pivot_type_),
                "MPI_Type_contiguous");
      check_mpi(MPI_Type_commit(&pivot_type_), "MPI_Type_commit");
      check_mpi(MPI_Op_create(&pick_pivot, 1, &pivot_op_), "MPI_Op_create");
    }
    if (mpi_.size() > 1) u_ = Buffer<double>(block_ * n_, compute_);
    if (mpi_.rank() == 0) {
      original_ = Buffer<double>(n_ * stride_, compute_);
      when_computing(compute_, [&] { fill_uniform(original_, context.seed, 7); });
      factors_ = Buffer<double>(n_ * stride_, compute_);
    }
  }

  BlockedLu(const BlockedLu&) = delete;
  BlockedLu& operator=(const BlockedLu&) = delete;
  ~BlockedLu() override {
    if (pivot_op_ != MPI_OP_NULL) MPI_Op_free(&pivot_op_);
    if (pivot_type_ != MPI_DATATYPE_NULL) MPI_Type_free(&pivot_type_);
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
      if (level == 0) {
        panel_first_ = s;
        panel_width_ = w;
        swaps_.clear();
      }
      factor(timer, s, w, level + 1);
      if (level == 0 && !alone()) timer.communicate([&] { apply_deferred_swaps(); });
      update(timer, s, w, c0 + width);
    }
  }

  // Column j of a sub-panel ending at column `end`: pivot, row swap, elimination below.
  // On more than one rank, one allreduce (pivot_op_) finds the pivot and brings every
  // rank the pivot row's and row j's parts in the panel; the rest of the two rows are
  // exchanged after the panel (apply_deferred_swaps).
  void column_step(PhaseTimer& timer, std::size_t j, std::size_t end) {
    const std::size_t first = first_local_[j];
    const std::size_t k0 = panel_first_;
    const std::size_t b = panel_width_;
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
    const std::size_t length = end - j;
    const double* pivot_row = nullptr;  // the pivot row from column j on
    timer.communicate([&] {
      if (alone()) {
        check_pivot(candidate.magnitude, j);
        swap_rows(j, static_cast<std::size_t>(candidate.position));
        pivot_row = row_at(j) + j;
        return;
      }
      // [magnitude, position, pivot row in the panel, row j in the panel (its owner's)]
      double* mine_out = pivot_send_.data();
      std::fill(pivot_send_.begin(), pivot_send_.end(), 0.0);
      mine_out[0] = candidate.magnitude;
      mine_out[1] = static_cast<double>(candidate.position);
      when_computing(compute_, [&] {
        if (candidate.position < static_cast<int>(n_) && mine(static_cast<std::size_t>(candidate.position)))
          std::copy_n(row_at(static_cast<std::size_t>(candidate.position)) + k0, b, mine_out + 2);
        if (mine(j)) std::copy_n(row_at(j) + k0, b, mine_out + 2 + block_);
      });
      allreduce(pivot_send_.data(), pivot_.data(), 1, pivot_type_, pivot_op_, mpi_.comm(), wait_);
      check_pivot(pivot_[0], j);
      const auto p = static_cast<std::size_t>(pivot_[1]);
      if (p != j) {
        when_computing(compute_, [&] {
          if (mine(j)) std::copy_n(pivot_.data() + 2, b, row_at(j) + k0);
          if (mine(p)) std::copy_n(pivot_.data() + 2 + block_, b, row_at(p) + k0);
        });
        swaps_.emplace_back(j, p);
      }
      pivot_row = pivot_.data() + 2 + (j - k0);
    });
    const std::size_t below = rows_from(j + 1);
    timer.compute([&] {
      compute_or_charge(compute_, factor_ * lu_column_operations(below, length), [&] {
        for (std::size_t l = first_local_[j + 1]; l < positions_.size(); ++l)
          eliminate_keeping_multiplier(local_.data() + l * stride_ + j, pivot_row, length);
      });
    });
  }

  void check_pivot(double magnitude, std::size_t j) const {
    if (!(magnitude > 0)) throw Error("the matrix is singular (column " + std::to_string(j) + ")");
  }

  // The reduction of the pivot search: the candidate of larger magnitude (lower position
  // on ties) with its row; the parts of row j add up (only its owner's are not zero).
  static void pick_pivot(void* in, void* inout, int* count, MPI_Datatype* type) {
    int bytes = 0;
    MPI_Type_size(*type, &bytes);
    const auto doubles = static_cast<std::size_t>(bytes) / sizeof(double);
    const std::size_t width = (doubles - 2) / 2;
    for (int e = 0; e < *count; ++e) {
      const double* a = static_cast<const double*>(in) + static_cast<std::size_t>(e) * doubles;
      double* r = static_cast<double*>(inout) + static_cast<std::size_t>(e) * doubles;
      if (a[0] > r[0] || (a[0] == r[0] && a[1] < r[1])) std::copy_n(a, 2 + width, r);
      for (std::size_t i = 2 + width; i < doubles; ++i) r[i] += a[i];
    }
  }

  // Exchanges the whole rows (coefficients and right-hand side) at positions k and p on
  // one rank.
  void swap_rows(std::size_t k, std::size_t p) {
    if (p == k) return;
    when_computing(compute_, [&] { std::swap_ranges(row_at(k), row_at(k) + stride_, row_at(p)); });
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
    const auto ranks = static_cast<std::size_t>(mpi_.size());
    std::vector<std::size_t> sent(ranks, 0), received(ranks, 0), local = {};
    for (const auto& [q, o] : origin) {
      if (q == o) continue;
      if (mine(o) && !mine(q)) ++sent[static_cast<std::size_t>(owners_[q])];
      if (mine(q) && !mine(o)) ++received[static_cast<std::size_t>(owners_[o])];
      if (mine(q) && mine(o)) local.push_back(q);
    }
    std::vector<Buffer<double>> out(ranks), in(ranks);
    std::vector<MPI_Request> requests;
    const int tag = static_cast<int>((k0 / block_) % 32768);
    for (std::size_t r = 0; r < ranks; ++r) {
      if (received[r] > 0) {
        in[r] = Buffer<double>(received[r] * length, compute_);
        requests.push_back(MPI_REQUEST_NULL);
        check_mpi(MPI_Irecv(in[r].data(), static_cast<int>(in[r].size()), MPI_DOUBLE, static_cast<int>(r), tag,
                            mpi_.comm(), &requests.back()),
                  "MPI_Irecv");
      }
    }
    for (std::size_t r = 0; r < ranks; ++r) {
      if (sent[r] == 0) continue;
      out[r] = Buffer<double>(sent[r] * length, compute_);
      when_computing(compute_, [&] {
        std::size_t at = 0;
        for (const auto& [q, o] : origin)
          if (q != o && mine(o) && static_cast<std::size_t>(owners_[q]) == r) pack(o, out[r].data() + length * at++);
      });
      requests.push_back(MPI_REQUEST_NULL);
      check_mpi(MPI_Isend(out[r].data(), static_cast<int>(out[r].size()), MPI_DOUBLE, static_cast<int>(r), tag,
                          mpi_.comm(), &requests.back()),
                "MPI_Isend");
    }
    when_computing(compute_, [&] {  // local moves: all sources read before any is written
      std::vector<double> moved(local.size() * length);
      for (std::size_t i = 0; i < local.size(); ++i) pack(origin[local[i]], moved.data() + i * length);
      for (std::size_t i = 0; i < local.size(); ++i) unpack(moved.data() + i * length, local[i]);
    });
    for (MPI_Request& request : requests) complete(request, wait_, "MPI_Isend/MPI_Irecv");
    when_computing(compute_, [&] {
      std::vector<std::size_t> next(ranks, 0);
      for (const auto& [q, o] : origin) {
        if (q == o || !mine(q) || mine(o)) continue;
        const auto r = static_cast<std::size_t>(owners_[o]);
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
  Buffer<double> local_;
  Buffer<double> u_;           // a block row of U as broadcast (more than one rank)
  // More than one rank: the pivot search's reduction, [magnitude, position, pivot row's
  // and row j's parts in the panel], of type pivot_type_ (one element: never split).
  std::vector<double> pivot_send_, pivot_;
  MPI_Datatype pivot_type_ = MPI_DATATYPE_NULL;
  MPI_Op pivot_op_ = MPI_OP_NULL;
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
