#include "serial/lu.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "hetscale/base/error.hpp"
#include "serial/blas.hpp"
#include "serial/elimination.hpp"

namespace hetscale::kernels {

std::size_t lu_block_size(std::size_t n, std::size_t ranks) noexcept {
  return std::clamp(n / (8 * std::max<std::size_t>(ranks, 1)), lu_min_block, lu_max_block);
}

void eliminate_keeping_multiplier(double* __restrict row, const double* __restrict pivot,
                                  std::size_t len) noexcept {
  const double factor = row[0] / pivot[0];
  row[0] = factor;
#pragma omp simd
  for (std::size_t j = 1; j < len; ++j) row[j] -= factor * pivot[j];
}

void factor_panel(std::size_t rows, std::size_t width, double* a, std::size_t ld, std::size_t* pivots,
                  std::size_t first_column) {
  for (std::size_t s = 0; s < width; s += lu_inner_block) {
    const std::size_t w = std::min(lu_inner_block, width - s);
    for (std::size_t j = s; j < s + w; ++j) {
      std::size_t p = j;
      double largest = std::abs(a[j * ld + j]);
      for (std::size_t i = j + 1; i < rows; ++i) {
        const double magnitude = std::abs(a[i * ld + j]);
        if (magnitude > largest) {
          largest = magnitude;
          p = i;
        }
      }
      if (!(largest > 0))
        throw Error("the matrix is singular (column " + std::to_string(first_column + j) + ")");
      pivots[j] = p;
      if (p != j) std::swap_ranges(a + j * ld, a + j * ld + width, a + p * ld);
      for (std::size_t i = j + 1; i < rows; ++i)
        eliminate_keeping_multiplier(a + i * ld + j, a + j * ld + j, s + w - j);
    }
    const std::size_t cols = width - s - w;
    solve_unit_lower(w, cols, a + s * ld + s, ld, a + s * ld + s + w, ld);
    multiply_subtract(rows - s - w, cols, w, a + (s + w) * ld + s, ld, a + s * ld + s + w, ld,
                      a + (s + w) * ld + s + w, ld);
  }
}

std::vector<double> solve_blocked(std::size_t n, std::span<double> augmented, std::size_t block) {
  const std::size_t stride = n + 1;
  block = std::max<std::size_t>(block, 1);
  std::vector<std::size_t> pivots(block);
  double* m = augmented.data();
  for (std::size_t k0 = 0; k0 < n; k0 += block) {
    const std::size_t b = std::min(block, n - k0), end = k0 + b;
    factor_panel(n - k0, b, m + k0 * stride + k0, stride, pivots.data(), k0);
    for (std::size_t j = 0; j < b; ++j) {
      if (pivots[j] == j) continue;
      double* here = m + (k0 + j) * stride;
      double* there = m + (k0 + pivots[j]) * stride;
      std::swap_ranges(here, here + k0, there);
      std::swap_ranges(here + end, here + stride, there + end);
    }
    const std::size_t cols = n - end;
    solve_unit_lower(b, cols, m + k0 * stride + k0, stride, m + k0 * stride + end, stride);
    multiply_subtract(n - end, cols, b, m + end * stride + k0, stride, m + k0 * stride + end, stride,
                      m + end * stride + end, stride);
  }
  return solve_with_factors(n, augmented);
}

std::vector<double> solve_with_factors(std::size_t n, std::span<double> factors) {
  const std::size_t stride = n + 1;
  std::vector<double> y(n);  // contiguous: the column itself is a stride apart
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = factors.data() + i * stride;
    double sum = row[n];
    for (std::size_t j = 0; j < i; ++j) sum -= row[j] * y[j];
    y[i] = sum;
  }
  for (std::size_t i = 0; i < n; ++i) factors[i * stride + n] = y[i];
  return back_substitute(n, factors);
}

}  // namespace hetscale::kernels
