#include "serial/fft.hpp"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <utility>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/regular_file.hpp"

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

FftPlanning parse_fft_planning(std::string_view text) {
  if (text == "estimate") return FftPlanning::estimate;
  if (text == "measure") return FftPlanning::measure;
  throw Error("'" + std::string(text) + "' is not an FFT planning (estimate or measure)");
}

const char* to_string(FftPlanning planning) {
  return planning == FftPlanning::measure ? "measure" : "estimate";
}

FftRows::FftRows(std::size_t n, std::size_t count, Complex* data, FftDirection direction,
                 FftPlanning planning) {
  if (count == 0 || n == 0) return;
  const int length = static_cast<int>(n);
  const int sign = direction == FftDirection::forward ? FFTW_FORWARD : FFTW_BACKWARD;
  const unsigned flags = planning == FftPlanning::measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  std::lock_guard lock(planner_mutex());
  plan_ = fftw_plan_many_dft(1, &length, static_cast<int>(count), as_fftw(data), nullptr, 1, length,
                             as_fftw(data), nullptr, 1, length, sign, flags);
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

bool import_fft_wisdom(const std::filesystem::path& file) {
  constexpr std::size_t kMaxWisdomBytes = 16u << 20;
  std::string text;
  try {
    text = read_regular_file(file, kMaxWisdomBytes);
  } catch (const FileReadError&) {
    return false;
  }
  std::lock_guard lock(planner_mutex());
  return fftw_import_wisdom_from_string(text.c_str()) != 0;
}

void export_fft_wisdom(const std::filesystem::path& file) {
  std::unique_ptr<char, decltype(&std::free)> text(nullptr, &std::free);
  {
    std::lock_guard lock(planner_mutex());
    text.reset(fftw_export_wisdom_to_string());
  }
  if (!text) throw Error("fftw: cannot export wisdom");
  write_file_atomically(file, text.get(), 0600);
}

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
