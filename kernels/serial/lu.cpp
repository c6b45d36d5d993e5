#include "serial/lu.hpp"

#include <algorithm>

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
