// hetscale-ge: solves A x = b by Gaussian elimination with partial pivoting
// (docs/science.md section 1). Rows are dealt out by the weighted row-cyclic owner map; for
// each column the pivot is found by an allreduce (max-loc), its owner broadcasts the
// pivot row, the rows at pivot and pivot-row positions are swapped (a message when two
// ranks own them), and every rank eliminates its rows below. Rank 0 gathers the upper
// triangle, back-substitutes (the sequential part) and checks the scaled residual.
// Computation and big buffers go through common/engine.hpp (computed, or charged in the
// SimGrid build, where a charged run takes a pseudo-random pivot row below the diagonal
// in place of the search, so that the row exchanges still cost their messages).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "common/collectives.hpp"
#include "common/kernel_driver.hpp"
#include "common/layout.hpp"
#include "common/row_distribution.hpp"
#include "hetscale/base/error.hpp"
#include "serial/elimination.hpp"
#include "serial/operation_counts.hpp"
#include "serial/random_fill.hpp"

namespace hetscale::kernels {
namespace {

struct PivotCandidate {  // layout of MPI_DOUBLE_INT
  double magnitude;
  int position;
};

class GaussianElimination final : public Kernel {
 public:
  explicit GaussianElimination(const KernelContext& context)
      : mpi_(context.mpi),
        wait_(context.wait),
        compute_(context.compute),
        n_(context.n),
        stride_(context.n + 1),
        seed_(context.seed),
        factor_(declared_work_factor("ge", context.n)),
        owners_(shared_cyclic_owners(context.n, context.weights)),
        local_index_(context.n, -1) {
    std::vector<std::size_t> rows_of(static_cast<std::size_t>(mpi_.size()), 0);
    for (std::size_t g = 0; g < n_; ++g) {
      const auto owner = static_cast<std::size_t>((*owners_)[g]);
      if ((*owners_)[g] == mpi_.rank()) {
        local_index_[g] = static_cast<long>(positions_.size());
        positions_.push_back(g);
      }
      ++rows_of[owner];
    }
    layout_ = row_layout(rows_of, stride_);
    local_ = Buffer<double>(positions_.size() * stride_, compute_);
    pivot_.resize(stride_);
    if (mpi_.rank() == 0) {
      original_ = Buffer<double>(computed_items(n_ * stride_, compute_), compute_);
      when_computing(compute_, [&] { fill_uniform(original_, context.seed, 3); });
      upper_ = Buffer<double>(computed_items(n_ * stride_, compute_), compute_);
    }
  }

  void run(PhaseTimer& timer) override {
    timer.communicate([&] { distribute(); });
    for (std::size_t k = 0; k < n_; ++k) step(timer, k);
    timer.communicate([&] { collect(); });
    timer.compute([&] {
      if (mpi_.rank() == 0) {
        compute_or_charge(compute_, factor_ * ge_back_substitution_operations(n_),
                          [&] { x_ = back_substitute(n_, upper_); });
      }
    });
  }

  Verification verify() override {
    return residual_verdict(mpi_, mpi_.rank() == 0 ? scaled_residual(n_, original_, x_) : 0.0);
  }

 private:
  double* row_at(std::size_t position) { return local_.data() + static_cast<std::size_t>(local_index_[position]) * stride_; }
  bool mine(std::size_t position) const { return (*owners_)[position] == mpi_.rank(); }

  // Rank 0 packs the rows owner by owner and scatters them.
  void distribute() {
    Buffer<double> packed;
    if (mpi_.rank() == 0) {
      packed = Buffer<double>(root_items(layout_, compute_), compute_);
      when_computing(compute_, [&] {
        pack_rows_by_owner(original_.data(), stride_, std::span(*owners_).first(n_), layout_, packed.data());
      });
    }
    scatterv(packed.data(), layout_, MPI_DOUBLE, local_.data(), 0, mpi_.comm(), wait_);
  }

  // Local rows at positions >= k start at first_local_.
  void step(PhaseTimer& timer, std::size_t k) {
    while (first_local_ < positions_.size() && positions_[first_local_] < k) ++first_local_;
    // A charged run searches nothing (comparisons are not counted): its stand-in pivot.
    PivotCandidate candidate = compute_ == ComputeMode::real
                                   ? PivotCandidate{-1.0, static_cast<int>(n_)}
                                   : PivotCandidate{1.0, static_cast<int>(stand_in_pivot(seed_, n_, k))};
    timer.compute([&] {
      compute_or_charge(compute_, 0, [&] {
        for (std::size_t l = first_local_; l < positions_.size(); ++l) {
          const double magnitude = std::abs(local_[l * stride_ + k]);
          if (magnitude > candidate.magnitude)
            candidate = {magnitude, static_cast<int>(positions_[l])};
        }
      });
    });
    PivotCandidate pivot{};
    timer.communicate([&] {
      allreduce(&candidate, &pivot, 1, MPI_DOUBLE_INT, MPI_MAXLOC, mpi_.comm(), wait_);
      if (!(pivot.magnitude > 0))
        throw Error("the matrix is singular (column " + std::to_string(k) + ")");
      share_pivot_row(k, static_cast<std::size_t>(pivot.position));
    });
    const bool holds_k = first_local_ < positions_.size() && positions_[first_local_] == k;
    const std::size_t rows_below = positions_.size() - first_local_ - (holds_k ? 1 : 0);
    timer.compute([&] {
      compute_or_charge(compute_, factor_ * ge_step_operations(rows_below, n_, k), [&] {
        const std::size_t length = stride_ - k;
        for (std::size_t l = first_local_; l < positions_.size(); ++l) {
          if (positions_[l] > k)
            eliminate_entry(local_.data() + l * stride_ + k, pivot_.data(), length);
        }
      });
    });
  }

  // Broadcasts the pivot row (columns k..n) and moves it to position k; the row that was
  // at position k moves to position p.
  void share_pivot_row(std::size_t k, std::size_t p) {
    const std::size_t length = stride_ - k;
    if (mine(p)) std::copy_n(row_at(p) + k, length, pivot_.data());
    broadcast(pivot_.data(), length, MPI_DOUBLE, (*owners_)[p], mpi_.comm(), wait_);
    if (p != k) {
      const int tag = static_cast<int>(k % kernel_tags);
      if (mine(k) && mine(p)) {
        std::copy_n(row_at(k) + k, length, row_at(p) + k);
      } else if (mine(k)) {
        start_send(row_at(k) + k, length, MPI_DOUBLE, (*owners_)[p], tag, mpi_.comm(), requests_);
        complete_all(requests_, wait_, "MPI_Isend");
      } else if (mine(p)) {
        start_receive(row_at(p) + k, length, MPI_DOUBLE, (*owners_)[k], tag, mpi_.comm(), requests_);
        complete_all(requests_, wait_, "MPI_Irecv");
      }
    }
    if (mine(k)) std::copy_n(pivot_.data(), length, row_at(k) + k);
  }

  // Rank 0 gathers every rank's (now final) rows and puts them back in position order.
  void collect() {
    Buffer<double> packed(mpi_.rank() == 0 ? root_items(layout_, compute_) : 0, compute_);
    gatherv(local_.data(), MPI_DOUBLE, packed.data(), layout_, 0, mpi_.comm(), wait_);
    if (mpi_.rank() != 0) return;
    when_computing(compute_, [&] {
      unpack_rows_by_owner(packed.data(), stride_, std::span(*owners_).first(n_), layout_, upper_.data());
    });
  }

  const MpiSession& mpi_;
  WaitMode wait_;
  ComputeMode compute_;
  std::size_t n_;
  std::size_t stride_;  // n coefficients + right-hand side
  std::uint64_t seed_;
  double factor_;  // declared-work factor of the charges (serial/operation_counts.hpp)
  std::shared_ptr<const std::vector<int>> owners_;  // row -> its rank, shared by all ranks
  std::vector<long> local_index_;     // position -> local row, -1 when not mine
  std::vector<std::size_t> positions_;  // my positions, ascending
  std::size_t first_local_ = 0;
  Layout layout_;
  Buffer<double> local_;
  std::vector<double> pivot_;
  std::vector<MPI_Request> requests_;  // a row exchange's pieces
  Buffer<double> original_, upper_;  // rank 0 only
  std::vector<double> x_;            // rank 0 only
};

}  // namespace
}  // namespace hetscale::kernels

int main(int argc, char** argv) {
  using namespace hetscale::kernels;
  return kernel_main(argc, argv, {"ge", [](const KernelContext& context) -> std::unique_ptr<Kernel> {
                                    return std::make_unique<GaussianElimination>(context);
                                  }});
}
