#include "serial/elimination.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hetscale/base/error.hpp"
#include "serial/random_fill.hpp"

namespace hetscale::kernels {

void eliminate_entry(double* __restrict row, const double* __restrict pivot, std::size_t len) noexcept {
  const double factor = row[0] / pivot[0];
  // `omp simd` (-fopenmp-simd, no OpenMP runtime) vectorises at -O2 with the baseline
  // ISA, so binaries stay portable (no -march=native).
#pragma omp simd
  for (std::size_t j = 1; j < len; ++j) row[j] -= factor * pivot[j];
  row[0] = 0.0;
}

std::size_t stand_in_pivot(std::uint64_t seed, std::size_t n, std::size_t k) noexcept {
  const double u = 0.5 * (uniform_at(seed, 6, k) + 1.0);  // [0, 1)
  const auto offset = static_cast<std::size_t>(u * static_cast<double>(n - k));
  return k + std::min(offset, n - k - 1);
}

std::vector<double> back_substitute(std::size_t n, std::span<const double> upper) {
  const std::size_t stride = n + 1;
  std::vector<double> x(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    const double* row = upper.data() + i * stride;
    double sum = row[n];
    for (std::size_t j = i + 1; j < n; ++j) sum -= row[j] * x[j];
    x[i] = sum / row[i];
  }
  return x;
}

double scaled_residual(std::size_t n, std::span<const double> augmented, std::span<const double> x) {
  const std::size_t stride = n + 1;
  double r_norm = 0, a_norm = 0, b_norm = 0, x_norm = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = augmented.data() + i * stride;
    double ax = 0, row_sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      ax += row[j] * x[j];
      row_sum += std::abs(row[j]);
    }
    r_norm = std::max(r_norm, std::abs(ax - row[n]));
    a_norm = std::max(a_norm, row_sum);
    b_norm = std::max(b_norm, std::abs(row[n]));
    x_norm = std::max(x_norm, std::abs(x[i]));
  }
  const double scale = std::numeric_limits<double>::epsilon() * (a_norm * x_norm + b_norm) *
                       static_cast<double>(std::max<std::size_t>(n, 1));
  return scale > 0 ? r_norm / scale : r_norm;
}

std::vector<double> solve_serial(std::size_t n, std::span<double> augmented) {
  const std::size_t stride = n + 1;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i) {
      if (std::abs(augmented[i * stride + k]) > std::abs(augmented[p * stride + k])) p = i;
    }
    if (augmented[p * stride + k] == 0.0) {
      throw Error("ge: the matrix is singular (column " + std::to_string(k) + ")");
    }
    if (p != k) {
      std::swap_ranges(augmented.begin() + static_cast<std::ptrdiff_t>(k * stride + k),
                       augmented.begin() + static_cast<std::ptrdiff_t>((k + 1) * stride),
                       augmented.begin() + static_cast<std::ptrdiff_t>(p * stride + k));
    }
    const double* pivot = augmented.data() + k * stride + k;
    for (std::size_t i = k + 1; i < n; ++i) {
      eliminate_entry(augmented.data() + i * stride + k, pivot, stride - k);
    }
  }
  return back_substitute(n, augmented);
}

}  // namespace hetscale::kernels
