// The charges of a SimGrid charged run (--compute flops): summed over ranks and phases
// exactly as the kernels charge them, they give the workload formula W(N).
#include "serial/operation_counts.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/row_distribution.hpp"
#include "hetscale/base/error.hpp"
#include "serial/lu.hpp"
#include "serial/work_formula.hpp"

namespace hetscale::kernels {
namespace {

const std::vector<std::vector<double>> weight_sets = {
    {1}, {1, 1}, {2, 1, 1}, {100, 1, 0.01, 5}, {3, 3, 3, 3, 1, 1, 1, 1, 0.5}};
const std::vector<std::size_t> sizes = {1, 2, 3, 5, 13, 64, 100, 257, 1000};

void expect_work(double charged, std::string_view kernel, std::size_t n) {
  const double w = builtin_work(kernel, static_cast<double>(n));
  EXPECT_NEAR(charged, w, 1e-12 * std::max(1.0, w)) << kernel << " N=" << n;
}

TEST(OperationCounts, MmBlocksSumToTwoNCubedExactly) {
  for (const auto& weights : weight_sets) {
    for (std::size_t n : sizes) {
      double total = 0;
      for (std::size_t rows : block_counts(n, weights)) total += mm_multiply_operations(rows, n);
      EXPECT_EQ(total, 2.0 * std::pow(static_cast<double>(n), 3)) << "N=" << n;
      EXPECT_DOUBLE_EQ(declared_work_factor("mm", n), 1.0);
    }
  }
}

// As ge_main.cpp charges: at step k each rank its rows at positions > k, then rank 0 the
// back substitution, all times the declared-work factor.
TEST(OperationCounts, GeStepsSumToTheWorkloadFormula) {
  for (const auto& weights : weight_sets) {
    for (std::size_t n : sizes) {
      const std::vector<int> owners = cyclic_owners(n, weights);
      const double factor = declared_work_factor("ge", n);
      std::vector<double> per_rank(weights.size(), 0.0);
      for (std::size_t k = 0; k < n; ++k) {
        std::vector<std::size_t> below(weights.size(), 0);
        for (std::size_t g = k + 1; g < n; ++g) ++below[static_cast<std::size_t>(owners[g])];
        for (std::size_t r = 0; r < weights.size(); ++r)
          per_rank[r] += factor * ge_step_operations(below[r], n, k);
      }
      per_rank[0] += factor * ge_back_substitution_operations(n);
      double total = 0;
      for (double f : per_rank) total += f;
      expect_work(total, "ge", n);
    }
  }
}

TEST(OperationCounts, GeCountIsTheCodesOwn) {
  // (N - 1 - k) rows, each 1 division + 2 (N - k) for the update, then N^2.
  for (std::size_t n : sizes) {
    double direct = static_cast<double>(n * n);
    for (std::size_t k = 0; k < n; ++k)
      direct += static_cast<double>((n - 1 - k) * (2 * (n - k) + 1));
    EXPECT_DOUBLE_EQ(run_operations("ge", n), direct);
  }
  // The formula counts the same algorithm up to lower-order terms: the factor tends to 1.
  EXPECT_NEAR(declared_work_factor("ge", 10000), 1.0, 4e-4);
}

// As lu_main.cpp charges: each panel of NB columns on its owner (rows N - k0), then on
// every rank its columns right of the panel: their part of the block row of U and the
// dgemm below it; then rank 0 the solve. All times the declared-work factor.
TEST(OperationCounts, LuPanelsAndUpdatesSumToTheWorkloadFormula) {
  for (const auto& weights : weight_sets) {
    for (std::size_t n : sizes) {
      const std::size_t nb = lu_block_size(n, weights.size());
      const std::vector<int> block_owners = cyclic_owners((n + nb - 1) / nb, weights);
      const double factor = declared_work_factor("lu", n);
      std::vector<double> per_rank(weights.size(), 0.0);
      for (std::size_t k0 = 0; k0 < n; k0 += nb) {
        const std::size_t b = std::min(nb, n - k0), below = n - k0 - b;
        per_rank[static_cast<std::size_t>(block_owners[k0 / nb])] += factor * lu_panel_operations(n - k0, b);
        std::vector<std::size_t> right(weights.size(), 0);
        for (std::size_t g = k0 + b; g < n; ++g) ++right[static_cast<std::size_t>(block_owners[g / nb])];
        for (std::size_t r = 0; r < weights.size(); ++r)
          per_rank[r] += factor * (lu_triangular_operations(b, right[r]) + lu_update_operations(below, b, right[r]));
      }
      per_rank[0] += factor * lu_solve_operations(n);
      double total = 0;
      for (double f : per_rank) total += f;
      expect_work(total, "lu", n);
    }
  }
}

TEST(OperationCounts, LuCountIsTheUnblockedOne) {
  // (N - 1 - k) divisions and 2 (N - 1 - k)^2 for the update at step k, then the solve.
  for (std::size_t n : sizes) {
    double direct = 2.0 * static_cast<double>(n * n) - static_cast<double>(n);
    for (std::size_t k = 0; k < n; ++k) {
      const double below = static_cast<double>(n - 1 - k);
      direct += below + 2 * below * below;
    }
    EXPECT_DOUBLE_EQ(run_operations("lu", n), direct) << n;
  }
  EXPECT_NEAR(declared_work_factor("lu", 10000), 1.0, 4e-4);
}

// As conv2d_main.cpp charges: rows forward (2r transforms), columns forward, product and
// columns backward (3r transforms + r columns), rows backward (r transforms).
TEST(OperationCounts, Conv2dPhasesSumToTheWorkloadFormula) {
  for (const auto& weights : weight_sets) {
    for (std::size_t n : sizes) {
      const double factor = declared_work_factor("conv2d", n);
      double total = 0;
      for (std::size_t r : block_counts(n, weights)) {
        total += factor * fft_operations(2 * r, n);
        total += factor * (fft_operations(3 * r, n) + conv2d_product_operations(r, n));
        total += factor * fft_operations(r, n);
      }
      expect_work(total, "conv2d", n);
    }
  }
}

TEST(OperationCounts, UnknownKernel) {
  EXPECT_THROW((void)run_operations("qr", 10), Error);
  EXPECT_THROW((void)declared_work_factor("qr", 10), Error);
}

}  // namespace
}  // namespace hetscale::kernels
