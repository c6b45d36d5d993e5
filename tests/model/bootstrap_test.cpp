// The bootstrap of a set's E_s curve: its random source, seeds, percentile intervals, the
// residual resampler, the sizes that bracket a target, the required parameter's interval,
// psi's replicates, and its coverage on a known curve.
#include "hetscale/model/bootstrap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/model/bootstrap_coverage.hpp"

namespace hetscale {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

double saturating(double n) { return 0.6 * n / (n + 500); }

// The saturating curve at eight doubling sizes, each size's runs the curve times `factors`.
std::vector<EfficiencyPoint> noisy_set(const std::vector<double>& factors) {
  std::vector<EfficiencyPoint> points;
  for (int k = 0; k < 8; ++k) {
    const double n = 100 * std::ldexp(1.0, k);
    for (std::size_t r = 0; r < factors.size(); ++r)
      points.push_back({n, saturating(n) * factors[(r + static_cast<std::size_t>(k)) % factors.size()]});
  }
  return points;
}

TEST(ResampleRandom, IsSplitMix64) {
  // The reference outputs of splitmix64 from seed 0 (Vigna's splitmix64.c).
  ResampleRandom random(0);
  EXPECT_EQ(random.next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(random.next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(random.next(), 0x06c45d188009454fULL);
}

TEST(ResampleRandom, DrawsEveryIndexBelowNEvenly) {
  ResampleRandom random(7);
  std::vector<int> counts(5);
  for (int i = 0; i < 50000; ++i) ++counts.at(random.below(5));
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
  double sum = 0, squares = 0;
  for (int i = 0; i < 50000; ++i) {
    const double z = random.normal();
    sum += z;
    squares += z * z;
  }
  EXPECT_NEAR(sum / 50000, 0, 0.02);
  EXPECT_NEAR(squares / 50000, 1, 0.03);
}

TEST(ResampleSeed, FollowsTheNamesAndTheirBoundaries) {
  EXPECT_EQ(required_parameter_seed("mm", 1, 0.5), required_parameter_seed("mm", 1, 0.5));
  EXPECT_NE(required_parameter_seed("mm", 1, 0.5), required_parameter_seed("mm", 2, 0.5));
  EXPECT_NE(required_parameter_seed("mm", 1, 0.5), required_parameter_seed("mm", 1, 0.6));
  EXPECT_NE(required_parameter_seed("mm", 1, 0.5), required_parameter_seed("ge", 1, 0.5));
  EXPECT_NE(resample_seed({"ab", "c"}), resample_seed({"a", "bc"}));
  EXPECT_EQ(required_parameter_seed("mm", 1, 0.5), resample_seed({"mm", "1", "0.5"}));
}

TEST(PercentileInterval, TakesTheKthSmallestAndLargest) {
  std::vector<double> values(2000);
  std::iota(values.begin(), values.end(), 1.0);
  std::reverse(values.begin(), values.end());
  // k = floor(2001 x 0.025) = 50: the 50th smallest and the 50th largest.
  const PercentileInterval p = percentile_interval(values, 0.95);
  EXPECT_EQ(p.low, 50);
  EXPECT_EQ(p.high, 1951);
  const std::vector<double> few{3, 1, 2};
  EXPECT_EQ(percentile_interval(few, 0.95).low, 1);  // k is at least 1
  EXPECT_EQ(percentile_interval(few, 0.95).high, 3);
  EXPECT_THROW(percentile_interval(std::vector<double>{}, 0.95), Error);
  EXPECT_THROW(percentile_interval(few, 1), Error);
}

TEST(PercentileInterval, InfinitiesAreEndsAndNanWidensBoth) {
  std::vector<double> values(2000, 5.0);
  for (int i = 0; i < 50; ++i) values[static_cast<std::size_t>(i)] = -inf;
  PercentileInterval p = percentile_interval(values, 0.95);
  EXPECT_EQ(p.low, -inf);
  EXPECT_EQ(p.high, 5);
  values.assign(2000, 5.0);
  for (int i = 0; i < 49; ++i) values[static_cast<std::size_t>(i)] = -inf;
  EXPECT_EQ(percentile_interval(values, 0.95).low, 5);  // 49 < 50: the bound stays finite
  values[100] = std::numeric_limits<double>::quiet_NaN();  // the 50th beyond either end
  p = percentile_interval(values, 0.95);
  EXPECT_EQ(p.low, -inf);
  EXPECT_EQ(p.high, 5);
}

TEST(ReportedInterval, LeavesOutAnOpenBoundAndSaysWhy) {
  std::vector<double> values(2000, 5.0);
  for (int i = 0; i < 60; ++i) values[static_cast<std::size_t>(i)] = inf;
  const ReportedInterval r = reported_interval(values, 0.95, "below 100", "above 12800");
  EXPECT_EQ(r.low, 5.0);
  EXPECT_FALSE(r.high);
  EXPECT_EQ(r.note, "upper bound open: 60 of 2000 resamples fall above 12800");
  const std::vector<double> closed(2000, 5.0);
  const ReportedInterval c = reported_interval(closed, 0.95, "below", "above");
  EXPECT_EQ(c.low, 5.0);
  EXPECT_EQ(c.high, 5.0);
  EXPECT_EQ(c.note, "");
}

TEST(ResidualResampler, PoolsBiasCorrectedRelativeResidualsOfRepeatedSizes) {
  // Size 100: 0.9 m and 1.1 m (n = 2: deviations x sqrt(2)); size 200: one run, not pooled.
  const std::vector<EfficiencyPoint> points{{100, 0.18}, {200, 0.3}, {100, 0.22}};
  const ResidualResampler resampler(points);
  EXPECT_EQ(resampler.pooled(), 2u);
  EXPECT_EQ(resampler.degrees_of_freedom(), 1u);
  ASSERT_EQ(resampler.sizes().size(), 2u);
  EXPECT_EQ(resampler.sizes()[0].repeats, 2u);
  EXPECT_DOUBLE_EQ(resampler.sizes()[0].mean_efficiency, 0.2);
  // Every replicate mean of size 200 (one draw) is 0.3 (1 -+ 0.1 sqrt 2).
  ResampleRandom random(3);
  std::vector<FittedKnot> knots;
  bool low = false, high = false;
  for (int b = 0; b < 100; ++b) {
    resampler.replicate(random, knots);
    const double r = knots[1].mean_efficiency / 0.3;
    EXPECT_TRUE(std::abs(r - (1 - 0.1 * std::sqrt(2.0))) < 1e-12 ||
                std::abs(r - (1 + 0.1 * std::sqrt(2.0))) < 1e-12)
        << r;
    low = low || r < 1;
    high = high || r > 1;
    EXPECT_EQ(knots[1].repeats, 1u);
  }
  EXPECT_TRUE(low && high);
  // Scaled deviations: 1 -+ 0.1 sqrt(2) x 3.
  const ResidualResampler scaled(points, 3);
  scaled.replicate(random, knots);
  EXPECT_NEAR(std::abs(knots[1].mean_efficiency / 0.3 - 1), 0.3 * std::sqrt(2.0), 1e-12);
  EXPECT_THROW(ResidualResampler(points, 0), Error);
  const std::vector<EfficiencyPoint> single{{100, 0.2}, {200, 0.3}};
  EXPECT_THROW(ResidualResampler(single).replicate(random, knots), Error);
}

// One resampler serves for the scale its own degrees of freedom ask: scaled afterwards it
// draws what one built with that scale draws, and a curve fitted already gives the same.
TEST(ResidualResampler, ScaledAfterwardsOrFromAFittedCurveItDrawsTheSame) {
  const std::vector<EfficiencyPoint> points = noisy_set({0.9, 1.05, 1.1});
  const ResidualResampler built(points, 2.5);
  ResidualResampler scaled(EfficiencyCurve::fit(points), points);
  EXPECT_EQ(scaled.degrees_of_freedom(), built.degrees_of_freedom());
  scaled.set_deviation_scale(4);
  scaled.set_deviation_scale(2.5);  // of the corrected deviations, not of the scale before
  ResampleRandom ra(5), rb(5);
  std::vector<FittedKnot> ka, kb;
  for (int b = 0; b < 20; ++b) {
    built.replicate(ra, ka);
    scaled.replicate(rb, kb);
    ASSERT_EQ(ka.size(), kb.size());
    for (std::size_t i = 0; i < ka.size(); ++i)
      EXPECT_EQ(ka[i].mean_efficiency, kb[i].mean_efficiency) << b << " " << i;
  }
  EXPECT_THROW(scaled.set_deviation_scale(0), Error);
  EXPECT_THROW(scaled.set_deviation_scale(std::nan("")), Error);
  BootstrapOptions options;
  options.resamples = 200;
  const ParameterInterval from_points = required_parameter_interval(points, 0.4, 0.02, options);
  const ParameterInterval from_curve =
      required_parameter_interval(EfficiencyCurve::fit(points), points, 0.4, 0.02, options);
  EXPECT_EQ(from_points.replicates, from_curve.replicates);
}

TEST(ResidualResampler, ReplicatesDependOnTheRunsNotTheirOrder) {
  std::vector<EfficiencyPoint> points = noisy_set({0.9, 1.05, 1.1});
  const ResidualResampler a(points);
  std::reverse(points.begin(), points.end());
  const ResidualResampler b(points);
  ResampleRandom ra(11), rb(11);
  std::vector<FittedKnot> ka, kb;
  for (int i = 0; i < 10; ++i) {
    a.replicate(ra, ka);
    b.replicate(rb, kb);
    for (std::size_t j = 0; j < ka.size(); ++j) EXPECT_EQ(ka[j].mean_efficiency, kb[j].mean_efficiency);
  }
}

TEST(ResidualResampler, ASizeOfManyRunsDrawsItsMeanWithThePoolsSpread) {
  // 65 runs (past exact_resample_runs) and 64 runs (drawn one by one) of the same spread:
  // their replicate means have the pool's standard deviation over sqrt(n).
  for (const std::size_t n : {exact_resample_runs, exact_resample_runs + 1}) {
    std::vector<EfficiencyPoint> points;
    for (std::size_t r = 0; r < n; ++r) points.push_back({100, r % 2 ? 0.9 : 1.1});
    points.push_back({200, 1.0});
    const ResidualResampler resampler(points);
    ResampleRandom random(5);
    std::vector<FittedKnot> knots;
    double sum = 0, squares = 0;
    const int replicates = 4000;
    for (int b = 0; b < replicates; ++b) {
      resampler.replicate(random, knots);
      sum += knots[0].mean_efficiency;
      squares += knots[0].mean_efficiency * knots[0].mean_efficiency;
    }
    const double mean = sum / replicates;
    const double sd = std::sqrt(squares / replicates - mean * mean);
    const double expected = 0.1 * std::sqrt(n / (n - 1.0)) / std::sqrt(static_cast<double>(n));
    EXPECT_NEAR(mean, 1.0, 0.003) << n;
    EXPECT_NEAR(sd / expected, 1.0, 0.05) << n;
  }
}

TEST(BracketingSizes, AreTheKnotsAroundTheRoot) {
  const std::vector<EfficiencyPoint> points = noisy_set({1.0});
  const EfficiencyCurve curve = EfficiencyCurve::fit(points);
  auto b = bracketing_sizes(curve, curve.parameter_within(0.4, 0.02));  // root 1000
  ASSERT_TRUE(b);
  EXPECT_EQ(curve.knots()[(*b)[0]].parameter, 800);
  EXPECT_EQ(curve.knots()[(*b)[1]].parameter, 1600);
  b = bracketing_sizes(curve, curve.parameter_within(saturating(800), 0.02));  // at a knot
  ASSERT_TRUE(b);
  EXPECT_EQ(curve.knots()[(*b)[1]].parameter, 800);
  EXPECT_EQ(curve.knots()[(*b)[0]].parameter, 400);
  b = bracketing_sizes(curve, curve.parameter_within(saturating(100), 0.02));  // the first knot
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[0], 0u);
  EXPECT_EQ((*b)[1], 1u);
  // Within tolerance above the largest size: that size and the one before it.
  const double top = saturating(12800);
  const TargetReading within = curve.parameter_within(top * 1.01, 0.02);
  ASSERT_EQ(within.status, TargetReading::Status::within_tolerance);
  b = bracketing_sizes(curve, within);
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[0], 6u);
  EXPECT_EQ((*b)[1], 7u);
  EXPECT_FALSE(bracketing_sizes(curve, curve.parameter_within(0.59, 0.02)));  // above range
}

TEST(RequiredParameterInterval, CoversTheEstimateAndIsTheSameForTheSameRuns) {
  std::vector<EfficiencyPoint> points = noisy_set({0.92, 1.0, 1.08});
  BootstrapOptions options;
  options.seed = required_parameter_seed("mm", 0, 0.4);
  const ParameterInterval p = required_parameter_interval(points, 0.4, 0.02, options);
  ASSERT_EQ(p.replicates.size(), default_resamples);
  ASSERT_TRUE(p.interval.low && p.interval.high) << p.interval.note;
  const double estimate = EfficiencyCurve::fit(points).parameter_at(0.4).parameter;
  EXPECT_LT(*p.interval.low, estimate);
  EXPECT_GT(*p.interval.high, estimate);
  // +-8% a run, 3 runs a size: the mean E_s of a size within about 4.6% (sd); N grows 3x as
  // fast as E_s there (d ln E / d ln N = 500 / (N + 500) = 1/3), so about +-27% at 95%.
  EXPECT_LT(*p.interval.high / *p.interval.low, 2.0);
  EXPECT_GT(*p.interval.high / *p.interval.low, 1.3);
  EXPECT_EQ(p.pooled, points.size());
  EXPECT_GT(p.deviation_scale, 1);  // t_{21} / z
  std::reverse(points.begin(), points.end());
  const ParameterInterval again = required_parameter_interval(points, 0.4, 0.02, options);
  EXPECT_EQ(again.interval.low, p.interval.low);
  EXPECT_EQ(again.interval.high, p.interval.high);
  options.seed += 1;
  EXPECT_NE(required_parameter_interval(points, 0.4, 0.02, options).interval.low, p.interval.low);
}

TEST(RequiredParameterInterval, NeedsTwoRunsAtBothBracketingSizes) {
  std::vector<EfficiencyPoint> points = noisy_set({0.95, 1.05});
  // One run of 800 left: 800 and 1600 bracket the target 0.4 (root 1000).
  points.erase(std::find_if(points.begin(), points.end(), [](const auto& p) { return p.parameter == 800; }));
  BootstrapOptions options;
  ParameterInterval p = required_parameter_interval(points, 0.4, 0.02, options);
  EXPECT_TRUE(p.replicates.empty());
  EXPECT_FALSE(p.interval.low || p.interval.high);
  EXPECT_EQ(p.interval.note,
            "too few runs: 1 run at 800 and 2 runs at 1600, the sizes that bracket the target; an "
            "interval needs 2 at each");
  EXPECT_EQ(p.interval.reason, "too few runs");  // what a table cell shows
  p = required_parameter_interval(points, 0.59, 0.02, options);
  EXPECT_EQ(p.interval.note, "no interval: the set's runs give no parameter at the target");
  EXPECT_EQ(p.interval.reason, "no parameter");
}

TEST(RequiredParameterInterval, ARootBeyondTheMeasuredSizesLeavesItsBoundOpen) {
  // Target close to the smallest size's E_s with a wide spread: many resamples put it below.
  const std::vector<EfficiencyPoint> points = noisy_set({0.7, 1.0, 1.3});
  BootstrapOptions options;
  options.seed = 9;
  const ParameterInterval p = required_parameter_interval(points, saturating(130), 0.0, options);
  ASSERT_FALSE(p.replicates.empty()) << p.interval.note;
  EXPECT_FALSE(p.interval.low);
  EXPECT_TRUE(p.interval.high);
  EXPECT_EQ(p.interval.note.rfind("lower bound open: ", 0), 0u) << p.interval.note;
  EXPECT_NE(p.interval.note.find("fall below the smallest measured size 100"), std::string::npos)
      << p.interval.note;
  EXPECT_EQ(p.interval.reason, "");  // an interval, open at one end
}

TEST(PsiReplicates, PairTheSetsIndexWiseAndCarryBoundsBeyondTheSizes) {
  const std::vector<double> w{100, inf, -inf, 100, inf, 100};
  const std::vector<double> next{400, 400, 400, -inf, inf, inf};
  const std::vector<double> psi = psi_replicates(1, w, 2, next);
  EXPECT_DOUBLE_EQ(psi[0], 0.5);  // 2 x 100 / (1 x 400)
  EXPECT_EQ(psi[1], inf);
  EXPECT_EQ(psi[2], -inf);
  EXPECT_EQ(psi[3], inf);
  EXPECT_TRUE(std::isnan(psi[4]));
  EXPECT_EQ(psi[5], -inf);
  EXPECT_THROW(psi_replicates(1, w, 2, std::vector<double>{1}), Error);
}

// A forecast's replicate that the time model could not be fitted to has no work (NaN): its
// psi is undetermined, never an error that loses every other replicate.
TEST(PsiReplicates, AReplicateWithNoWorkGivesAnUndeterminedPsi) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> w{nan, 100, nan, inf};
  const std::vector<double> next{400, nan, nan, nan};
  const std::vector<double> psi = psi_replicates(1, w, 2, next);
  ASSERT_EQ(psi.size(), 4U);
  for (double p : psi) EXPECT_TRUE(std::isnan(p)) << p;
}

/// The coverage tests' setup: 15% noise, 3 runs per size, `trials` sets of fixed seeds.
CoverageSetup sanity_setup(std::size_t trials) {
  CoverageSetup setup;
  setup.noise = 0.15;
  setup.runs_per_size = 3;
  setup.trials = trials;
  setup.seed = 2026;
  return setup;
}

// The sanity band of the measured coverage (docs/science.md, "Coverage"): 15% noise, 3
// runs per size, 200 synthetic sets of fixed seeds; the 95% intervals with the
// small-sample correction contain the true parameter in 90% to 99% of the sets.
TEST(BootstrapCoverage, NominalCoverageWithinItsBandOnAKnownCurve) {
  const CoverageResult r = measure_coverage(sanity_setup(200));
  EXPECT_GE(r.with_interval, 190u);
  EXPECT_GE(r.coverage(), 0.90);
  EXPECT_LE(r.coverage(), 0.99);
  EXPECT_GT(r.median_half_width, 0.01);
}

// The sanity band of psi's measured coverage (docs/science.md, "Coverage"): 15% noise, 3
// runs per size, 100 pairs of synthetic sets of fixed seeds; the 95% intervals of psi
// contain the true psi in 85% to 100% of the pairs.
TEST(BootstrapCoverage, PsiWithinItsSanityBandOnKnownCurves) {
  const CoverageResult r = measure_psi_coverage(sanity_setup(100));
  EXPECT_GE(r.with_interval, 95u);
  EXPECT_GE(r.coverage(), 0.85);
  EXPECT_GT(r.median_half_width, 0.01);
}

// A level the quantile tables do not hold is refused whatever the runs, also where the
// runs give no interval.
TEST(RequiredParameterInterval, RefusesALevelTheQuantilesDoNotSupport) {
  BootstrapOptions options;
  options.level = 0.9;
  const std::vector<EfficiencyPoint> one_run_each{{100, 0.1}, {200, 0.2}, {400, 0.3}};
  try {
    (void)required_parameter_interval(one_run_each, 0.25, 0.02, options);
    ADD_FAILURE() << "level 0.9 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "an interval's level must be 0.95 or 0.99 (the levels of the quantile tables), got 0.9");
  }
  options.level = 0.99;
  EXPECT_EQ(required_parameter_interval(one_run_each, 0.25, 0.02, options).interval.reason,
            "too few runs");
}

}  // namespace
}  // namespace hetscale
