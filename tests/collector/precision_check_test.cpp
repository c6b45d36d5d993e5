// Whether a set of the report's data reached its refinement's precision (report_views.hpp):
// from the view rows alone, as the report reads them.
#include <gtest/gtest.h>

#include "hetscale/collector/report_views.hpp"

namespace hetscale::collector {
namespace {

ExperimentData experiment_with_runs() {
  ExperimentData e;
  CurvePoint p;
  p.set_index = 1;
  p.runs = 3;
  e.curve.push_back(p);
  p.runs = 5;
  e.curve.push_back(p);
  p.set_index = 0;  // another set's runs do not count
  e.curve.push_back(p);
  return e;
}

TEST(PrecisionCheck, ReadsTheHalfWidthAndTheSetsRunsFromTheViewRows) {
  const ExperimentData e = experiment_with_runs();
  RequiredWork w;
  w.set_index = 1;
  w.parameter_value = 1000;
  w.parameter_interval = Interval{0.95, 950.0, 1080.0, ""};  // half-width 65 / 1000 = 6.5%
  w.precision = 0.1;
  w.max_runs_per_set = 16;
  auto check = precision_check(e, w);
  ASSERT_TRUE(check);
  EXPECT_TRUE(check->reached);
  EXPECT_EQ(check->status(), "reached");
  EXPECT_EQ(check->text, "precision 10% reached: half-width 6.5% after 8 runs");
  w.precision = 0.05;
  check = precision_check(e, w);
  EXPECT_EQ(check->status(), "precision_not_reached");
  EXPECT_EQ(check->text, "precision 5% not reached: half-width 6.5% after 8 runs");
  w.parameter_interval->high.reset();
  w.parameter_interval->detail =
      "upper bound open: 80 of 2000 resamples fall above the largest measured size 1600";
  EXPECT_EQ(precision_check(e, w)->text, "precision 5% not reached: an open bound after 8 runs");
  w.parameter_value.reset();
  w.parameter_interval = Interval{0.95, {}, {}, "no parameter"};
  EXPECT_EQ(precision_check(e, w)->text, "precision 5% not reached: no interval after 8 runs");
  w.precision.reset();  // the experiment asks no precision
  EXPECT_FALSE(precision_check(e, w));
}

}  // namespace
}  // namespace hetscale::collector
