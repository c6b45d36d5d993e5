#include "serial/blas.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "serial/random_fill.hpp"

namespace hetscale::kernels {
namespace {

// y = |M| x for a row-major n x n matrix (x >= 0).
std::vector<double> abs_times(std::size_t n, std::span<const double> m, const std::vector<double>& x) {
  std::vector<double> y(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = m.data() + i * n;
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += std::abs(row[j]) * x[j];
    y[i] = sum;
  }
  return y;
}

std::vector<double> times(std::size_t n, std::span<const double> m, const std::vector<double>& x) {
  std::vector<double> y(n, 0.0);
  const int ni = static_cast<int>(n);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, ni, ni, 1.0, m.data(), ni, x.data(), 1, 0.0, y.data(), 1);
  return y;
}

}  // namespace

void use_single_threaded_blas() noexcept { openblas_set_num_threads(1); }

std::string blas_config() { return openblas_get_config(); }

void multiply(std::size_t rows, std::size_t n, const double* a, const double* b, double* c) noexcept {
  if (rows == 0 || n == 0) return;
  const int ni = static_cast<int>(n);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), ni, ni, 1.0, a,
              ni, b, ni, 0.0, c, ni);
}

void multiply_subtract(std::size_t rows, std::size_t cols, std::size_t depth, const double* a,
                       std::size_t lda, const double* b, std::size_t ldb, double* c,
                       std::size_t ldc) noexcept {
  if (rows == 0 || cols == 0 || depth == 0) return;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(cols),
              static_cast<int>(depth), -1.0, a, static_cast<int>(lda), b, static_cast<int>(ldb), 1.0, c,
              static_cast<int>(ldc));
}

void solve_unit_lower(std::size_t rows, std::size_t cols, const double* l, std::size_t ldl, double* b,
                      std::size_t ldb) noexcept {
  if (rows == 0 || cols == 0) return;
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, static_cast<int>(rows),
              static_cast<int>(cols), 1.0, l, static_cast<int>(ldl), b, static_cast<int>(ldb));
}

FreivaldsResult freivalds_check(std::size_t n, std::span<const double> a, std::span<const double> b,
                                std::span<const double> c, std::uint64_t seed, int rounds) {
  const double eps = std::numeric_limits<double>::epsilon();
  // |r| is all ones, so the bound |A| |B| |r| is the same every round.
  const std::vector<double> ones(n, 1.0);
  const std::vector<double> bound = abs_times(n, a, abs_times(n, b, ones));
  FreivaldsResult result{true, 0.0};
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> r(n);
    for (std::size_t j = 0; j < n; ++j) r[j] = uniform_at(seed, 1000 + round, j) < 0 ? -1.0 : 1.0;
    const std::vector<double> cr = times(n, c, r);
    const std::vector<double> abr = times(n, a, times(n, b, r));
    for (std::size_t i = 0; i < n; ++i) {
      const double limit = 8.0 * static_cast<double>(n) * eps * bound[i] +
                           std::numeric_limits<double>::min();
      const double err = std::abs(cr[i] - abr[i]);
      result.worst_ratio = std::max(result.worst_ratio, err / limit);
      if (!(err <= limit)) result.ok = false;  // NaN fails too
    }
  }
  return result;
}

}  // namespace hetscale::kernels
