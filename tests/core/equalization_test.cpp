#include "hetscale/equalization.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "hetscale/error.hpp"

namespace hetscale {
namespace {

double total(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

TEST(Equalization, StepOneIsProportionalToMeanSpeed) {
  const std::vector<VariableComputer> computers{{1, 0.5}, {3, 0.1}};
  const auto p = proportional_partition(computers, 8);
  EXPECT_DOUBLE_EQ(p.work[0], 2);
  EXPECT_DOUBLE_EQ(p.work[1], 6);
  EXPECT_DOUBLE_EQ(p.mean_time[0], 2);
  EXPECT_DOUBLE_EQ(p.mean_time[1], 2);
  EXPECT_DOUBLE_EQ(p.time_sd[0], 0.5 * std::sqrt(2.0));
  EXPECT_GT(p.degree, 0);
}

TEST(Equalization, ExactSolutionOnTwoComputersByHand) {
  // Equal speeds, one steady (k = 0), one varying (k = 1), X = 2: t1 = t2 + sqrt(t2) and
  // t1 + t2 = 2 give 2 r^2 + r - 2 = 0 with r = sqrt(t2): r = (sqrt(17) - 1) / 4.
  const std::vector<VariableComputer> computers{{1, 0}, {1, 1}};
  const auto p = equalized_partition(computers, 2);
  const double r = (std::sqrt(17.0) - 1) / 4;
  EXPECT_NEAR(p.work[1], r * r, 1e-12);
  EXPECT_NEAR(p.work[0], 2 - r * r, 1e-12);
  EXPECT_NEAR(p.mean_time[0] + p.time_sd[0], p.mean_time[1] + p.time_sd[1], 1e-12);
  EXPECT_NEAR(p.degree, 0, 1e-9);
  EXPECT_TRUE(p.note.empty());
}

TEST(Equalization, MoreWorkGoesToSteadierComputers) {
  const std::vector<VariableComputer> computers{{2, 0.2}, {2, 0.8}, {2, 0.5}};
  const auto p = equalized_partition(computers, 600);
  EXPECT_GT(p.work[0], p.work[2]);
  EXPECT_GT(p.work[2], p.work[1]);
  EXPECT_NEAR(total(p.work), 600, 1e-9);
}

TEST(Equalization, ManyRandomComputersAreEqualizedExactly) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> speed(0.5, 4), variation(0, 2);
  std::vector<VariableComputer> computers(500);
  for (auto& c : computers) c = {speed(rng), variation(rng)};
  const auto step1 = proportional_partition(computers, 1e5);
  const auto step2 = equalized_partition(computers, 1e5);
  EXPECT_GT(step1.degree, 0.5);
  EXPECT_LT(step2.degree, 1e-9);
  EXPECT_NEAR(total(step2.work), 1e5, 1e-6);
  const double finish = step2.mean_time[0] + step2.time_sd[0];
  for (std::size_t i = 0; i < computers.size(); ++i)
    ASSERT_NEAR(step2.mean_time[i] + step2.time_sd[i], finish, 1e-9 * finish) << i;
  // The slowest finisher of step 1 finishes earlier after step 2.
  double worst1 = 0;
  for (std::size_t i = 0; i < computers.size(); ++i)
    worst1 = std::max(worst1, step1.mean_time[i] + step1.time_sd[i]);
  EXPECT_LT(finish, worst1);
}

TEST(Equalization, LinearisationIsCloseForSmallVariation) {
  const std::vector<VariableComputer> computers{{1, 0.01}, {2, 0.05}, {1.5, 0.02}};
  const auto exact = equalized_partition(computers, 3000);
  const auto linear = linearised_partition(computers, 3000);
  for (std::size_t i = 0; i < computers.size(); ++i)
    EXPECT_NEAR(linear.work[i], exact.work[i], 1e-3 * exact.work[i]) << i;
  EXPECT_NEAR(total(linear.work), 3000, 1e-9);
  EXPECT_LT(linear.degree, 0.01);
}

TEST(Equalization, LinearisationNeverGivesNegativeWork) {
  const std::vector<VariableComputer> computers{{1, 0}, {1, 40}};
  const auto p = linearised_partition(computers, 2);
  EXPECT_EQ(p.work[1], 0);
  EXPECT_DOUBLE_EQ(p.work[0], 2);
  EXPECT_EQ(p.note, "the linearisation gave some computers negative work; they get none");
  const auto exact = equalized_partition(computers, 2);
  EXPECT_GT(exact.work[1], 0);  // the exact scheme never needs that: t'_i(L) > 0 for L > 0
}

TEST(Equalization, DegenerateInputsAreExplained) {
  const std::vector<VariableComputer> steady{{1, 0}, {3, 0}};
  auto p = equalized_partition(steady, 4);
  EXPECT_DOUBLE_EQ(p.work[0], 1);
  EXPECT_EQ(p.note, "no computer varies: step 2 leaves step 1 unchanged");
  const std::vector<VariableComputer> single{{2, 0.7}};
  p = equalized_partition(single, 5);
  EXPECT_DOUBLE_EQ(p.work[0], 5);
  EXPECT_EQ(p.note, "a single computer takes all the work");
}

TEST(Equalization, BadInputs) {
  const std::vector<VariableComputer> none;
  EXPECT_THROW(equalized_partition(none, 1), Error);
  const std::vector<VariableComputer> zero_speed{{0, 1}};
  try {
    equalized_partition(zero_speed, 1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "computer 0: mean speed must be positive and finite");
  }
  const std::vector<VariableComputer> negative{{1, -1}};
  EXPECT_THROW(proportional_partition(negative, 1), Error);
  const std::vector<VariableComputer> ok{{1, 1}};
  EXPECT_THROW(linearised_partition(ok, 0), Error);
  EXPECT_DOUBLE_EQ(variation_from_heterogeneity(0.5, 4), 1.0);
}

}  // namespace
}  // namespace hetscale
