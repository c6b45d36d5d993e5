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

TEST(SampleStatistics, Errors) {
  const std::vector<double> one{1};
  EXPECT_THROW(summarize_sample(one), Error);
  const std::vector<double> two{1, 2};
  EXPECT_THROW(summarize_sample(two, 0.9), Error);
}

}  // namespace
}  // namespace hetscale
