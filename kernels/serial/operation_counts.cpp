#include "serial/operation_counts.hpp"

#include <cmath>
#include <string>

#include "hetscale/base/error.hpp"
#include "serial/work_formula.hpp"

namespace hetscale::kernels {

double mm_multiply_operations(std::size_t rows, std::size_t n) noexcept {
  const double nd = static_cast<double>(n);
  return 2.0 * static_cast<double>(rows) * nd * nd;
}

double ge_step_operations(std::size_t rows_below, std::size_t n, std::size_t k) noexcept {
  return static_cast<double>(rows_below) * (2.0 * static_cast<double>(n - k) + 1.0);
}

double ge_back_substitution_operations(std::size_t n) noexcept {
  return static_cast<double>(n) * static_cast<double>(n);
}

double fft_operations(std::size_t count, std::size_t n) noexcept {
  const double nd = static_cast<double>(n);
  return static_cast<double>(count) * 5.0 * nd * std::log2(nd);
}

double conv2d_product_operations(std::size_t columns, std::size_t n) noexcept {
  return 8.0 * static_cast<double>(columns) * static_cast<double>(n);
}

double lu_panel_operations(std::size_t rows, std::size_t width) noexcept {
  double total = 0;
  for (std::size_t j = 0; j < width && j < rows; ++j)
    total += static_cast<double>(rows - 1 - j) * (2.0 * static_cast<double>(width - 1 - j) + 1.0);
  return total;
}

double lu_triangular_operations(std::size_t rows, std::size_t cols) noexcept {
  const double r = static_cast<double>(rows);
  return r * (r - 1.0) * static_cast<double>(cols);
}

double lu_update_operations(std::size_t rows, std::size_t depth, std::size_t cols) noexcept {
  return 2.0 * static_cast<double>(rows) * static_cast<double>(depth) * static_cast<double>(cols);
}

double lu_solve_operations(std::size_t n) noexcept {
  const double nd = static_cast<double>(n);
  return nd * (nd - 1.0) + nd * nd;
}

double run_operations(std::string_view kernel, std::size_t n) {
  const double nd = static_cast<double>(n);
  if (kernel == "mm") return mm_multiply_operations(n, n);
  if (kernel == "ge") {
    // Sum over k of (N - 1 - k)(2 (N - k) + 1), plus N^2 for the back substitution.
    return (4.0 * nd * nd * nd + 9.0 * nd * nd - 7.0 * nd) / 6.0;
  }
  if (kernel == "conv2d") {
    // Forward transforms of both images (rows, then columns), one inverse (columns, then
    // rows): six passes of N transforms; N^2 product entries.
    return fft_operations(6 * n, n) + conv2d_product_operations(n, n);
  }
  if (kernel == "lu") {
    // Every blocking of LU does the arithmetic of the unblocked one: (N - 1 - k) divisions
    // and (N - 1 - k)^2 multiply-subtract pairs at step k. Then the solve with the factors.
    return (4.0 * nd * nd * nd - 3.0 * nd * nd - nd) / 6.0 + lu_solve_operations(n);
  }
  throw Error("no operation count for kernel '" + std::string(kernel) + "'");
}

double declared_work_factor(std::string_view kernel, std::size_t n) {
  const double operations = run_operations(kernel, n);
  return operations > 0 ? builtin_work(kernel, static_cast<double>(n)) / operations : 0.0;
}

}  // namespace hetscale::kernels
