#include "hetscale/model/prediction.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

TEST(NonNegativeLeastSquares, RecoversNonNegativeCoefficients) {
  // b = 2 x0 + 0 x1 + 5e-6 x2 with columns of very different scale.
  std::vector<double> a;
  std::vector<double> b;
  for (double t = 1; t <= 6; ++t) {
    a.insert(a.end(), {1, t, t * t * 1e6});
    b.push_back(2 + 5e-6 * t * t * 1e6);
  }
  const auto x = non_negative_least_squares(a, 6, 3, b);
  EXPECT_NEAR(x[0], 2, 1e-9);
  EXPECT_NEAR(x[1], 0, 1e-9);
  EXPECT_NEAR(x[2], 5e-6, 1e-15);
}

TEST(NonNegativeLeastSquares, ClampsWhatPlainLeastSquaresWouldMakeNegative) {
  // The best unconstrained fit of b = 3 - t has a negative slope; NNLS keeps slope 0 and
  // fits the mean.
  const std::vector<double> a{1, 1, 1, 2, 1, 3};
  const std::vector<double> b{2, 1, 0};
  const auto x = non_negative_least_squares(a, 3, 2, b);
  EXPECT_NEAR(x[0], 1, 1e-9);
  EXPECT_EQ(x[1], 0);
}

// A synthetic code whose true time model is in the mm family: W = 2 N^3, eta = 0.8,
// T0 = 2 ms [p > 1] + 3e-9 N^2 log2(p), on sets of p nodes of 1e9 op/s each.
double true_compute(double n, double c) {
  return 2 * n * n * n / (c * 0.8);
}
double true_comm(double n, std::size_t p) {
  return p > 1 ? 2e-3 + 3e-9 * n * n * std::ceil(std::log2(p)) : 0;
}

std::vector<TimingSample> measured(std::initializer_list<std::size_t> sizes) {
  std::vector<TimingSample> samples;
  for (std::size_t p : sizes)
    for (double n : {200.0, 400.0, 800.0, 1600.0}) {
      const double c = 1e9 * static_cast<double>(p);
      TimingSample s{n, p, c, 0, true_compute(n, c), true_comm(n, p)};
      s.wall_seconds = s.compute_seconds + s.communication_seconds;
      samples.push_back(s);
    }
  return samples;
}

TEST(TimeModel, FitsTheSyntheticCodeExactly) {
  const auto workload = Workload::parse("mm");
  const auto model = TimeModel::fit(measured({1, 2, 4}), workload, CommunicationPattern::mm);
  EXPECT_NEAR(model.compute_efficiency(500), 0.8, 1e-9);
  EXPECT_LT(model.mean_fit_error(), 1e-9);
  EXPECT_NEAR(model.communication().seconds(1000, 8), true_comm(1000, 8), 1e-9);
}

// The same code's runs timed from outside: wall times only, no compute times. The sets'
// different C and p separate W/(C eta) from T0.
TEST(TimeModel, FitsWallTimesAloneWhenNoRunHasComputeTimes) {
  const auto workload = Workload::parse("mm");
  auto samples = measured({1, 2, 4});
  for (auto& s : samples) s.compute_seconds = s.communication_seconds = 0;
  const auto model = TimeModel::fit(samples, workload, CommunicationPattern::mm);
  EXPECT_NEAR(model.compute_efficiency(500), 0.8, 1e-6);
  EXPECT_LT(model.mean_fit_error(), 1e-6);
  EXPECT_NEAR(model.seconds(3000, 8e9, 8), true_compute(3000, 8e9) + true_comm(3000, 8), 1e-6);
  EXPECT_NE(model.describe().find("fitted on wall times alone"), std::string::npos) << model.describe();
}

TEST(TimeModel, PredictsTheParameterOnLargerSetsInClosedForm) {
  const auto workload = Workload::parse("mm");
  const auto model = TimeModel::fit(measured({2, 4}), workload, CommunicationPattern::mm);
  for (std::size_t p : {8u, 16u, 32u}) {
    const double c = 1e9 * static_cast<double>(p);
    const auto predicted = predict_parameter(model, workload, c, p, 0.6, 10, 1e6);
    ASSERT_TRUE(predicted.found) << predicted.note;
    // The truth: 2 N^3 / (T c) = 0.6 with T = true_compute + true_comm, by bisection.
    double lo = 10;
    double hi = 1e6;
    for (int i = 0; i < 200; ++i) {
      const double n = std::sqrt(lo * hi);
      const double e = 2 * n * n * n / ((true_compute(n, c) + true_comm(n, p)) * c);
      (e < 0.6 ? lo : hi) = n;
    }
    EXPECT_NEAR(predicted.parameter, lo, 1e-6 * lo) << "p = " << p;
  }
}

TEST(TimeModel, UnreachableTargetsAreSaid) {
  const auto workload = Workload::parse("mm");
  const auto model = TimeModel::fit(measured({2, 4}), workload, CommunicationPattern::mm);
  const auto beyond = predict_parameter(model, workload, 8e9, 8, 0.85, 10, 1e5);  // eta is 0.8
  EXPECT_FALSE(beyond.found);
  EXPECT_EQ(beyond.note.rfind("the target is not reached below N = 100000", 0), 0u) << beyond.note;
  const auto easy = predict_parameter(model, workload, 8e9, 8, 1e-6, 100, 1e5);
  EXPECT_FALSE(easy.found);
  EXPECT_EQ(easy.note, "the target is already exceeded at the smallest size searched");
  EXPECT_THROW(TimeModel::fit({}, workload, CommunicationPattern::mm), Error);
}

// A workload that is negative below N = 1 (conv2d's N^2 lg N): the search starts where
// W is positive instead of failing on W < 0.
TEST(TimeModel, TheSearchStartsWhereTheWorkloadIsPositive) {
  const auto workload = Workload::parse("100*N^2*lg(N)");
  std::vector<TimingSample> samples;
  for (std::size_t p : {2u, 4u})
    for (double n : {64.0, 128.0, 256.0, 512.0}) {
      const double c = 1e9 * static_cast<double>(p);
      TimingSample s{n, p, c, 0, 100 * n * n * std::log2(n) / (c * 0.8), true_comm(n, p)};
      s.wall_seconds = s.compute_seconds + s.communication_seconds;
      samples.push_back(s);
    }
  const auto model = TimeModel::fit(samples, workload, CommunicationPattern::conv2d);
  const auto predicted = predict_parameter(model, workload, 8e9, 8, 0.5, 0.5, 1e6);
  ASSERT_TRUE(predicted.found) << predicted.note;
  EXPECT_GT(predicted.work, 0);
  EXPECT_NEAR(model.speed_efficiency(predicted.parameter, 8e9, 8), 0.5, 1e-6);
}

TEST(TimeModel, PatternsByCodeName) {
  EXPECT_EQ(communication_pattern_for("ge"), CommunicationPattern::ge);
  EXPECT_EQ(communication_pattern_for("conv2d"), CommunicationPattern::conv2d);
  EXPECT_EQ(communication_pattern_for("lu"), CommunicationPattern::lu);
  EXPECT_EQ(communication_pattern_for("./my_solver"), CommunicationPattern::generic);
}

}  // namespace
}  // namespace hetscale
