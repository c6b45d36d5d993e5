#include "serial/fft.hpp"

#include <mutex>
#include <utility>

#include "hetscale/error.hpp"

namespace hetscale::kernels {
namespace {

std::mutex& planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

fftw_complex* as_fftw(Complex* data) noexcept {
  // FFTW documents std::complex<double> as layout-compatible with fftw_complex.
  return reinterpret_cast<fftw_complex*>(data);
}

}  // namespace

FftRows::FftRows(std::size_t n, std::size_t count, Complex* data, FftDirection direction) {
  if (count == 0 || n == 0) return;
  const int length = static_cast<int>(n);
  const int sign = direction == FftDirection::forward ? FFTW_FORWARD : FFTW_BACKWARD;
  std::lock_guard lock(planner_mutex());
  plan_ = fftw_plan_many_dft(1, &length, static_cast<int>(count), as_fftw(data), nullptr, 1, length,
                             as_fftw(data), nullptr, 1, length, sign, FFTW_ESTIMATE);
  if (plan_ == nullptr) throw Error("fftw: cannot plan " + std::to_string(count) + " transforms of length " + std::to_string(n));
}

FftRows::FftRows(FftRows&& other) noexcept : plan_(std::exchange(other.plan_, nullptr)) {}

FftRows& FftRows::operator=(FftRows&& other) noexcept {
  if (this != &other) {
    FftRows old(std::move(*this));
    plan_ = std::exchange(other.plan_, nullptr);
  }
  return *this;
}

FftRows::~FftRows() {
  if (plan_ != nullptr) {
    std::lock_guard lock(planner_mutex());
    fftw_destroy_plan(plan_);
  }
}

void FftRows::execute() noexcept {
  if (plan_ != nullptr) fftw_execute(plan_);
}

std::string fftw_version_string() { return fftw_version; }

namespace {

// In-place transpose of an n x n matrix.
void transpose(std::size_t n, std::vector<Complex>& m) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) std::swap(m[i * n + j], m[j * n + i]);
  }
}

// Rows, transpose, rows: the same passes as the MPI kernel, on one process.
void fft_2d(std::size_t n, std::vector<Complex>& m, FftDirection direction) {
  FftRows rows(n, n, m.data(), direction);
  rows.execute();
  transpose(n, m);
  rows.execute();
  transpose(n, m);
}

}  // namespace

std::vector<Complex> convolve_fft(std::size_t n, std::vector<Complex> x, std::vector<Complex> y) {
  fft_2d(n, x, FftDirection::forward);
  fft_2d(n, y, FftDirection::forward);
  const double scale = 1.0 / (static_cast<double>(n) * static_cast<double>(n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] *= y[i] * scale;
  fft_2d(n, x, FftDirection::backward);
  return x;
}

std::vector<Complex> convolve_direct(std::size_t n, std::span<const Complex> x, std::span<const Complex> y) {
  std::vector<Complex> z(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      Complex sum = 0;
      for (std::size_t a = 0; a < n; ++a) {
        const std::size_t ra = (i + n - a) % n;
        for (std::size_t b = 0; b < n; ++b) sum += x[a * n + b] * y[ra * n + (j + n - b) % n];
      }
      z[i * n + j] = sum;
    }
  }
  return z;
}

}  // namespace hetscale::kernels
