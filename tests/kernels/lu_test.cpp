// The serial pieces of the blocked LU kernel `lu`: block sizes, the column step, the
// panel factorisation, the BLAS updates, the solve with the factors, and the whole
// one-process solve built from them (as lu_main.cpp works on one rank).
#include "serial/lu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "hetscale/base/error.hpp"
#include "serial/blas.hpp"
#include "serial/elimination.hpp"
#include "serial/random_fill.hpp"
#include "serial/work_formula.hpp"

namespace hetscale::kernels {
namespace {

TEST(LuBlockSize, ClampedShareOfTheRows) {
  EXPECT_EQ(lu_block_size(4096, 1), lu_max_block);
  EXPECT_EQ(lu_block_size(4096, 2), lu_max_block);
  EXPECT_EQ(lu_block_size(2048, 4), 64u);
  EXPECT_EQ(lu_block_size(70, 3), lu_min_block);
  EXPECT_EQ(lu_block_size(1, 1), lu_min_block);
  EXPECT_EQ(lu_block_size(10, 0), lu_min_block);
}

TEST(LuColumnStep, KeepsTheMultiplierAndEliminates) {
  const std::vector<double> pivot{4, 1, 2, -1};
  std::vector<double> row{2, 3, 5, 7};
  eliminate_keeping_multiplier(row.data(), pivot.data(), 4);
  EXPECT_EQ(row, (std::vector<double>{0.5, 2.5, 4, 7.5}));
}

TEST(LuBlas, MultiplySubtractAndUnitLowerSolveMatchTheDefinitions) {
  // C (3 x 2, ldc 5) -= A (3 x 4, lda 6) B (4 x 2, ldb 3).
  std::vector<double> a(3 * 6), b(4 * 3), c(3 * 5);
  fill_uniform(a, 9, 1);
  fill_uniform(b, 9, 2);
  fill_uniform(c, 9, 3);
  std::vector<double> expected = c;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j)
      for (std::size_t k = 0; k < 4; ++k) expected[i * 5 + j] -= a[i * 6 + k] * b[k * 3 + j];
  multiply_subtract(3, 2, 4, a.data(), 6, b.data(), 3, c.data(), 5);
  for (std::size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(c[i], expected[i], 1e-14) << i;

  // L (3 x 3, unit diagonal: the stored diagonal and upper part are ignored) X = B.
  std::vector<double> l{99, 99, 99, 0.5, 99, 99, -2, 0.25, 99};
  std::vector<double> rhs{1, 2, 3, 4, 5, 6};  // 3 x 2
  solve_unit_lower(3, 2, l.data(), 3, rhs.data(), 2);
  // x0 = (1, 2); x1 = (3, 4) - 0.5 x0 = (2.5, 3); x2 = (5, 6) + 2 x0 - 0.25 x1 = (6.375, 9.25)
  EXPECT_EQ(rhs, (std::vector<double>{1, 2, 2.5, 3, 6.375, 9.25}));
  multiply_subtract(0, 2, 4, a.data(), 6, b.data(), 3, c.data(), 5);  // empty: nothing
  solve_unit_lower(3, 0, l.data(), 3, rhs.data(), 2);
}

// Unblocked LU with partial pivoting of a rows x width panel (ld), the reference.
std::vector<std::size_t> factor_unblocked(std::size_t rows, std::size_t width, double* a, std::size_t ld) {
  std::vector<std::size_t> pivots(width);
  for (std::size_t j = 0; j < width; ++j) {
    std::size_t p = j;
    for (std::size_t i = j + 1; i < rows; ++i)
      if (std::abs(a[i * ld + j]) > std::abs(a[p * ld + j])) p = i;
    pivots[j] = p;
    std::swap_ranges(a + j * ld, a + j * ld + width, a + p * ld);
    for (std::size_t i = j + 1; i < rows; ++i) eliminate_keeping_multiplier(a + i * ld + j, a + j * ld + j, width - j);
  }
  return pivots;
}

TEST(LuPanel, SubPanelsGiveTheUnblockedFactorsAndPivots) {
  for (std::size_t rows : {1u, 5u, 40u, 300u}) {
    for (std::size_t width : {1u, 5u, 16u, 17u, 40u}) {
      if (width > rows) continue;
      const std::size_t ld = width + 3;  // a panel inside a wider matrix
      std::vector<double> a(rows * ld);
      fill_uniform(a, 5, 1);
      std::vector<double> reference = a;
      const std::vector<std::size_t> expected = factor_unblocked(rows, width, reference.data(), ld);
      std::vector<std::size_t> pivots(width);
      factor_panel(rows, width, a.data(), ld, pivots.data());
      EXPECT_EQ(pivots, expected) << rows << " x " << width;
      for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 0; j < ld; ++j)
          ASSERT_NEAR(a[i * ld + j], reference[i * ld + j], 1e-10) << rows << " x " << width << " at " << i << ", " << j;
      }
    }
  }
  std::vector<double> singular{1, 2, 2, 4, 3, 6};  // 3 x 2, second column dependent
  std::vector<std::size_t> pivots(2);
  EXPECT_THROW(factor_panel(3, 2, singular.data(), 2, pivots.data(), 10), Error);
}

TEST(LuSolve, BlockedFactorsSolveRandomSystems) {
  for (std::size_t n : {1u, 2u, 9u, 40u, 131u}) {
    for (std::size_t nb : {1u, 8u, 16u, 128u}) {
      std::vector<double> m(n * (n + 1));
      fill_uniform(m, 3, 7);
      const std::vector<double> original = m;
      const std::vector<double> x = solve_blocked(n, m, nb);
      EXPECT_LT(scaled_residual(n, original, x), residual_bound) << "N=" << n << " NB=" << nb;
    }
  }
}

TEST(LuSolve, ForwardThenBackSubstitution) {
  // L = [1 0; 0.5 1], U = [2 1; 0 4], c = (4, 6): y = (4, 4), x = (1.5, 1).
  std::vector<double> factors{2, 1, 4, 0.5, 4, 6};
  const std::vector<double> x = solve_with_factors(2, factors);
  EXPECT_DOUBLE_EQ(x[0], 1.5);
  EXPECT_DOUBLE_EQ(x[1], 1);
}

TEST(LuSolve, ResidualCatchesACorruptedFactor) {
  const std::size_t n = 60;
  std::vector<double> m(n * (n + 1));
  fill_uniform(m, 3, 7);
  const std::vector<double> original = m;
  (void)solve_blocked(n, m, 16);
  m[40 * (n + 1) + 20] += 1e-6;  // one entry of L
  const std::vector<double> x = solve_with_factors(n, m);
  EXPECT_GT(scaled_residual(n, original, x), residual_bound);
}

TEST(LuWork, OnlyTheLeadingTerm) {
  EXPECT_DOUBLE_EQ(builtin_work("lu", 3), 18);
  EXPECT_DOUBLE_EQ(builtin_work("lu", 300), 2.0 / 3 * 27e6);
}

}  // namespace
}  // namespace hetscale::kernels
