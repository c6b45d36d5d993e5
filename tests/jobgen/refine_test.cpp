#include "hetscale/jobgen/refine.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "hetscale/model/bootstrap.hpp"

namespace hetscale::jobgen {
namespace {

using Status = SetRefinement::Status;

// Synthetic measurements from the constant-overhead model 1/E_s = 2 + k/W with W = 2 N^3:
// the plateau is 0.5 and the target 0.3 is reached at exactly N = 1000.
const Workload mm = Workload::parse("2*N^3");
constexpr double k = (1 / 0.3 - 2) * 2e9;

double efficiency(double n) { return 1 / (2 + k / (2 * n * n * n)); }

std::vector<EfficiencyPoint> measured(std::initializer_list<double> sizes, int repeats = 1) {
  std::vector<EfficiencyPoint> out;
  for (double n : sizes)
    for (int r = 0; r < repeats; ++r) out.push_back({n, efficiency(n) * (1 + 0.01 * (r - (repeats - 1) / 2.0))});
  return out;
}

RefineSettings settings(std::uint32_t round = 0) { return {0.3, {0.02, 0.04}, 0.02, 3, round, true}; }

TEST(Refine, ReadsTheTargetOffTheFittedCurveAndStepsAroundIt) {
  const auto r = refine_set(1, measured({400, 566, 1600, 2263}, 3), {}, mm, settings());
  ASSERT_EQ(r.status, Status::refine) << r.explanation;
  EXPECT_NEAR(r.estimate, 1000, 30);  // the monotone fit between 566 and 1600, within 3%
  ASSERT_EQ(r.parameter_values.size(), 5U);
  const double e = std::round(r.estimate);
  EXPECT_NEAR(r.parameter_values[0], e * 0.96, 1);
  EXPECT_NEAR(r.parameter_values[1], e * 0.98, 1);
  EXPECT_NEAR(r.parameter_values[3], e * 1.02, 1);
  EXPECT_NEAR(r.parameter_values[4], e * 1.04, 1);
  EXPECT_EQ(r.set_index, 1U);
}

TEST(Refine, ASizeMeasuredAlreadyIsNotRunAgain) {
  // 980 is short of the target by 2.6% (more than the 2% tolerance); the model still gives
  // 1000, and of 960..1040 the follow-up leaves 980 out: its run is stored.
  const auto r = refine_set(0, measured({400, 566, 980}), {}, mm, settings());
  ASSERT_EQ(r.status, Status::refine) << r.explanation;
  EXPECT_THAT(r.parameter_values, ::testing::ElementsAre(960, 1000, 1020, 1040));
  EXPECT_EQ(r.explanation,
            "set 0: the target 0.3 lies outside the measured sizes; extrapolated to 1000; 980 measured already, left "
            "out");
}

TEST(Refine, NoJobsWhenEverySizeAroundTheEstimateIsMeasured) {
  // 1/E_s = 2 + k/N reaches 0.3 at N = 10.2; sizes are whole, so 10.2 +/- 2% is 10 alone,
  // which is measured (0.8% short of the target, outside a 0.1% tolerance).
  const Workload linear = Workload::parse("N");
  const double k10 = (1 / 0.3 - 2) * 10.2;
  std::vector<EfficiencyPoint> points;
  for (double n : {4.0, 6.0, 10.0}) points.push_back({n, 1 / (2 + k10 / n)});
  const auto r = refine_set(3, points, {}, linear, {0.3, {0.02}, 0.001, 3, 0, true});
  EXPECT_EQ(r.status, Status::already_measured);
  EXPECT_TRUE(r.parameter_values.empty());
  EXPECT_EQ(r.explanation,
            "set 3: the target 0.3 lies outside the measured sizes; extrapolated to 10.2; every size around it is "
            "measured already");
}

TEST(Refine, ExtrapolatesUpwardsWithTheOverheadModel) {
  // 400..800 are all short of 0.3; the model gives W = 2e9 exactly (N = 1000).
  EXPECT_NEAR(extrapolate_parameter(measured({400, 566, 800}), mm, 0.3), 1000, 1e-6);
  const auto r = refine_set(0, measured({400, 566, 800}), {}, mm, settings());
  EXPECT_EQ(r.status, Status::refine);
  EXPECT_EQ(r.explanation, "set 0: the target 0.3 lies outside the measured sizes; extrapolated to 1000");
}

TEST(Refine, BoundsAStepToFourTimesTheWork) {
  // From 200..400 the model still says N = 1000, but one round goes to at most 4 W(400).
  EXPECT_NEAR(extrapolate_parameter(measured({200, 283, 400}), mm, 0.3), 400 * std::cbrt(4.0), 1e-6);
}

TEST(Refine, ExtrapolatesDownwardsWhenEverySizeIsAboveTheTarget) {
  // 2000 and 4000 exceed 0.3: N = 1000 is below W(2000) / 4, so the bound applies.
  EXPECT_NEAR(extrapolate_parameter(measured({2000, 4000}), mm, 0.3), 2000 / std::cbrt(4.0), 1e-6);
  EXPECT_NEAR(extrapolate_parameter(measured({1200, 2000}), mm, 0.3), 1000, 1e-6);
}

TEST(Refine, WithoutAUsableFitTheWorkDoubles) {
  // A single size: no slope to fit.
  EXPECT_NEAR(extrapolate_parameter(measured({500}), mm, 0.3), 500 * std::cbrt(2.0), 1e-6);
}

TEST(Refine, ASizeWithinToleranceEndsTheSet) {
  const auto r = refine_set(2, measured({800, 1000, 1200}), {}, mm, settings());
  EXPECT_EQ(r.status, Status::reached);
  EXPECT_TRUE(r.parameter_values.empty());
  EXPECT_EQ(r.explanation, "set 2: E_s = 0.3 at 1000 is within 2% of the target 0.3");
}

TEST(Refine, StopsWhenTheRoundsAreSpent) {
  const auto r = refine_set(0, measured({400, 800}), {}, mm, settings(3));
  EXPECT_EQ(r.status, Status::exhausted);
  EXPECT_EQ(r.explanation, "set 0: target 0.3 not reached within 3 refinement rounds");
}

TEST(Refine, NoMeasurementsNoJobs) {
  const auto r = refine_set(4, {}, {}, mm, settings());
  EXPECT_EQ(r.status, Status::no_data);
  EXPECT_EQ(r.explanation, "set 4: no runs collected");
}

// [refine] precision: `repeats` runs at each size, spread by `spread` around the curve.
std::vector<EfficiencyPoint> spread_runs(std::initializer_list<double> sizes, double spread, int repeats = 3) {
  std::vector<EfficiencyPoint> out;
  for (double n : sizes)
    for (int r = 0; r < repeats; ++r)
      out.push_back({n, efficiency(n) * (1 + spread * (r - (repeats - 1) / 2.0))});
  return out;
}

RefineSettings precise(double precision, std::uint32_t budget, std::uint32_t round = 0) {
  RefineSettings s = settings(round);
  s.precision = precision;
  s.max_runs_per_set = budget;
  s.experiment = "mm";
  return s;
}

TEST(RefineByPrecision, APreciseEnoughIntervalEndsTheSet) {
  // +-0.5%: the 95% interval of N at 0.3 is well within 10%.
  const auto r = refine_set(1, spread_runs({566, 975, 1025, 1600}, 0.005), {}, mm, precise(0.10, 60));
  EXPECT_EQ(r.status, Status::reached) << r.explanation;
  EXPECT_TRUE(r.parameter_values.empty());
  EXPECT_NE(r.explanation.find(": precision 10% reached: half-width "), std::string::npos) << r.explanation;
  EXPECT_NE(r.explanation.find(" after 12 runs"), std::string::npos) << r.explanation;
}

TEST(RefineByPrecision, AWideIntervalAddsRepetitionsAtTheBracketingSizesNumberedAfterTheStoredOnes) {
  // +-20% at 3 runs a size: far wider than 5%, so the runs at 975 and 1025 (the sizes around
  // N = 1000) double: 3 more repetitions at each, numbered from the first unused one.
  const std::map<double, std::uint32_t> next{{566, 3}, {975, 3}, {1025, 5}, {1600, 3}};
  const auto r = refine_set(0, spread_runs({566, 975, 1025, 1600}, 0.2), next, mm, precise(0.05, 60));
  ASSERT_EQ(r.status, Status::repeat) << r.explanation;
  EXPECT_THAT(r.parameter_values, ::testing::ElementsAre(975, 1025));
  ASSERT_EQ(r.repetitions.size(), 2U);
  EXPECT_THAT(r.repetitions[0], ::testing::ElementsAre(3, 4, 5));
  EXPECT_THAT(r.repetitions[1], ::testing::ElementsAre(5, 6, 7));
  EXPECT_NE(r.explanation.find("precision 5% not reached"), std::string::npos) << r.explanation;
  EXPECT_NE(r.explanation.find("; 6 more repetition(s): 3 at 975 and 3 at 1025 (budget 60 runs)"), std::string::npos)
      << r.explanation;
}

TEST(RefineByPrecision, AsManyRepetitionsAsTheObservedSpreadAsks) {
  // A half-width hw of 1.2 x the precision asks n (hw / p)^2 - n more runs of the n = 6 at
  // the bracketing sizes: ceil(8.64) - 6 = 3, fewer than doubling; hw as refine_set reads it.
  const auto points = spread_runs({566, 975, 1025, 1600}, 0.02);
  BootstrapOptions options;
  options.seed = required_parameter_seed("mm", 0, 0.3);
  const auto interval = required_parameter_interval(points, 0.3, 0.02, options);
  const double estimate = EfficiencyCurve::fit(points).parameter_within(0.3, 0.02).parameter;
  const double hw = *relative_half_width(interval.interval, estimate);
  const auto r = refine_set(0, points, {}, mm, precise(hw / 1.2, 60));
  ASSERT_EQ(r.status, Status::repeat) << r.explanation;
  ASSERT_EQ(r.repetitions.size(), 2U);
  EXPECT_EQ(r.repetitions[0].size() + r.repetitions[1].size(), 3U);
  EXPECT_THAT(r.repetitions[0], ::testing::ElementsAre(0, 1));  // no stored numbers given: from 0
}

TEST(RefineByPrecision, TooFewRunsForAnIntervalGetTwoAtEachBracketingSize) {
  const std::map<double, std::uint32_t> next{{975, 1}, {1025, 1}};
  const auto r = refine_set(0, spread_runs({566, 975, 1025, 1600}, 0.1, 1), next, mm, precise(0.05, 60));
  ASSERT_EQ(r.status, Status::repeat) << r.explanation;
  EXPECT_THAT(r.parameter_values, ::testing::ElementsAre(975, 1025));
  EXPECT_THAT(r.repetitions, ::testing::ElementsAre(::testing::ElementsAre(1), ::testing::ElementsAre(1)));
  EXPECT_NE(r.explanation.find("the parameter 1000 (too few runs)"), std::string::npos) << r.explanation;
}

TEST(RefineByPrecision, TheBudgetBoundsTheRepetitionsAndItsEndIsSaid) {
  const auto points = spread_runs({566, 975, 1025, 1600}, 0.2);
  // 12 runs stored, budget 14: 2 more runs, one at each size.
  auto r = refine_set(0, points, {}, mm, precise(0.05, 14));
  ASSERT_EQ(r.status, Status::repeat) << r.explanation;
  EXPECT_THAT(r.repetitions, ::testing::ElementsAre(::testing::ElementsAre(0), ::testing::ElementsAre(0)));
  // Budget spent: the set ends with the precision asked, the half-width and the runs.
  r = refine_set(0, points, {}, mm, precise(0.05, 12));
  EXPECT_EQ(r.status, Status::precision_not_reached);
  EXPECT_TRUE(r.parameter_values.empty());
  EXPECT_NE(r.explanation.find("precision 5% not reached: half-width "), std::string::npos) << r.explanation;
  EXPECT_NE(r.explanation.find(" after 12 runs; the budget of 12 runs per set spent"), std::string::npos)
      << r.explanation;
  EXPECT_EQ(to_string(r.status), "precision_not_reached");
}

TEST(RefineByPrecision, TheLastRoundEndsTheSetWithoutReachingIt) {
  const auto r = refine_set(0, spread_runs({566, 975, 1025, 1600}, 0.2), {}, mm, precise(0.05, 60, 3));
  EXPECT_EQ(r.status, Status::precision_not_reached);
  EXPECT_NE(r.explanation.find(" after 12 runs; 3 refinement rounds spent"), std::string::npos) << r.explanation;
}

TEST(RefineByPrecision, RepetitionsCountWholeRepetitionsOfEveryWeights) {
  // Two weights: every repetition is 2 runs. 6 runs at the bracketing sizes double in 3
  // repetitions, the lower size first.
  RefineSettings s = precise(0.05, 60);
  s.runs_per_repetition = 2;
  const auto r = refine_set(0, spread_runs({566, 975, 1025, 1600}, 0.2), {}, mm, s);
  ASSERT_EQ(r.status, Status::repeat) << r.explanation;
  EXPECT_THAT(r.repetitions, ::testing::ElementsAre(::testing::ElementsAre(0, 1), ::testing::ElementsAre(0)));
}

// Sizes far apart around the target (800 and 1600 around N = 1000, which the curve through
// them puts at 1043: 4% off, beyond the widest step of 4% each way) and no size within tolerance: the interval through the fitted curve would
// say how noisy the runs are, not how far the curve between them may be off, so the sizes
// rule measures around the estimate first. A size within tolerance of the target lets the
// precision rule take the set as it is.
TEST(RefineByPrecision, SizesFarApartAroundTheTargetAreRefinedBySizesFirst) {
  auto r = refine_set(0, spread_runs({566, 800, 1600}, 0.005), {}, mm, precise(0.10, 60));
  EXPECT_EQ(r.status, Status::refine) << r.explanation;
  EXPECT_EQ(r.explanation, "set 0: the fitted curve reaches 0.3 at 1043.31");
  EXPECT_TRUE(r.repetitions.empty());
  r = refine_set(0, spread_runs({566, 800, 1000, 1600}, 0.005), {}, mm, precise(0.10, 60));
  EXPECT_EQ(r.status, Status::reached) << r.explanation;
  EXPECT_NE(r.explanation.find(": precision 10% reached: half-width "), std::string::npos) << r.explanation;
}

TEST(RefineByPrecision, ASetThatDoesNotBracketTheTargetIsRefinedBySizes) {
  const auto r = refine_set(0, spread_runs({400, 566, 800}, 0.2), {}, mm, precise(0.05, 60));
  EXPECT_EQ(r.status, Status::refine) << r.explanation;
  EXPECT_TRUE(r.repetitions.empty());
}

TEST(Refine, TheNextRoundGivesSizesOnlyToSetsThatNeedJobs) {
  Round previous{parse_experiment_spec("[experiment]\nname = \"x\"\ntarget_efficiency = 0.3\n[code]\nkernel = \"mm\"\n"
                                       "[parameter]\nmin = 10\nmax = 40\npoints = 3\n",
                                       "x.toml"),
                 {},
                 {},
                 3,
                 "0a1b2c3d"};
  for (std::size_t i = 0; i < 3; ++i) {
    RoundSet s;
    s.set.index = i;
    s.parameter_values = {1, 2};
    previous.sets.push_back(s);
  }
  for (std::size_t i = 3; i < 5; ++i) {
    RoundSet s;
    s.set.index = i;
    s.parameter_values = {1, 2};
    s.repetitions = {{0}, {0}};
    previous.sets.push_back(s);
  }
  SetRefinement done{0, Status::reached, 5, {}, "", {}};
  SetRefinement more{1, Status::refine, 50, {48, 50, 52}, "", {}};
  SetRefinement spent{2, Status::exhausted, 0, {}, "", {}};
  SetRefinement again{3, Status::repeat, 50, {40, 60}, "", {{2, 3}, {4}}};
  SetRefinement imprecise{4, Status::precision_not_reached, 50, {}, "", {}};
  const Round next = refined_round(previous, {done, more, spent, again, imprecise});
  ASSERT_EQ(next.sets.size(), 5U);
  EXPECT_TRUE(next.sets[0].parameter_values.empty());
  EXPECT_THAT(next.sets[1].parameter_values, ::testing::ElementsAre(48, 50, 52));
  EXPECT_TRUE(next.sets[1].repetitions.empty());  // every repetition of the spec
  EXPECT_TRUE(next.sets[2].parameter_values.empty());
  EXPECT_THAT(next.sets[3].parameter_values, ::testing::ElementsAre(40, 60));
  EXPECT_THAT(next.sets[3].repetitions, ::testing::ElementsAre(::testing::ElementsAre(2, 3), ::testing::ElementsAre(4)));
  EXPECT_TRUE(next.sets[4].parameter_values.empty() && next.sets[4].repetitions.empty());
  EXPECT_EQ(next.number, 4U);  // the plan file records it
  EXPECT_EQ(next.study_token, "0a1b2c3d");  // the study's, in its job names
  EXPECT_EQ(refined_round(next, {}).number, 5U);
}

}  // namespace
}  // namespace hetscale::jobgen
