#include "hetscale/jobgen/problem_sizes.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "hetscale/base/error.hpp"

namespace hetscale::jobgen {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

TEST(GeometricValues, KeepsBothEndsAndAConstantRatio) {
  EXPECT_THAT(geometric_values(100, 800, 4, false),
              Pointwise(DoubleNear(1e-9), std::vector<double>{100, 200, 400, 800}));
  const auto v = geometric_values(3, 7, 5, false);
  ASSERT_EQ(v.size(), 5U);
  for (std::size_t i = 1; i + 1 < v.size(); ++i) EXPECT_NEAR(v[i] / v[i - 1], v[i + 1] / v[i], 1e-12);
}

TEST(GeometricValues, RoundsToWholeNumbersAndDropsRepeats) {
  EXPECT_THAT(geometric_values(400, 1600, 5, true), ElementsAre(400, 566, 800, 1131, 1600));
  EXPECT_THAT(geometric_values(1, 3, 6, true), ElementsAre(1, 2, 3));
}

TEST(ParameterForWork, InvertsACubicWorkload) {
  const auto w = Workload::parse("2*N^3");
  // W(N') = 2 W(1000) gives N' = 1000 * 2^(1/3).
  EXPECT_NEAR(parameter_for_work(w, 2 * 2e9, 1000), 1000 * std::cbrt(2.0), 1e-6);
  EXPECT_DOUBLE_EQ(parameter_for_work(w, 2e9, 1000), 1000);
}

TEST(ParameterForWork, InvertsTheConvolutionWorkload) {
  const auto w = Workload::parse("conv2d");
  const double n = parameter_for_work(w, 3 * w.evaluate({{"N", 512.0}}), 512);
  EXPECT_NEAR(w.evaluate({{"N", n}}) / w.evaluate({{"N", 512.0}}), 3, 1e-9);
}

TEST(ParameterForWork, FailsWhenTheWorkNeverGrowsEnough) {
  const auto w = Workload::parse("1e3 + 0*N");
  EXPECT_THROW(
      {
        try {
          (void)parameter_for_work(w, 2e3, 10);
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "no parameter value below 1e15 gives the work 2000");
          throw;
        }
      },
      Error);
}

TEST(ScaledValues, TheFirstSetKeepsItsSizes) {
  const auto w = Workload::parse("2*N^3");
  EXPECT_THAT(scaled_values(w, {100, 250, 400}, {1, 0.7, 0}, true), ElementsAre(100, 250, 400));
}

TEST(ScaledValues, PsiOneAtTheBottomAndPsiFloorToThePowerKAtTheTop) {
  const auto w = Workload::parse("2*N^3");
  // Set 2 has 4 times the marked speed of set 0; psi_floor 0.5 per step: the top allows
  // W' = W * 4 / 0.25 = 16 W.
  const auto v = scaled_values(w, {100, 200, 400}, {4, 0.5, 2}, false);
  ASSERT_EQ(v.size(), 3U);
  EXPECT_NEAR(v[0], 100 * std::cbrt(4.0), 1e-6);
  EXPECT_NEAR(v[2], 400 * std::cbrt(16.0), 1e-6);
  EXPECT_NEAR(v[1], std::sqrt(v[0] * v[2]), 1e-6);
}

}  // namespace
}  // namespace hetscale::jobgen
