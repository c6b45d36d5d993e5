// hetscale-conv2d: circular 2-D convolution of two complex N x N images by FFT
// (docs/science.md section 1). Rows in weighted contiguous blocks: row FFTs, a weighted
// all-to-all transpose (each rank then holds a weighted block of columns), column FFTs,
// point-wise product, inverse column FFTs, transpose back, inverse row FFTs.
// Check: N <= direct_check_limit against the direct convolution of two random images;
// larger N convolve with c * delta(s_r, s_c), which must give c * X shifted by (s_r, s_c).
// Computation and big buffers go through common/engine.hpp (computed, or charged in the
// SimGrid build).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include "common/collectives.hpp"
#include "common/kernel_driver.hpp"
#include "common/layout.hpp"
#include "common/row_distribution.hpp"
#include "hetscale/base/error.hpp"
#include "serial/fft.hpp"
#include "serial/operation_counts.hpp"
#include "serial/random_fill.hpp"

namespace hetscale::kernels {
namespace {

constexpr std::size_t direct_check_limit = 64;
constexpr Complex delta_scale{0.6, -0.8};

class Convolution2d final : public Kernel {
 public:
  explicit Convolution2d(const KernelContext& context)
      : mpi_(context.mpi),
        wait_(context.wait),
        compute_(context.compute),
        n_(context.n),
        seed_(context.seed),
        factor_(declared_work_factor("conv2d", context.n)),
        counts_(block_counts(context.n, context.weights)),
        offsets_(block_offsets(counts_)),
        rows_(counts_[static_cast<std::size_t>(mpi_.rank())]),
        first_row_(offsets_[static_cast<std::size_t>(mpi_.rank())]) {
    for (std::size_t c : counts_) largest_rows_ = std::max(largest_rows_, c);
    images_ = Buffer<Complex>(2 * rows_ * n_, compute_);  // X rows then Y rows
    columns_ = Buffer<Complex>(
        2 * rows_ * n_, compute_);  // X columns then Y columns (my column block = my row block)
    when_computing(compute_, [&] {
      // Plans first: measuring overwrites the buffers (docs/kernels.md, "conv2d").
      plan(context);
      for (std::size_t i = 0; i < rows_; ++i) {
        fill_x_row(first_row_ + i, row(images_, i));
        fill_y_row(first_row_ + i, row(images_, rows_ + i));
      }
    });
  }

  // The four plans, from the wisdom file when it has them; what was measured is saved
  // back for the next run on this node.
  void plan(const KernelContext& context) {
    const FftPlanning planning = context.fft_planning;
    if (planning == FftPlanning::measure && context.fft_wisdom) import_fft_wisdom(*context.fft_wisdom);
    rows_forward_ = FftRows(n_, 2 * rows_, images_.data(), FftDirection::forward, planning);
    columns_forward_ = FftRows(n_, 2 * rows_, columns_.data(), FftDirection::forward, planning);
    columns_backward_ = FftRows(n_, rows_, columns_.data(), FftDirection::backward, planning);
    rows_backward_ = FftRows(n_, rows_, images_.data(), FftDirection::backward, planning);
    if (planning == FftPlanning::measure && context.fft_wisdom) {
      try {
        export_fft_wisdom(*context.fft_wisdom);
      } catch (const Error& e) {  // the run is fine without it; the next one plans again
        std::fprintf(stderr, "hetscale-conv2d: rank %d: note: FFTW wisdom not saved: %s\n", mpi_.rank(),
                     e.what());
      }
    }
  }

  void run(PhaseTimer& timer) override {
    timer.compute([&] {
      compute_or_charge(compute_, factor_ * fft_operations(2 * rows_, n_),
                        [&] { rows_forward_.execute(); });
    });
    timer.communicate([&] { transpose_forward(); });
    timer.compute([&] {
      const double operations =
          fft_operations(3 * rows_, n_) + conv2d_product_operations(rows_, n_);
      compute_or_charge(compute_, factor_ * operations, [&] {
        columns_forward_.execute();
        const double scale = 1.0 / (static_cast<double>(n_) * static_cast<double>(n_));
        const std::size_t half = rows_ * n_;
        for (std::size_t i = 0; i < half; ++i) columns_[i] *= columns_[half + i] * scale;
        columns_backward_.execute();
      });
    });
    timer.communicate([&] { transpose_backward(); });
    timer.compute([&] {
      compute_or_charge(compute_, factor_ * fft_operations(rows_, n_),
                        [&] { rows_backward_.execute(); });
    });
  }

  Verification verify() override { return n_ <= direct_check_limit ? check_direct() : check_shift(); }

 private:
  // Row i of an n_-wide row-major matrix.
  Complex* row(Buffer<Complex>& m, std::size_t i) const { return m.data() + i * n_; }
  Complex* row(std::vector<Complex>& m, std::size_t i) const { return m.data() + i * n_; }

  void fill_x_row(std::size_t g, Complex* out) const { fill_uniform({out, n_}, seed_, 4, g * n_); }
  void fill_y_row(std::size_t g, Complex* out) const {
    if (n_ <= direct_check_limit) {
      fill_uniform({out, n_}, seed_, 5, g * n_);
      return;
    }
    std::fill_n(out, n_, Complex{});
    if (g == shift_rows()) out[shift_columns()] = delta_scale;
  }
  std::size_t shift_rows() const { return n_ / 3; }
  std::size_t shift_columns() const { return n_ / 5 + 1; }

  // Sends to rank s my rows restricted to s's columns (both images); receives from s its
  // rows restricted to my columns, stored transposed: columns_[c][row].
  void transpose_forward() {
    const std::size_t ranks = counts_.size();
    Buffer<Complex> send(2 * rows_ * n_, compute_), recv(2 * rows_ * n_, compute_);
    // To rank s: my 2 rows_ rows restricted to its counts_[s] columns; from it the same.
    const Layout sent = row_layout(counts_, 2 * rows_);
    const Layout received = row_layout(counts_, 2 * rows_);
    when_computing(compute_, [&] {
      std::size_t at = 0;
      for (std::size_t s = 0; s < ranks; ++s) {
        for (std::size_t image = 0; image < 2; ++image) {
          for (std::size_t i = 0; i < rows_; ++i) {
            const Complex* from = row(images_, image * rows_ + i) + offsets_[s];
            at = static_cast<std::size_t>(std::copy_n(from, counts_[s], send.data() + at) -
                                          send.data());
          }
        }
      }
    });
    alltoallv(send, sent, recv, received, 2 * largest_rows_ * largest_rows_);
    when_computing(compute_, [&] {
      for (std::size_t s = 0; s < ranks; ++s) {
        const Complex* from = recv.data() + received.displacements[s];
        for (std::size_t image = 0; image < 2; ++image) {
          for (std::size_t i = 0; i < counts_[s]; ++i) {
            for (std::size_t c = 0; c < rows_; ++c)
              row(columns_, image * rows_ + c)[offsets_[s] + i] = *from++;
          }
        }
      }
    });
  }

  // The product (first rows_ columns) goes back to row layout in images_.
  void transpose_backward() {
    const std::size_t ranks = counts_.size();
    Buffer<Complex> send(rows_ * n_, compute_), recv(rows_ * n_, compute_);
    const Layout sent = row_layout(counts_, rows_);
    const Layout received = row_layout(counts_, rows_);
    when_computing(compute_, [&] {
      std::size_t at = 0;
      for (std::size_t s = 0; s < ranks; ++s) {
        for (std::size_t c = 0; c < rows_; ++c) {
          const Complex* from = row(columns_, c) + offsets_[s];
          at = static_cast<std::size_t>(std::copy_n(from, counts_[s], send.data() + at) -
                                        send.data());
        }
      }
    });
    alltoallv(send, sent, recv, received, largest_rows_ * largest_rows_);
    when_computing(compute_, [&] {
      for (std::size_t s = 0; s < ranks; ++s) {
        const Complex* from = recv.data() + received.displacements[s];
        for (std::size_t c = 0; c < counts_[s]; ++c) {
          for (std::size_t i = 0; i < rows_; ++i) row(images_, i)[offsets_[s] + c] = *from++;
        }
      }
    });
  }

  // `largest` bounds every rank's segments (the same on every rank).
  void alltoallv(const Buffer<Complex>& send, const Layout& sent, Buffer<Complex>& recv, const Layout& received,
                 std::size_t largest) const {
    kernels::alltoallv(send.data(), sent, recv.data(), received, largest, MPI_C_DOUBLE_COMPLEX, mpi_.comm(), wait_);
  }

  // Rank 0 gathers Z and compares it with the definition.
  Verification check_direct() {
    std::vector<Complex> z(mpi_.rank() == 0 ? n_ * n_ : 0);
    gatherv(images_.data(), MPI_C_DOUBLE_COMPLEX, z.data(), row_layout(counts_, n_), 0, mpi_.comm(), wait_);
    double error = 0;
    if (mpi_.rank() == 0) {
      std::vector<Complex> x(n_ * n_), y(n_ * n_);
      for (std::size_t g = 0; g < n_; ++g) {
        fill_x_row(g, row(x, g));
        fill_y_row(g, row(y, g));
      }
      const std::vector<Complex> expected = convolve_direct(n_, x, y);
      for (std::size_t i = 0; i < z.size(); ++i) error = std::max(error, std::abs(z[i] - expected[i]));
    }
    check_mpi(MPI_Bcast(&error, 1, MPI_DOUBLE, 0, mpi_.comm()), "MPI_Bcast");
    // Entries are sums of n^2 products of magnitude <= 2; FFT rounding grows like log n.
    const double n2 = static_cast<double>(n_ * n_);
    const double bound = 64 * std::numeric_limits<double>::epsilon() * std::log2(n2 + 1) * 2 * n2;
    return verdict("direct convolution", error, bound);
  }

  // Every rank checks its own rows against c * X shifted, regenerating X's rows.
  Verification check_shift() {
    double error = 0;
    std::vector<Complex> x_row(n_);
    for (std::size_t i = 0; i < rows_; ++i) {
      const std::size_t g = first_row_ + i;
      fill_x_row((g + n_ - shift_rows()) % n_, x_row.data());
      const Complex* z = row(images_, i);
      for (std::size_t j = 0; j < n_; ++j) {
        error = std::max(error, std::abs(z[j] - delta_scale * x_row[(j + n_ - shift_columns()) % n_]));
      }
    }
    double worst = 0;
    check_mpi(MPI_Allreduce(&error, &worst, 1, MPI_DOUBLE, MPI_MAX, mpi_.comm()), "MPI_Allreduce");
    const double bound = 64 * std::numeric_limits<double>::epsilon() * std::log2(static_cast<double>(n_ * n_)) * 2;
    return verdict("shifted-delta identity", worst, bound);
  }

  static Verification verdict(const char* check, double error, double bound) {
    char detail[128];
    const bool ok = error <= bound;  // NaN fails
    std::snprintf(detail, sizeof detail, "%s: max error %.3g %s bound %.3g", check, error, ok ? "<=" : ">", bound);
    return {ok, detail};
  }

  const MpiSession& mpi_;
  WaitMode wait_;  // how the timed transposes wait (HETSCALE_MPI_WAIT)
  ComputeMode compute_;
  std::size_t n_;
  std::uint64_t seed_;
  double factor_;  // declared-work factor of the charges (serial/operation_counts.hpp)
  std::vector<std::size_t> counts_, offsets_;  // rows per rank = columns per rank after the transpose
  std::size_t rows_, first_row_;
  std::size_t largest_rows_ = 0;  // of any rank
  Buffer<Complex> images_, columns_;
  FftRows rows_forward_{0, 0, nullptr, FftDirection::forward};
  FftRows columns_forward_{0, 0, nullptr, FftDirection::forward};
  FftRows columns_backward_{0, 0, nullptr, FftDirection::backward};
  FftRows rows_backward_{0, 0, nullptr, FftDirection::backward};
};

}  // namespace
}  // namespace hetscale::kernels

int main(int argc, char** argv) {
  using namespace hetscale::kernels;
  return kernel_main(argc, argv, {"conv2d", [](const KernelContext& context) -> std::unique_ptr<Kernel> {
                                    return std::make_unique<Convolution2d>(context);
                                  }});
}
