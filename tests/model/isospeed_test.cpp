#include "hetscale/model/isospeed.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale::isospeed {
namespace {

template <typename F>
void expect_error(F&& f, const char* message) {
  try {
    f();
    ADD_FAILURE() << "no error, expected: " << message;
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), message);
  }
}

TEST(Isospeed, SystemMarkedSpeedIsTheSum) {
  const std::vector<double> speeds{20.29, 20.29, 40.0};
  EXPECT_DOUBLE_EQ(system_marked_speed(speeds), 80.58);
  // Homogeneous: C = p C_1.
  const std::vector<double> four(4, 12.5);
  EXPECT_EQ(system_marked_speed(four), 50.0);
}

TEST(Isospeed, AchievedSpeedAndSpeedEfficiency) {
  EXPECT_EQ(achieved_speed(2e9, 4), 5e8);
  // W = 2e9 flop in T = 10 s on C = 4e8 flop/s: S = 2e8, E_s = 0.5.
  EXPECT_EQ(speed_efficiency(2e9, 10, 4e8), 0.5);
}

TEST(Isospeed, SecondsAtEfficiencyInvertsSpeedEfficiency) {
  // W = 2e9 flop on C = 4e8 flop/s at E_s = 0.5 takes T = 10 s.
  EXPECT_EQ(seconds_at_efficiency(2e9, 4e8, 0.5), 10);
  EXPECT_DOUBLE_EQ(speed_efficiency(3e9, seconds_at_efficiency(3e9, 7e8, 0.3), 7e8), 0.3);
  EXPECT_THROW((void)seconds_at_efficiency(2e9, 4e8, 0), Error);
}

TEST(Isospeed, PsiIsOneWhenWorkGrowsWithTheSystem) {
  // W' = C' W / C
  EXPECT_DOUBLE_EQ(psi(10, 100, 40, 400), 1.0);
  EXPECT_DOUBLE_EQ(psi(20.29, 3e8, 81.16, 12e8), 1.0);
}

TEST(Isospeed, PsiBelowOneWhenWorkMustGrowFaster) {
  EXPECT_DOUBLE_EQ(psi(10, 100, 20, 300), 2.0 / 3.0);
}

TEST(Isospeed, HomogeneousPsiIsClassicIsospeed) {
  // p = 2 -> p' = 4 nodes of C_1 = 5: psi(p, p') = p' W / (p W').
  const double w = 100;
  const double w_next = 250;
  EXPECT_DOUBLE_EQ(psi(2 * 5.0, w, 4 * 5.0, w_next), 4 * w / (2 * w_next));
  EXPECT_DOUBLE_EQ(psi(2 * 5.0, w, 4 * 5.0, w_next), 0.8);
}

// Time of the balanced-workload model: T = (1 - alpha) W / C + t0 + T0.
double model_time(double alpha, double work, double c, double t0, double overhead) {
  return (1 - alpha) * work / c + t0 + overhead;
}

TEST(Isospeed, Theorem1MatchesTheDefinitionOfPsi) {
  // Sequential part on a node of speed 5 on both systems: t0 = alpha W / 5.
  const double alpha = 0.02, c_seq = 5, c = 10, c_next = 30, w = 1000, t0_ = 50, t0_next_ = 60;
  const double e = w / (model_time(alpha, w, c, alpha * w / c_seq, t0_) * c);
  // Solve W'/(T' C') = e for W' with t0' = alpha W' / 5.
  const double w_next = e * c_next * t0_next_ / (1 - e * ((1 - alpha) + c_next * alpha / c_seq));
  const double e_next =
      w_next / (model_time(alpha, w_next, c_next, alpha * w_next / c_seq, t0_next_) * c_next);
  ASSERT_NEAR(e_next, e, 1e-12);
  EXPECT_NEAR(psi_theorem1(alpha * w / c_seq, t0_, alpha * w_next / c_seq, t0_next_),
              psi(c, w, c_next, w_next), 1e-12);
}

TEST(Isospeed, Theorem1ReducesToCorollaries) {
  // Corollary 1: alpha = 0 (t0 = 0) and constant overhead: psi = 1.
  EXPECT_EQ(psi_theorem1(0, 3.5, 0, 3.5), 1.0);
  // Corollary 2: alpha = 0: psi = T0 / T0'.
  EXPECT_EQ(psi_theorem1(0, 2, 0, 8), 0.25);
  EXPECT_EQ(psi_corollary2(2, 8), 0.25);
  EXPECT_EQ(psi_theorem1(0, 1.5, 0, 2.5), psi_corollary2(1.5, 2.5));
}

TEST(Isospeed, Theorem1GeneralCase) {
  EXPECT_DOUBLE_EQ(psi_theorem1(1, 3, 2, 6), 0.5);
}

TEST(Isospeed, Theorem2WorkSatisfiesTheIsospeedCondition) {
  const double alpha = 0.05, c_i = 4;  // sequential part always on node i
  const double beta = alpha / c_i;     // 0.0125
  const double c = 16, c_next = 40, w = 2000, overhead = 50, overhead_next = 55;
  // C beta W - C' beta W + C T0 = 400 - 1000 + 800 = 200; W' = 40*55*2000/200.
  const double w_next = theorem2_required_work(c, c_next, beta, w, overhead, overhead_next);
  EXPECT_DOUBLE_EQ(w_next, 22000.0);
  const double t = model_time(alpha, w, c, beta * w, overhead);                           // 193.75
  const double t_next = model_time(alpha, w_next, c_next, beta * w_next, overhead_next);  // 852.5
  EXPECT_DOUBLE_EQ(t, 193.75);
  EXPECT_DOUBLE_EQ(t_next, 852.5);
  EXPECT_NEAR(w / (t * c), w_next / (t_next * c_next), 1e-12);
  // psi = 200 / (16 * 55), equal to the definition and to Theorem 1 with t0 = beta W.
  const double expected = 200.0 / (16 * 55);
  EXPECT_DOUBLE_EQ(theorem2_psi(c, c_next, beta, w, overhead, overhead_next), expected);
  EXPECT_DOUBLE_EQ(psi(c, w, c_next, w_next), expected);
  EXPECT_DOUBLE_EQ(psi_theorem1(beta * w, overhead, beta * w_next, overhead_next), expected);
}

TEST(Isospeed, Theorem2WithoutSequentialPartIsCorollary2) {
  // beta = 0: W' = C' T0' W / (C T0), psi = T0 / T0'.
  EXPECT_DOUBLE_EQ(theorem2_required_work(10, 20, 0, 100, 4, 5), 20.0 * 5 * 100 / (10 * 4));
  EXPECT_DOUBLE_EQ(theorem2_psi(10, 20, 0, 100, 4, 5), psi_corollary2(4, 5));
}

TEST(Isospeed, Theorem2WithoutSolution) {
  // 10*1*10 - 100*1*10 + 10*1 = -890: the sequential part eats all the gain.
  expect_error([] { (void)theorem2_required_work(10, 100, 1, 10, 1, 1); },
               "Theorem 2 has no solution: C beta W - C' beta W + C T0 = -890 is not positive, "
               "so no W' keeps the speed-efficiency on C'");
  expect_error([] { (void)theorem2_psi(10, 100, 1, 10, 1, 1); },
               "Theorem 2 has no solution: C beta W - C' beta W + C T0 = -890 is not positive, "
               "so no W' keeps the speed-efficiency on C'");
}

TEST(Isospeed, RejectsNonPositiveOrNonFiniteInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> with_zero{4, 0};
  const std::vector<double> none;
  expect_error([&] { (void)system_marked_speed(with_zero); },
               "node marked speed C_i must be a positive finite number, got 0");
  expect_error([&] { (void)system_marked_speed(none); },
               "marked speed C of an empty system is undefined");
  expect_error([] { (void)achieved_speed(-1, 2); },
               "work W must be a positive finite number, got -1");
  expect_error([] { (void)achieved_speed(1, 0); },
               "time T must be a positive finite number, got 0");
  expect_error([&] { (void)speed_efficiency(1, 2, nan); },
               "marked speed C must be a positive finite number, got nan");
  expect_error([&] { (void)speed_efficiency(inf, 2, 1); },
               "work W must be a positive finite number, got inf");
  expect_error([] { (void)psi(1, 1, 2, 0); }, "work W' must be a positive finite number, got 0");
  expect_error([] { (void)psi(1, 1, -2, 1); },
               "marked speed C' must be a positive finite number, got -2");
  expect_error([] { (void)psi_theorem1(-0.5, 1, 0, 1); },
               "sequential time t0 must be a finite number >= 0, got -0.5");
  expect_error([] { (void)psi_theorem1(0, 0, 0, 1); },
               "Theorem 1 needs t0 + T0 > 0 and t0' + T0' > 0 (with no overhead at all psi is 1)");
  expect_error([] { (void)psi_corollary2(1, 0); },
               "overhead T0' must be a positive finite number, got 0");
  expect_error([] { (void)theorem2_psi(1, 2, -1, 1, 1, 1); },
               "beta must be a finite number >= 0, got -1");
}

}  // namespace
}  // namespace hetscale::isospeed
