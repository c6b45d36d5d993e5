// Confidence intervals checked against values computed by hand (and with R's qt/qchisq).
#include "hetscale/model/sample_statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

TEST(SampleStatistics, MeanIntervalUsesStudentsT) {
  // 1..5: mean 3, s = sqrt(2.5) = 1.5811; t_{0.975,4} = 2.776; half = 2.776 * 1.5811 / sqrt(5).
  const std::vector<double> v{1, 2, 3, 4, 5};
  const SampleSummary s = summarize_sample(v);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stddev, 1.5811388, 1e-7);
  EXPECT_NEAR(s.mean_interval.low, 3 - 1.963, 1e-3);
  EXPECT_NEAR(s.mean_interval.high, 3 + 1.963, 1e-3);
  EXPECT_NEAR(s.cv, 1.5811388 / 3, 1e-7);
}

TEST(SampleStatistics, CvIntervalFollowsTheChiSquareIntervalOfSigma) {
  // n = 10, df = 9: qchisq(0.025, 9) = 2.700, qchisq(0.975, 9) = 19.023, so sigma lies in
  // [s * 0.6878, s * 1.8257].
  std::vector<double> v;
  for (int i = 0; i < 10; ++i) v.push_back(100 + (i % 2 ? 1 : -1));
  const SampleSummary s = summarize_sample(v);
  EXPECT_NEAR(s.cv_interval.low / s.cv, 0.6878, 1e-3);
  EXPECT_NEAR(s.cv_interval.high / s.cv, 1.8257, 1e-3);
  // Beyond the table, Wilson-Hilferty: n = 41, df = 40: qchisq 24.433 and 59.342.
  std::vector<double> w;
  for (int i = 0; i < 41; ++i) w.push_back(100 + (i % 2 ? 1 : -1));
  const SampleSummary t = summarize_sample(w);
  EXPECT_NEAR(t.cv_interval.low / t.cv, std::sqrt(40 / 59.342), 2e-3);
  EXPECT_NEAR(t.cv_interval.high / t.cv, std::sqrt(40 / 24.433), 2e-3);
}

TEST(SampleStatistics, LargeSamplesUseTheExpansion) {
  std::vector<double> v;
  for (int i = 0; i < 100; ++i) v.push_back(i % 2);
  const SampleSummary s = summarize_sample(v);
  // t_{0.975,99} = 1.9842
  EXPECT_NEAR((s.mean_interval.high - s.mean) / (s.stddev / 10), 1.9842, 1e-3);
}

TEST(SampleStatistics, Verdicts) {
  EXPECT_EQ(verdict({0.48, 0.52}, {0.47, 0.53}), "met");
  EXPECT_EQ(verdict({0.40, 0.45}, {0.47, 0.53}), "missed");
  EXPECT_EQ(verdict({0.45, 0.50}, {0.47, 0.53}), "undecided");
}

// E_s cannot be negative: with 2 runs (t = 12.71) the t interval reaches far below 0, and
// its lower bound is clamped at 0 with a note that says so.
TEST(SampleStatistics, MeanEstimateClampsItsLowerBoundAtTheLeastTheFigureCanBe) {
  const std::vector<double> two{0.1, 0.5};
  const MeanEstimate free = mean_estimate(two);
  ASSERT_TRUE(free.low);
  EXPECT_NEAR(*free.low, 0.3 - 12.706 * 0.2, 1e-9);  // sd 0.2 sqrt 2, over sqrt 2
  EXPECT_EQ(free.note, "");
  const MeanEstimate clamped = mean_estimate(two, 0.95, 0.0);
  EXPECT_EQ(clamped.low, 0.0);
  EXPECT_EQ(clamped.high, free.high);
  EXPECT_EQ(clamped.reason, "");  // an interval
  EXPECT_EQ(clamped.note, "lower bound clamped at 0 from -2.241: the figure cannot be less");
  const std::vector<double> close{0.5, 0.52};
  EXPECT_EQ(mean_estimate(close, 0.95, 0.0).low, mean_estimate(close).low);  // above 0: kept
}

TEST(SampleStatistics, MeanEstimateOfOneRunHasNoInterval) {
  const std::vector<double> one{0.61};
  const MeanEstimate m = mean_estimate(one);
  EXPECT_EQ(m.count, 1u);
  EXPECT_DOUBLE_EQ(m.mean, 0.61);
  EXPECT_FALSE(m.stddev || m.low || m.high);
  EXPECT_EQ(m.note, "1 run");
  EXPECT_EQ(m.reason, "1 run");
  const std::vector<double> v{1, 2, 3, 4, 5};
  const MeanEstimate five = mean_estimate(v);
  EXPECT_NEAR(*five.low, 3 - 1.963, 1e-3);  // as MeanIntervalUsesStudentsT
  EXPECT_NEAR(*five.high, 3 + 1.963, 1e-3);
  EXPECT_EQ(five.note, "");
  EXPECT_EQ(five.reason, "");
  EXPECT_THROW(mean_estimate(std::vector<double>{}), Error);
  EXPECT_THROW(mean_estimate(one, 0.9), Error);
}

TEST(SampleStatistics, QuantilesOfTheSupportedLevels) {
  EXPECT_NEAR(normal_quantile(0.95), 1.95996, 1e-5);
  EXPECT_EQ(student_t_quantile(0.95, 2), 4.303);
  EXPECT_EQ(student_t_quantile(0.99, 30), 2.750);
  EXPECT_NEAR(student_t_quantile(0.95, 60), 2.0003, 1e-3);  // qt(0.975, 60)
  EXPECT_THROW((void)student_t_quantile(0.95, 0), Error);
  EXPECT_THROW((void)student_t_quantile(0.9, 3), Error);
}

TEST(SampleStatistics, Errors) {
  const std::vector<double> one{1};
  EXPECT_THROW(summarize_sample(one), Error);
  const std::vector<double> two{1, 2};
  EXPECT_THROW(summarize_sample(two, 0.9), Error);
}

}  // namespace
}  // namespace hetscale
