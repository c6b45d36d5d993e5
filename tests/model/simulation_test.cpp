#include "hetscale/model/simulation.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hetscale/base/error.hpp"
#include "hetscale/model/equalization.hpp"

namespace hetscale {
namespace {

SimulationOptions quick(std::size_t repetitions = 400) {
  SimulationOptions o;
  o.repetitions = repetitions;
  o.seed = 11;
  o.threads = 2;
  return o;
}

TEST(Simulation, WithoutVariationTheTimeIsExact) {
  const std::vector<SimulatedComputer> computers{{1, 1, 0}, {4, 0.5, 0}};
  const std::vector<double> work{2, 2};  // 2 / 1 = 2 and 2 / (4 * 0.5) = 1
  auto options = quick();
  options.sync_points = 5;
  const auto r = simulate(computers, work, options);
  EXPECT_NEAR(r.tau, 2, 1e-12);
  EXPECT_NEAR(r.sigma_t, 0, 1e-12);
  EXPECT_EQ(r.risk_factor, 0);
}

TEST(Simulation, ReproducibleWhateverTheThreadCount) {
  const std::vector<SimulatedComputer> computers{{1, 0.5, 0.2}, {2, 0.5, 0.1}, {1, 0.6, 0.15}};
  const std::vector<double> work{50, 100, 60};
  auto options = quick(300);
  options.threads = 1;
  const auto one = simulate(computers, work, options);
  options.threads = 2;
  const auto two = simulate(computers, work, options);
  options.threads = 7;
  const auto seven = simulate(computers, work, options);
  EXPECT_EQ(one.tau, two.tau);
  EXPECT_EQ(one.sigma_t, seven.sigma_t);
  options.seed = 12;
  EXPECT_NE(simulate(computers, work, options).tau, one.tau);
}

TEST(Simulation, MeanTimeMatchesTheModelForOneComputer) {
  // One computer, availability mean 0.5: E[T] ~ X / (alpha a) and sigma_T ~ TH sqrt(t * 2I/3).
  const std::vector<SimulatedComputer> computers{{1, 0.5, 0.2}};
  const std::vector<double> work{500};
  auto options = quick(4000);
  options.max_interval = 2;
  const auto r = simulate(computers, work, options);
  const double t = 500 / 0.5;
  EXPECT_NEAR(r.tau, t, 0.01 * t);
  const double k =
      variation_from_heterogeneity(0.2 / 0.5, correlation_time_of_uniform_intervals(2));
  EXPECT_NEAR(r.sigma_t, k * std::sqrt(t), 0.1 * k * std::sqrt(t));
}

TEST(Simulation, TauGrowsWithHeterogeneitySyncPointsAndIntervals) {
  const std::vector<double> work{100, 100, 100, 100};
  auto tau = [&](double sd, std::size_t sync, double interval) {
    std::vector<SimulatedComputer> computers(4, {1, 0.5, sd});
    auto options = quick(600);
    options.sync_points = sync;
    options.max_interval = interval;
    return simulate(computers, work, options).tau;
  };
  EXPECT_LT(tau(0.05, 1, 20), tau(0.15, 1, 20));
  EXPECT_LT(tau(0.15, 1, 20), tau(0.25, 1, 20));
  EXPECT_LT(tau(0.2, 1, 5), tau(0.2, 10, 5));
  EXPECT_LT(tau(0.2, 1, 2), tau(0.2, 1, 40));
}

TEST(Simulation, VariableComputersAreTheModelsView) {
  // s = alpha a; k = TH sqrt(2 I / 3) with TH = sigma_A / a: I = 6 gives sqrt(4) = 2.
  const std::vector<SimulatedComputer> computers{{2, 0.5, 0.1}, {1, 1, 0}};
  const auto model = variable_computers(computers, 6);
  ASSERT_EQ(model.size(), 2u);
  EXPECT_DOUBLE_EQ(model[0].speed, 1);
  EXPECT_DOUBLE_EQ(model[0].variation, 0.2 * 2);
  EXPECT_DOUBLE_EQ(model[1].speed, 1);
  EXPECT_EQ(model[1].variation, 0);
  EXPECT_DOUBLE_EQ(model[0].variation,
                   variation_from_heterogeneity(0.1 / 0.5, correlation_time_of_uniform_intervals(6)));
  EXPECT_THROW((void)variable_computers(computers, 0), Error);
}

TEST(Simulation, EqualizationHelpsOnManyNodesOfMixedVariability) {
  std::vector<SimulatedComputer> computers;
  for (int i = 0; i < 4; ++i) computers.push_back({1, 0.5, 0.05});
  for (int i = 0; i < 4; ++i) computers.push_back({2, 0.5, 0.25});
  auto options = quick(800);
  options.max_interval = 10;
  const auto model = variable_computers(computers, options.max_interval);
  const auto step1 = proportional_partition(model, 1200);
  const auto step2 = equalized_partition(model, 1200);
  EXPECT_GT(step2.work[0], step1.work[0]);  // more work to the steadier computers
  EXPECT_LT(simulate(computers, step2.work, options).tau,
            simulate(computers, step1.work, options).tau);
}

TEST(Simulation, OptimiserIsNeverWorseThanItsStart) {
  // One steady and one very variable computer: here equalizing t + sigma overshoots (the
  // steady one becomes the straggler; the best split is close to proportional), which the
  // optimiser measures and corrects.
  const std::vector<SimulatedComputer> computers{{1, 0.5, 0.02}, {1, 0.5, 0.28}};
  auto options = quick(800);
  options.max_interval = 10;
  const auto step2 = equalized_partition(variable_computers(computers, options.max_interval), 200);
  const auto best = optimise_partition(computers, step2.work, options);
  EXPECT_NEAR(best[0] + best[1], 200, 1e-9);
  EXPECT_LE(simulate(computers, best, options).tau, simulate(computers, step2.work, options).tau);
}

TEST(Simulation, RiskFactorAgainstADeadline) {
  const std::vector<SimulatedComputer> computers{{1, 0.5, 0.2}};
  const std::vector<double> work{100};
  auto options = quick();
  options.deadline = 1e9;
  EXPECT_EQ(simulate(computers, work, options).risk_factor, 0);
  options.deadline = 1;
  EXPECT_EQ(simulate(computers, work, options).risk_factor, 1);
  options.deadline = 0;  // tau itself: somewhere in between
  const auto r = simulate(computers, work, options);
  EXPECT_GT(r.risk_factor, 0.2);
  EXPECT_LT(r.risk_factor, 0.8);
}

TEST(Simulation, CommunicationPhasesAddTime) {
  const std::vector<SimulatedComputer> computers{{1, 1, 0}, {1, 1, 0}};
  const std::vector<double> work{10, 10};
  auto options = quick();
  options.sync_points = 4;
  options.communication_time = 0.5;
  EXPECT_NEAR(simulate(computers, work, options).tau, 10 + 4 * 0.5, 1e-12);
}

/// E[max_i 1 / A_i] for `count` independent availabilities uniform on [low, high]: the
/// slowest communication of a phase (midpoint rule on the minimum's density).
double expected_slowest(int count, double low, double high) {
  const int steps = 200000;
  const double width = high - low;
  double sum = 0;
  for (int k = 0; k < steps; ++k) {
    const double m = low + (k + 0.5) * width / steps;
    sum += count / width * std::pow((high - m) / width, count - 1) / m * width / steps;
  }
  return sum;
}

TEST(Simulation, EachComputerDrawsItsOwnNetworkAvailability) {
  // Steady computers, one phase of one time unit each, then communication of 1 at full
  // bandwidth with network availability uniform on 0.5 -/+ sqrt(3) 0.2. With one draw per
  // computer the communication lasts E[max_i 1/A_i], which grows with the number of
  // computers; a draw shared by all would give E[1/A] whatever their number.
  const double low = 0.5 - std::sqrt(3.0) * 0.2;
  const double high = 0.5 + std::sqrt(3.0) * 0.2;
  auto options = quick();
  options.repetitions = 4000;
  options.communication_time = 1;
  options.network_availability = 0.5;
  options.network_availability_sd = 0.2;
  for (int count : {1, 2, 8}) {
    const std::vector<SimulatedComputer> computers(static_cast<std::size_t>(count), {1, 1, 0});
    const std::vector<double> work(static_cast<std::size_t>(count), 1.0);
    const double communication = simulate(computers, work, options).tau - 1;
    EXPECT_NEAR(communication, expected_slowest(count, low, high),
                0.03 * expected_slowest(count, low, high))
        << count;
  }
  EXPECT_NEAR(expected_slowest(1, low, high), std::log(high / low) / (high - low), 1e-6);
  EXPECT_GT(expected_slowest(8, low, high), 1.8 * expected_slowest(1, low, high));
}

TEST(Simulation, BadInput) {
  const std::vector<SimulatedComputer> computers{{1, 0.5, 0.4}};
  const std::vector<double> work{1};
  try {
    simulate(computers, work, quick());
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "computer 0: availability would leave [0, 1] (mean 0.5, sd 0.4: a +/- sqrt(3) sd "
                 "reaches [-0.1928, 1.193])");
  }
  auto options = quick();
  options.distribution = AvailabilityDistribution::beta;
  EXPECT_NO_THROW(simulate(computers, work, options));
  const std::vector<double> two{1, 2};
  EXPECT_THROW(simulate(computers, two, quick()), Error);
  EXPECT_THROW(parse_availability_distribution("normal"), Error);
  EXPECT_EQ(parse_availability_distribution("two-point"), AvailabilityDistribution::two_point);
}

}  // namespace
}  // namespace hetscale
