#include "hetscale/model/efficiency_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

using Status = TargetReading::Status;

// E(N) = 0.6 N / (N + 500): rises towards a plateau of 0.6, like a real E_s curve.
double saturating(double n) {
  return 0.6 * n / (n + 500);
}
double saturating_inverse(double e) {
  return 500 * e / (0.6 - e);
}

std::vector<EfficiencyPoint> sample_saturating() {
  std::vector<EfficiencyPoint> points;
  for (const double n : {100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, 12800.0}) {
    points.push_back({n, saturating(n)});
  }
  return points;
}

template <typename F>
void expect_error(F&& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error, expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(EfficiencyFit, RecoversAKnownMonotoneFunction) {
  const auto points = sample_saturating();
  const auto curve = EfficiencyCurve::fit(points);
  for (const double target : {0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55}) {
    const auto reading = curve.parameter_at(target);
    ASSERT_EQ(reading.status, Status::found) << target;
    const double exact = saturating_inverse(target);
    EXPECT_NEAR(reading.parameter, exact, 0.01 * exact) << "target " << target;
  }
  // The curve itself, between the knots.
  for (double n = 100; n <= 12800; n *= 1.1) {
    EXPECT_NEAR(curve.at(n), saturating(n), 0.01 * saturating(n)) << n;
  }
}

TEST(EfficiencyFit, KnotsAreReproducedAndEndsAreTheMeasuredRange) {
  const auto points = sample_saturating();
  const auto curve = EfficiencyCurve::fit(points);
  EXPECT_EQ(curve.min_parameter(), 100.0);
  EXPECT_EQ(curve.max_parameter(), 12800.0);
  for (const auto& p : points) EXPECT_EQ(curve.at(p.parameter), p.efficiency);
  const auto at_knot = curve.parameter_at(saturating(800));
  ASSERT_EQ(at_knot.status, Status::found);
  EXPECT_EQ(at_knot.parameter, 800.0);
  EXPECT_EQ(curve.parameter_at(saturating(100)).parameter, 100.0);
  EXPECT_EQ(curve.parameter_at(saturating(12800)).parameter, 12800.0);
}

TEST(EfficiencyFit, CurveIsMonotoneAndReadingIsConsistent) {
  const auto curve = EfficiencyCurve::fit(sample_saturating());
  double previous = 0;
  for (double n = 100; n <= 12800; n += 7) {
    const double e = curve.at(n);
    EXPECT_GE(e, previous) << n;
    previous = e;
  }
  const auto reading = curve.parameter_at(0.3);
  ASSERT_EQ(reading.status, Status::found);
  EXPECT_NEAR(curve.at(reading.parameter), 0.3, 1e-9);
}

TEST(EfficiencyFit, NoisyNonMonotoneDataIsPooled) {
  // 400 dips below 200: isotonic regression pools them to their mean 0.325.
  const std::vector<EfficiencyPoint> points{{100, 0.2}, {200, 0.35}, {400, 0.3}, {800, 0.45}};
  const auto curve = EfficiencyCurve::fit(points);
  ASSERT_EQ(curve.knots().size(), 4u);
  EXPECT_DOUBLE_EQ(curve.knots()[1].fitted_efficiency, 0.325);
  EXPECT_DOUBLE_EQ(curve.knots()[2].fitted_efficiency, 0.325);
  EXPECT_EQ(curve.knots()[1].mean_efficiency, 0.35);
  EXPECT_EQ(curve.knots()[2].mean_efficiency, 0.3);
  double previous = 0;
  for (double n = 100; n <= 800; n += 5) {
    EXPECT_GE(curve.at(n), previous) << n;
    previous = curve.at(n);
  }
  // The flat stretch at exactly the target: its smallest parameter.
  const auto flat = curve.parameter_at(curve.knots()[1].fitted_efficiency);
  ASSERT_EQ(flat.status, Status::found);
  EXPECT_EQ(flat.parameter, 200.0);
  // Exactly one crossing for a target inside the dip's old range.
  const auto above = curve.parameter_at(0.34);
  ASSERT_EQ(above.status, Status::found);
  EXPECT_GT(above.parameter, 400.0);
  EXPECT_LT(above.parameter, 800.0);
}

TEST(EfficiencyFit, RepeatsAreAveragedAndWeighted) {
  // Two repeats at 200 (mean 0.35) outweigh the single dip at 400: pooled to
  // (2 * 0.35 + 0.29) / 3 = 0.33.
  const std::vector<EfficiencyPoint> points{{800, 0.5},  {200, 0.34}, {100, 0.2},
                                            {400, 0.29}, {200, 0.36}, {100, 0.22}};
  const auto curve = EfficiencyCurve::fit(points);
  ASSERT_EQ(curve.knots().size(), 4u);
  EXPECT_EQ(curve.knots()[0].parameter, 100.0);
  EXPECT_EQ(curve.knots()[0].repeats, 2u);
  EXPECT_DOUBLE_EQ(curve.knots()[0].mean_efficiency, 0.21);
  EXPECT_EQ(curve.knots()[1].repeats, 2u);
  EXPECT_DOUBLE_EQ(curve.knots()[1].fitted_efficiency, 0.33);
  EXPECT_DOUBLE_EQ(curve.knots()[2].fitted_efficiency, 0.33);
  EXPECT_DOUBLE_EQ(curve.at(100), 0.21);
}

TEST(EfficiencyFit, TwoPointsGiveAStraightLineInLogParameter) {
  const std::vector<EfficiencyPoint> points{{100, 0.2}, {10000, 0.4}};
  const auto curve = EfficiencyCurve::fit(points);
  EXPECT_NEAR(curve.at(1000), 0.3, 1e-12);
  const auto reading = curve.parameter_at(0.3);
  ASSERT_EQ(reading.status, Status::found);
  EXPECT_NEAR(reading.parameter, 1000.0, 1e-9);
  EXPECT_EQ(reading.explanation,
            "target E_s 0.3 is reached at parameter 1000 (fitted on 2 distinct parameter values "
            "from 100 to 1e+04)");
}

TEST(EfficiencyFit, TooFewPoints) {
  const std::vector<EfficiencyPoint> same{{500, 0.3}, {500, 0.32}};
  const auto one = EfficiencyCurve::fit(same);
  const auto reading = one.parameter_at(0.3);
  EXPECT_EQ(reading.status, Status::too_few_points);
  EXPECT_EQ(reading.explanation,
            "need measurements at 2 or more distinct parameter values to read off target E_s "
            "0.3, got 1");
  EXPECT_EQ(one.min_parameter(), 500.0);
  expect_error([&] { (void)one.at(500); },
               "efficiency curve: need measurements at 2 or more distinct parameter values, got 1");
  const auto none = EfficiencyCurve::fit({});
  EXPECT_EQ(none.parameter_at(0.3).status, Status::too_few_points);
  expect_error([&] { (void)none.min_parameter(); }, "efficiency curve has no points");
  expect_error([&] { (void)none.max_parameter(); }, "efficiency curve has no points");
}

TEST(EfficiencyFit, TargetsOutsideTheMeasuredRange) {
  const std::vector<EfficiencyPoint> points{{100, 0.2}, {400, 0.3}, {1600, 0.4}};
  const auto curve = EfficiencyCurve::fit(points);
  const auto low = curve.parameter_at(0.1);
  EXPECT_EQ(low.status, Status::below_range);
  EXPECT_EQ(low.explanation,
            "target E_s 0.1 is below the fitted curve (E_s 0.2 at parameter 100 to 0.4 at "
            "parameter 1600): measure smaller parameter values to bracket it (no extrapolation)");
  const auto high = curve.parameter_at(0.5);
  EXPECT_EQ(high.status, Status::above_range);
  EXPECT_EQ(high.explanation,
            "target E_s 0.5 is above the fitted curve (E_s 0.2 at parameter 100 to 0.4 at "
            "parameter 1600): measure larger parameter values to bracket it (no extrapolation; "
            "if E_s has levelled off, the target may be out of reach on this set)");
  expect_error([&] { (void)curve.at(50); }, "parameter 50 is outside the fitted range [100, 1600]");
  expect_error([&] { (void)curve.at(1600.5); },
               "parameter 1600.5 is outside the fitted range [100, 1600]");
}

TEST(EfficiencyFit, BadInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<EfficiencyPoint> zero{{100, 0.2}, {0, 0.3}};
  expect_error([&] { (void)EfficiencyCurve::fit(zero); },
               "point 2 of 2: parameter must be a positive finite number, got 0");
  const std::vector<EfficiencyPoint> negative{{-5, 0.2}};
  expect_error([&] { (void)EfficiencyCurve::fit(negative); },
               "point 1 of 1: parameter must be a positive finite number, got -5");
  const std::vector<EfficiencyPoint> infinite{{100, 0.2}, {200, 0.3}, {inf, 0.3}};
  expect_error([&] { (void)EfficiencyCurve::fit(infinite); },
               "point 3 of 3: parameter must be a positive finite number, got inf");
  const std::vector<EfficiencyPoint> bad_e{{100, nan}};
  expect_error([&] { (void)EfficiencyCurve::fit(bad_e); },
               "point 1 of 1: speed-efficiency must be a finite number >= 0, got nan");
  const std::vector<EfficiencyPoint> negative_e{{100, -0.1}};
  expect_error([&] { (void)EfficiencyCurve::fit(negative_e); },
               "point 1 of 1: speed-efficiency must be a finite number >= 0, got -0.1");
  const auto curve = EfficiencyCurve::fit(sample_saturating());
  expect_error([&] { (void)curve.parameter_at(nan); },
               "target speed-efficiency must be a finite number, got nan");
}

// analyze --tolerance and jobgen --refine: a measured mean within tolerance x target.
TEST(EfficiencyFit, AMeasuredPointWithinTheToleranceIsAcceptedWhenNotBracketed) {
  // Means 0.2 (N = 100) and 0.388 (N = 200): the target 0.4 is above the curve.
  const std::vector<EfficiencyPoint> points{{100, 0.2}, {200, 0.38}, {200, 0.396}};
  const auto curve = EfficiencyCurve::fit(points);
  EXPECT_EQ(curve.parameter_at(0.4).status, TargetReading::Status::above_range);
  const auto within = curve.parameter_within(0.4, 0.05);  // |0.388 - 0.4| = 3% of 0.4
  EXPECT_EQ(within.status, TargetReading::Status::within_tolerance);
  EXPECT_EQ(within.parameter, 200.0);
  EXPECT_EQ(within.explanation,
            "target E_s 0.4 is not bracketed by the runs, but the measured mean E_s 0.388 at "
            "parameter 200 is within 5% of it: taken as reached there (the rule of jobgen "
            "--refine)");
  EXPECT_EQ(curve.parameter_within(0.4, default_efficiency_tolerance).status,
            TargetReading::Status::above_range);  // 3% > 2%
  EXPECT_EQ(curve.parameter_within(0.42, 0.05).status,
            TargetReading::Status::above_range);  // 7.6%
  // Bracketed targets are read off the curve as before, tolerance or not.
  const auto found = curve.parameter_within(0.3, 0.05);
  EXPECT_EQ(found.status, TargetReading::Status::found);
  EXPECT_EQ(found.parameter, curve.parameter_at(0.3).parameter);
  // A single measured size within tolerance counts too (jobgen stops there as well).
  const std::vector<EfficiencyPoint> one{{300, 0.41}};
  EXPECT_EQ(EfficiencyCurve::fit(one).parameter_within(0.4, 0.05).status,
            TargetReading::Status::within_tolerance);
  expect_error([&] { (void)curve.parameter_within(0.4, 1); },
               "tolerance must be in [0, 1) (a fraction of the target), got 1");
}

TEST(EfficiencyFit, FitAveragedIsFitAfterAveraging) {
  std::vector<EfficiencyPoint> points = sample_saturating();
  points.push_back({800, saturating(800) * 1.2});  // a repeat, pooled by the isotonic fit
  points.push_back({400, saturating(400) * 1.3});
  const EfficiencyCurve from_points = EfficiencyCurve::fit(points);
  std::vector<FittedKnot> knots = from_points.knots();
  for (auto& k : knots) k.fitted_efficiency = 0;
  const EfficiencyCurve from_means = EfficiencyCurve::fit_averaged(knots);
  ASSERT_EQ(from_means.knots().size(), from_points.knots().size());
  for (std::size_t i = 0; i < knots.size(); ++i)
    EXPECT_EQ(from_means.knots()[i].fitted_efficiency, from_points.knots()[i].fitted_efficiency);
  EXPECT_EQ(from_means.parameter_at(0.4).parameter, from_points.parameter_at(0.4).parameter);
  std::vector<FittedKnot> unordered{{200, 0.1, 0, 1}, {100, 0.2, 0, 1}};
  expect_error([&] { (void)EfficiencyCurve::fit_averaged(unordered); },
               "size 2 of 2: parameters must be positive, finite and ascending, got 100");
  std::vector<FittedKnot> empty_size{{100, 0.1, 0, 1}, {200, 0.2, 0, 0}};
  expect_error([&] { (void)EfficiencyCurve::fit_averaged(empty_size); },
               "size 2 of 2: needs a finite mean speed-efficiency >= 0 over at least one run, got "
               "0.2 over 0");
}

// A reading gives a parameter when found or within tolerance, and only then: the one test
// that the bootstrap, analyze and its table ask.
TEST(TargetReading, HasAParameterWhenFoundOrWithinTolerance) {
  for (const auto& [status, has] : {std::pair{Status::found, true}, {Status::within_tolerance, true},
                                    {Status::below_range, false}, {Status::above_range, false},
                                    {Status::too_few_points, false}}) {
    TargetReading reading;
    reading.status = status;
    EXPECT_EQ(reading.has_parameter(), has) << static_cast<int>(status);
  }
}

}  // namespace
}  // namespace hetscale
