// The compute parts of the kernels, and the answer checks, on one process.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "hetscale/base/error.hpp"
#include "serial/blas.hpp"
#include "serial/elimination.hpp"
#include "serial/fft.hpp"
#include "serial/random_fill.hpp"
#include "serial/work_formula.hpp"

namespace hetscale::kernels {
namespace {

TEST(RandomFill, ReproducibleAndAddressable) {
  std::vector<double> whole(10), tail(4);
  fill_uniform(whole, 5, 1);
  fill_uniform(tail, 5, 1, 6);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(tail[i], whole[6 + i]);
  for (double v : whole) {
    EXPECT_GE(v, -1.0);
    EXPECT_LT(v, 1.0);
  }
  EXPECT_NE(uniform_at(5, 1, 0), uniform_at(5, 2, 0));
}

std::vector<double> product(std::size_t n, const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> c(n * n);
  multiply(n, n, a.data(), b.data(), c.data());
  return c;
}

TEST(Freivalds, AcceptsTheProductAndCatchesOneWrongEntry) {
  for (std::size_t n : {1u, 7u, 64u}) {
    std::vector<double> a(n * n), b(n * n);
    fill_uniform(a, 1, 1);
    fill_uniform(b, 1, 2);
    std::vector<double> c = product(n, a, b);
    EXPECT_TRUE(freivalds_check(n, a, b, c, 9).ok) << n;
    c[(n * n) / 2] += 1e-6;
    EXPECT_FALSE(freivalds_check(n, a, b, c, 9).ok) << n;
  }
}

TEST(Blas, ConcurrentSingleThreadedCallsAgreeWithOneCall) {
  // The marked-speed benchmark calls dgemm from one thread per processor at once.
  use_single_threaded_blas();
  const std::size_t n = 96;
  std::vector<double> a(n * n), b(n * n);
  fill_uniform(a, 3, 1);
  fill_uniform(b, 3, 2);
  const std::vector<double> expected = product(n, a, b);
  std::vector<std::vector<double>> results(4);
  {
    std::vector<std::jthread> threads;
    for (auto& result : results) {
      threads.emplace_back([&] {
        for (int i = 0; i < 20; ++i) result = product(n, a, b);
      });
    }
  }
  for (const auto& result : results) EXPECT_EQ(result, expected);
}

TEST(Elimination, SolvesWithSmallScaledResidual) {
  for (std::size_t n : {1u, 2u, 17u, 120u}) {
    std::vector<double> augmented(n * (n + 1));
    fill_uniform(augmented, 2, 3);
    const std::vector<double> original = augmented;
    const std::vector<double> x = solve_serial(n, augmented);
    EXPECT_LT(scaled_residual(n, original, x), residual_bound) << n;
  }
}

TEST(Elimination, ResidualCatchesAWrongSolution) {
  const std::size_t n = 30;
  std::vector<double> augmented(n * (n + 1));
  fill_uniform(augmented, 2, 3);
  const std::vector<double> original = augmented;
  std::vector<double> x = solve_serial(n, augmented);
  x[3] *= 1.0 + 1e-9;
  EXPECT_GT(scaled_residual(n, original, x), residual_bound);
}

TEST(Elimination, NeedsPivoting) {
  // a11 = 0: without a row swap the first step divides by zero.
  std::vector<double> augmented{0, 1, 2, 1, 1, 3};  // y = 2, x + y = 3
  const std::vector<double> x = solve_serial(2, augmented);
  EXPECT_DOUBLE_EQ(x[0], 1);
  EXPECT_DOUBLE_EQ(x[1], 2);
}

TEST(Elimination, SingularIsAnError) {
  std::vector<double> augmented{1, 2, 1, 2, 4, 2};
  EXPECT_THROW((void)solve_serial(2, augmented), Error);
}

TEST(Convolution, FftMatchesTheDefinitionForAnyN) {
  for (std::size_t n : {1u, 2u, 5u, 12u, 17u}) {
    std::vector<Complex> x(n * n), y(n * n);
    fill_uniform(x, 4, 4);
    fill_uniform(y, 4, 5);
    const std::vector<Complex> expected = convolve_direct(n, x, y);
    const std::vector<Complex> got = convolve_fft(n, x, y);
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_LT(std::abs(got[i] - expected[i]), 1e-12) << n;
  }
}

// Measured plans overwrite the buffer while planning, so the data is written after;
// they compute the same transform as estimated ones.
TEST(FftRows, MeasuredPlansGiveTheSameTransformAsEstimatedOnes) {
  const std::size_t n = 24, count = 3;
  std::vector<Complex> estimated(n * count), measured(n * count);
  FftRows estimate(n, count, estimated.data(), FftDirection::forward, FftPlanning::estimate);
  FftRows measure(n, count, measured.data(), FftDirection::forward, FftPlanning::measure);
  fill_uniform(estimated, 4, 9);
  fill_uniform(measured, 4, 9);
  estimate.execute();
  measure.execute();
  for (std::size_t i = 0; i < estimated.size(); ++i)
    EXPECT_LT(std::abs(estimated[i] - measured[i]), 1e-9 * n) << i;
}

TEST(FftWisdom, SavedWisdomReadsBackAndAnythingElseIsRefused) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hetscale-wisdom-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<Complex> data(64 * 4);
  FftRows plan(64, 4, data.data(), FftDirection::backward, FftPlanning::measure);
  export_fft_wisdom(dir / "wisdom");
  EXPECT_TRUE(import_fft_wisdom(dir / "wisdom"));
  EXPECT_FALSE(import_fft_wisdom(dir / "absent"));
  { std::ofstream(dir / "garbage") << "not wisdom\n"; }
  EXPECT_FALSE(import_fft_wisdom(dir / "garbage"));
  EXPECT_FALSE(import_fft_wisdom(dir));  // a directory is not a regular file
  std::filesystem::remove_all(dir);
}

TEST(Convolution, DeltaShifts) {
  const std::size_t n = 6;
  std::vector<Complex> x(n * n), delta(n * n);
  fill_uniform(x, 4, 4);
  delta[1 * n + 2] = 1;
  const std::vector<Complex> z = convolve_direct(n, x, delta);
  EXPECT_EQ(z[3 * n + 4], x[2 * n + 2]);
  EXPECT_EQ(z[0 * n + 1], x[5 * n + 5]);
}

TEST(WorkFormula, ReferenceCodes) {
  EXPECT_DOUBLE_EQ(builtin_work("mm", 10), 2000);
  EXPECT_NEAR(builtin_work("ge", 3), 2.0 / 3 * 27 - 4.5 - 9.5 + 3, 1e-12);
  EXPECT_DOUBLE_EQ(builtin_work("conv2d", 4), 66 * 16 * 2 + 21 * 16 + 84 * 4 * 2);
  EXPECT_THROW((void)builtin_work("fft", 4), Error);
}

}  // namespace
}  // namespace hetscale::kernels
