#include "hetscale/model/equalization.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>

#include "hetscale/base/error.hpp"

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

TEST(Equalization, DescribePartitionGivesTimesSpreadsAndDegree) {
  // t = X / s: 2 and 4; sigma_T = k sqrt(t): 0 and 2; finishes 2 and 6 around 4: 50 %.
  const std::vector<VariableComputer> computers{{1, 0}, {0.5, 1}};
  const auto p = describe_partition(computers, {2, 2});
  EXPECT_EQ(p.work, (std::vector<double>{2, 2}));
  EXPECT_EQ(p.mean_time, (std::vector<double>{2, 4}));
  EXPECT_EQ(p.time_sd, (std::vector<double>{0, 2}));
  EXPECT_DOUBLE_EQ(p.degree, 50);
  EXPECT_DOUBLE_EQ(p.degree, equalization_degree(p.mean_time, p.time_sd));
  // The partitions of this file are described the same way.
  const auto step1 = proportional_partition(computers, 9);
  EXPECT_EQ(describe_partition(computers, step1.work).time_sd, step1.time_sd);
  try {
    (void)describe_partition(computers, {1, 2, 3});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the partition has 3 parts for 2 computers");
  }
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

// ---- The modelled tau, the optimum and step 2 by case ----------------------------------

/// Clark's closed form of E[max(X1, X2)] for independent normals.
double clark(double m1, double s1, double m2, double s2) {
  const double theta = std::sqrt(s1 * s1 + s2 * s2);
  const double alpha = (m1 - m2) / theta;
  const double cdf = 0.5 * std::erfc(-alpha / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * alpha * alpha) / std::sqrt(2 * std::numbers::pi);
  return m1 * cdf + m2 * (1 - cdf) + theta * pdf;
}

/// The paper's example: t_i = 100 at step 1, sigma_T 10 on the slow computer and 60 on the
/// fast one, s_2 / s_1 = 8.
const std::vector<VariableComputer> kWorkedExample{{1, 1}, {8, 6}};

TEST(ModelledTau, MatchesClarksFormulaOnTwoComputers) {
  for (const auto& [x1, x2] : std::vector<std::pair<double, double>>{
           {100, 800}, {60, 840}, {150, 750}, {0.5, 899.5}}) {
    const std::vector<double> work{x1, x2};
    const double t2 = x2 / 8;
    EXPECT_NEAR(modelled_tau(kWorkedExample, work), clark(x1, std::sqrt(x1), t2, 6 * std::sqrt(t2)),
                1e-8 * t2)
        << x1;
  }
  // A computer that does not vary: E[max(c, N)] = c + E[(N - c)^+].
  const std::vector<VariableComputer> mixed{{1, 0}, {1, 1}};
  const std::vector<double> work{1, 1};
  const double expected = 1 + 1 / std::sqrt(2 * std::numbers::pi);  // mean 1, sd 1, c = 1
  EXPECT_NEAR(modelled_tau(mixed, work), expected, 1e-9);
  const std::vector<VariableComputer> steady{{1, 0}, {2, 0}};
  EXPECT_DOUBLE_EQ(modelled_tau(steady, std::vector<double>{3, 4}), 3);
}

TEST(ModelledTau, GradientMatchesFiniteDifferences) {
  const std::vector<VariableComputer> computers{{1, 1}, {2, 3}, {1.5, 0}, {4, 0.5}};
  const std::vector<double> work{90, 230, 150, 380};
  std::vector<double> gradient;
  const double tau = modelled_tau(computers, work, &gradient);
  ASSERT_EQ(gradient.size(), 4u);
  for (std::size_t i = 0; i < work.size(); ++i) {
    auto up = work;
    auto down = work;
    up[i] += 1e-3;
    down[i] -= 1e-3;
    const double numeric = (modelled_tau(computers, up) - modelled_tau(computers, down)) / 2e-3;
    EXPECT_NEAR(gradient[i], numeric, 1e-5 + 1e-4 * std::abs(numeric)) << i;
  }
  EXPECT_GT(tau, 100);
}

TEST(ModelledTau, BadInputs) {
  const std::vector<VariableComputer> none;
  EXPECT_THROW(modelled_tau(none, std::vector<double>{}), Error);
  try {
    modelled_tau(kWorkedExample, std::vector<double>{1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the partition has 1 parts for 2 computers");
  }
  try {
    modelled_tau(kWorkedExample, std::vector<double>{1, -1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "computer 1: work must be >= 0 and finite");
  }
  const std::vector<VariableComputer> zero_speed{{0, 1}};
  EXPECT_THROW(modelled_tau(zero_speed, std::vector<double>{1}), Error);
}

TEST(TwoStep, TheWorkedExampleMovesWorkToTheFastComputer) {
  const auto r = two_step_partition(kWorkedExample, 900);
  EXPECT_NEAR(r.tau_step1, 124.27, 0.01);  // 100 + sqrt(10^2 + 60^2) / sqrt(2 pi)
  EXPECT_NEAR(r.tau_equalized, 149, 1.5);
  EXPECT_NEAR(r.tau_step2, 112, 1.5);
  EXPECT_EQ(r.which, EqualizationCase::slow_steady_far);
  EXPECT_EQ(case_key(r.which), "slow-steady-far");
  // Equalization moves work to the slow computer; step 2 moves it the other way.
  EXPECT_GT(r.equalized.work[0], r.step1.work[0]);
  EXPECT_LT(r.step2.work[0], r.step1.work[0]);
  EXPECT_GT(std::abs(r.step2.work[0] - r.equalized.work[0]), 50);
  EXPECT_NEAR(total(r.step2.work), 900, 1e-9);
  EXPECT_NEAR(modelled_tau(kWorkedExample, r.step2.work), r.tau_step2, 1e-9);
  EXPECT_EQ(r.step2.note, case_description(r.which));
}

struct TableCase {
  const char* name;
  std::vector<VariableComputer> computers;  // C_1 first
  EqualizationCase expected;
  bool work_to_c2;
};

TEST(TwoStep, EachCaseOfTableOneMovesWorkItsWayAndNeverLengthensTau) {
  const std::vector<TableCase> cases{
      {"s1 = s2, sigma1 > sigma2", {{1, 3}, {1, 1}}, EqualizationCase::equal_speeds, true},
      {"s1 < s2, sigma1 > sigma2", {{1, 3}, {2, 1}}, EqualizationCase::slow_unsteady, true},
      {"s1 << s2, sigma1 < sigma2", {{1, 1}, {8, 6}}, EqualizationCase::slow_steady_far, true},
      {"s1 ~ s2, sigma1 < sigma2", {{1, 1}, {1.05, 3}}, EqualizationCase::slow_steady_close,
       false},
  };
  for (const auto& c : cases) {
    double total_work = 0;
    for (const auto& computer : c.computers) total_work += 100 * computer.speed;
    const auto r = two_step_partition(c.computers, total_work);
    EXPECT_EQ(r.which, c.expected) << c.name << ": " << case_key(r.which);
    EXPECT_EQ(r.step2.work[1] > r.step1.work[1], c.work_to_c2) << c.name;
    EXPECT_LT(r.tau_step2, r.tau_step1) << c.name;
    EXPECT_LE(r.tau_step2, r.tau_equalized + 1e-9) << c.name;
    // On two computers the size is the best along the only direction: the optimum.
    EXPECT_NEAR(r.tau_step2, modelled_tau(c.computers, optimal_partition(c.computers, total_work).work),
                1e-6 * r.tau_step2)
        << c.name;
  }
}

TEST(TwoStep, NeverWorseThanStepOneOnRandomSystems) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> speed(0.5, 8), variation(0, 4);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<VariableComputer> computers(2 + trial % 6);
    double total_work = 0;
    for (auto& c : computers) {
      c = {speed(rng), trial % 7 == 0 ? 0.0 : variation(rng)};
      total_work += 100 * c.speed;
    }
    const auto r = two_step_partition(computers, total_work);
    ASSERT_LE(r.tau_step2, r.tau_step1) << trial;
    ASSERT_NEAR(total(r.step2.work), total_work, 1e-9 * total_work) << trial;
    for (double x : r.step2.work) ASSERT_GE(x, 0) << trial;
    if (r.which == EqualizationCase::none) {
      EXPECT_EQ(r.step2.work, r.step1.work) << trial;
    }
  }
  const std::vector<VariableComputer> steady{{1, 0}, {3, 0}};
  EXPECT_EQ(two_step_partition(steady, 400).which, EqualizationCase::none);
  const std::vector<VariableComputer> alike{{2, 1}, {2, 1}, {2, 1}};
  const auto r = two_step_partition(alike, 600);
  EXPECT_EQ(r.which, EqualizationCase::none);
  EXPECT_EQ(r.step2.work, r.step1.work);
}

/// The least modelled tau over a grid of the simplex: `steps` points per axis, then a finer
/// grid around the best point.
double brute_force(const std::vector<VariableComputer>& computers, double total_work, int steps) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> centre(computers.size());
  double width = total_work;
  for (int round = 0; round < 3; ++round) {
    const double h = width / steps;
    std::vector<double> found = centre;
    const std::vector<double> from = centre;
    auto consider = [&](const std::vector<double>& work) {
      const double tau = modelled_tau(computers, work);
      if (tau < best) best = tau, found = work;
    };
    if (computers.size() == 2) {
      for (int a = -steps; a <= steps; ++a) {
        const double x = round == 0 ? (a + steps) * total_work / (2 * steps) : from[0] + a * h / 2;
        if (x < 0 || x > total_work) continue;
        consider({x, total_work - x});
      }
    } else {
      for (int a = -steps; a <= steps; ++a)
        for (int b = -steps; b <= steps; ++b) {
          const double x = round == 0 ? (a + steps) * total_work / (2 * steps) : from[0] + a * h / 2;
          const double y = round == 0 ? (b + steps) * total_work / (2 * steps) : from[1] + b * h / 2;
          if (x < 0 || y < 0 || x + y > total_work) continue;
          consider({x, y, std::max(0.0, total_work - x - y)});
        }
    }
    centre = found;
    width = 2 * h;
  }
  return best;
}

TEST(Optimum, MatchesBruteForceOnTwoAndThreeComputers) {
  const std::vector<std::vector<VariableComputer>> systems{
      {{1, 1}, {8, 6}},
      {{1, 3}, {1, 0.5}},
      {{1, 2}, {3, 2}},
      {{1, 1}, {2, 4}, {4, 0.5}},
      {{1, 0}, {1, 2}, {1, 5}},
      {{2, 3}, {1, 0.2}, {6, 1.5}},
  };
  for (std::size_t s = 0; s < systems.size(); ++s) {
    const auto& computers = systems[s];
    double total_work = 0;
    for (const auto& c : computers) total_work += 100 * c.speed;
    const auto best = optimal_partition(computers, total_work);
    const double tau = modelled_tau(computers, best.work);
    const double brute = brute_force(computers, total_work, computers.size() == 2 ? 400 : 60);
    EXPECT_LE(tau, brute + 1e-6 * brute) << s;
    EXPECT_GE(tau, brute - 1e-3 * brute) << s;  // the grid is fine enough to come close
    EXPECT_NEAR(total(best.work), total_work, 1e-9 * total_work) << s;
    // And the heuristic is never better than the optimum.
    EXPECT_GE(two_step_partition(computers, total_work).tau_step2, tau - 1e-9 * tau) << s;
  }
}

}  // namespace
}  // namespace hetscale
