// FFTW plans with one owner each, and the one-process 2-D convolution (the marked-speed
// version of `conv2d` and the reference its MPI version is checked against).
#pragma once

#include <complex>
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fftw3.h>

namespace hetscale::kernels {

using Complex = std::complex<double>;

enum class FftDirection { forward, backward };

/// How FFTW chooses its algorithm. estimate: from a model, at once, leaving the data
/// alone. measure: by timing candidates on the buffer itself (FFTW_MEASURE), which
/// takes up to seconds unless wisdom already holds the answer, and overwrites the
/// buffer: plan before filling it.
enum class FftPlanning { estimate, measure };

[[nodiscard]] FftPlanning parse_fft_planning(std::string_view text);  // throws Error
[[nodiscard]] const char* to_string(FftPlanning planning);

/// `count` in-place 1-D transforms of length n over consecutive rows of `data`.
/// Move-only. Planning is serialised: FFTW's planner is not thread-safe, its execution is.
class FftRows {
 public:
  FftRows(std::size_t n, std::size_t count, Complex* data, FftDirection direction,
          FftPlanning planning = FftPlanning::estimate);
  FftRows(FftRows&& other) noexcept;
  FftRows& operator=(FftRows&& other) noexcept;
  FftRows(const FftRows&) = delete;
  FftRows& operator=(const FftRows&) = delete;
  ~FftRows();

  /// Runs the transforms on the buffer given at planning time (nothing when count = 0).
  void execute() noexcept;

 private:
  fftw_plan plan_ = nullptr;
};

/// FFTW's version string (for the run record's fingerprint).
[[nodiscard]] std::string fftw_version_string();

/// Adds the wisdom saved in `file` to FFTW's (plans measured before are then made at
/// once). False, with FFTW's wisdom unchanged, when the file is absent, not a regular
/// file of at most 16 MiB, or not FFTW wisdom.
bool import_fft_wisdom(const std::filesystem::path& file);

/// Saves FFTW's wisdom to `file`, replacing it atomically. Throws Error when it cannot.
void export_fft_wisdom(const std::filesystem::path& file);

/// The circular convolution z = x (*) y of two n x n row-major images, by 2-D FFTs
/// (forward both, point-wise product, inverse, scaled by 1/n^2). x and y are consumed.
[[nodiscard]] std::vector<Complex> convolve_fft(std::size_t n, std::vector<Complex> x,
                                                std::vector<Complex> y);

/// The same by the definition, O(n^4): the reference for small n.
[[nodiscard]] std::vector<Complex> convolve_direct(std::size_t n, std::span<const Complex> x,
                                                   std::span<const Complex> y);

}  // namespace hetscale::kernels
