// collector::forecast_experiment, the call `hetscale predict --db` and a study's predict
// stage make, on the synthetic experiment: what it returns is what it stores.
#include "hetscale/collector/forecast_batch.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/collector/prediction_data.hpp"
#include "hetscale/collector/report_views.hpp"
#include "synthetic_experiment.hpp"

namespace hetscale::test {
namespace {

class ForecastBatch : public SyntheticExperiment {
 protected:
  [[nodiscard]] std::string stored_rows() const {
    return db_.scalar("SELECT count(*) FROM hetscale.predictions");
  }
};

// The synthetic experiment at kTarget, `doublings` doublings.
ForecastOptions synthetic_options(std::size_t doublings) {
  ForecastOptions options;
  options.experiment = "synthetic";
  options.target = kTarget;
  options.doublings = doublings;
  return options;
}

TEST_F(ForecastBatch, StoresTheRowsItReturns) {
  ForecastOptions options = synthetic_options(1);
  options.what_ifs = {parse_what_if("group:300:4")};
  options.fit_sets = {0, 1};
  auto conn = db_.connect();
  const ExperimentForecast f = collector::forecast_experiment(conn, options);
  EXPECT_EQ(f.fitted_runs, 14u);
  EXPECT_EQ(f.held_out_runs, 7u);
  ASSERT_EQ(f.rows.size(), 5u);  // 3 measured, 1 doubling, 1 what-if
  EXPECT_EQ(db_.scalar("SELECT max(batch) FROM hetscale.predictions"), std::to_string(f.batch));
  const pg::Result stored = conn.exec(R"sql(
    SELECT position, kind, label, marked_speed, predicted_parameter, model, target_efficiency
    FROM hetscale.predictions WHERE batch = $1 ORDER BY position)sql",
                                      {std::to_string(f.batch)});
  ASSERT_EQ(stored.rows(), static_cast<int>(f.rows.size()));
  for (int i = 0; i < stored.rows(); ++i) {
    const ForecastRow& row = f.rows[static_cast<std::size_t>(i)];
    SCOPED_TRACE(row.set.label);
    EXPECT_EQ(stored.integer(i, 0), i);
    EXPECT_EQ(stored.text(i, 1), to_string(row.set.kind));
    EXPECT_EQ(stored.text(i, 2), row.set.label);
    EXPECT_DOUBLE_EQ(stored.number(i, 3), row.set.marked_speed);
    EXPECT_DOUBLE_EQ(stored.number(i, 4), row.prediction.parameter);
    EXPECT_EQ(stored.text(i, 5), f.model);
    EXPECT_DOUBLE_EQ(stored.number(i, 6), kTarget);
  }
  // Every row's intervals, as returned, in the view the report reads.
  const pg::Result intervals = conn.exec(R"sql(
    SELECT predicted_parameter_low, predicted_parameter_high, predicted_work_low,
           predicted_work_high, predicted_psi_low, predicted_psi_high, interval_level,
           interval_method, interval_resamples, interval_note, psi_interval_note
    FROM hetscale.capacity_forecast WHERE experiment = 'synthetic' ORDER BY position)sql",
                                         {});
  ASSERT_EQ(intervals.rows(), static_cast<int>(f.rows.size()));
  for (int i = 0; i < intervals.rows(); ++i) {
    const ForecastRow& row = f.rows[static_cast<std::size_t>(i)];
    SCOPED_TRACE(row.set.label);
    ASSERT_TRUE(row.parameter_interval.low && row.parameter_interval.high)
        << row.parameter_interval.note;
    EXPECT_DOUBLE_EQ(intervals.number(i, 0), *row.parameter_interval.low);
    EXPECT_DOUBLE_EQ(intervals.number(i, 1), *row.parameter_interval.high);
    EXPECT_DOUBLE_EQ(intervals.number(i, 2), *row.work_interval.low);
    EXPECT_DOUBLE_EQ(intervals.number(i, 3), *row.work_interval.high);
    EXPECT_LE(intervals.number(i, 0), row.prediction.parameter * (1 + 1e-9));
    EXPECT_GE(intervals.number(i, 1), row.prediction.parameter * (1 - 1e-9));
    EXPECT_EQ(intervals.is_null(i, 4), i == 0);  // the first row has no psi
    if (i > 0) {
      EXPECT_DOUBLE_EQ(intervals.number(i, 5), *row.psi_interval.high);
    }
    EXPECT_DOUBLE_EQ(intervals.number(i, 6), 0.9);
    EXPECT_EQ(intervals.text(i, 7), forecast_interval_method);
    EXPECT_EQ(intervals.integer(i, 8), static_cast<long long>(default_forecast_resamples));
    EXPECT_TRUE(intervals.is_null(i, 9));
    EXPECT_TRUE(intervals.is_null(i, 10));
  }
  // The report reads them from the view (report_views.hpp).
  const collector::ReportData data = collector::read_report_data(conn, {"synthetic"});
  ASSERT_EQ(data.experiments.size(), 1u);
  const auto& read = data.experiments[0].forecasts;
  ASSERT_EQ(read.size(), f.rows.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    SCOPED_TRACE(read[i].label);
    ASSERT_TRUE(read[i].predicted_parameter_interval && read[i].predicted_work_interval);
    EXPECT_EQ(read[i].predicted_parameter_interval->level, 0.9);
    EXPECT_EQ(read[i].predicted_parameter_interval->low, f.rows[i].parameter_interval.low);
    EXPECT_EQ(read[i].predicted_work_interval->high, f.rows[i].work_interval.high);
    EXPECT_EQ(read[i].predicted_psi_interval.has_value(), i > 0);  // a figure to bound
    if (i > 0) {
      EXPECT_EQ(read[i].predicted_psi_interval->low, f.rows[i].psi_interval.low);
    }
  }
  // Fitted on sets 0 and 1, the model still gives the held-out set 2 and the what-if (8
  // nodes + 4 of 300 Mflops) their closed-form parameters.
  EXPECT_NEAR(f.rows[2].prediction.parameter / closed_form_parameter(800e6, 8), 1, 1e-6);
  EXPECT_NEAR(f.rows[4].prediction.parameter / closed_form_parameter(2000e6, 12), 1, 1e-6);
  EXPECT_TRUE(f.model.ends_with("; fitted on sets 0,1 (14 runs)")) << f.model;

  // A second forecast is a second batch.
  const ExperimentForecast again = collector::forecast_experiment(conn, options);
  EXPECT_GT(again.batch, f.batch);
  EXPECT_EQ(stored_rows(), "10");
}

// A figure without an interval (as add_forecast_intervals leaves every row when the runs
// are no more than the model's coefficients): its short reason and note stored apart, in
// the view, and read by the report as the reason and the detail.
TEST_F(ForecastBatch, AFigureWithoutAnIntervalStoresItsShortReasonBesideItsNote) {
  auto conn = db_.connect();
  ExperimentForecast f = collector::forecast_experiment(conn, synthetic_options(1));
  ASSERT_GE(f.rows.size(), 2u);
  const std::string note =
      "no interval: 3 runs for 3 fitted coefficients of the time model; an interval needs more "
      "runs than coefficients";
  ForecastRow& row = f.rows[1];
  ASSERT_TRUE(row.psi);
  row.parameter_interval = row.work_interval = {{}, {}, "too few runs", note};
  row.psi_interval = row.parameter_interval;
  const long long id = std::stoll(
      db_.scalar("SELECT experiment_id FROM hetscale.experiments WHERE name = 'synthetic'"));
  collector::store_predictions(conn, id, f);
  EXPECT_EQ(db_.scalar("SELECT string_agg(coalesce(interval_reason, '-') || ', ' || "
                       "coalesce(psi_interval_reason, '-') || ', ' || coalesce(interval_note, "
                       "'-'), '; ' ORDER BY position) FROM hetscale.capacity_forecast "
                       "WHERE position < 2"),
            "-, -, -; too few runs, too few runs, " + note);
  const collector::ReportData data = collector::read_report_data(conn, {"synthetic"});
  ASSERT_EQ(data.experiments.size(), 1u);
  const auto& read = data.experiments[0].forecasts;
  ASSERT_EQ(read.size(), f.rows.size());
  ASSERT_TRUE(read[0].predicted_parameter_interval);
  EXPECT_TRUE(read[0].predicted_parameter_interval->low.has_value());
  EXPECT_EQ(read[0].predicted_parameter_interval->reason, "");
  for (const auto* i : {&read[1].predicted_parameter_interval, &read[1].predicted_work_interval,
                        &read[1].predicted_psi_interval}) {
    ASSERT_TRUE(*i);
    EXPECT_FALSE((*i)->low || (*i)->high);
    EXPECT_EQ((*i)->reason, "too few runs");
    EXPECT_EQ((*i)->detail, note);
    EXPECT_EQ((*i)->method, forecast_interval_method);
    EXPECT_EQ((*i)->level, 0.9);
  }
}

TEST_F(ForecastBatch, SiteGivenReplacesTheExperimentsSite) {
  ForecastOptions options = synthetic_options(0);
  options.what_ifs = {parse_what_if("add:2:fast")};
  auto conn = db_.connect();
  EXPECT_THROW(collector::forecast_experiment(conn, options), Error);  // no site in the database
  SiteTable site;
  site.name = "synthetic";
  site.speed_unit = "Mflops";
  site.groups = {{"slow", 100, {}}, {"fast", 250, {}}};
  site.nodes = {{"f1", "fast", 2, 250, NodeState::ok, {}},
                {"f2", "fast", 2, 250, NodeState::ok, {}}};
  site.index();
  options.site = site;
  const ExperimentForecast f = collector::forecast_experiment(conn, options);
  ASSERT_EQ(f.rows.size(), 4u);
  // 8 nodes of 100 + 2 fast nodes of 2 processors at 250: C = 1800, p = 12.
  EXPECT_DOUBLE_EQ(f.rows[3].set.marked_speed, 1800);
  EXPECT_EQ(f.rows[3].set.processes, 12u);
  EXPECT_EQ(db_.scalar("SELECT marked_speed FROM hetscale.predictions WHERE kind = 'what_if'"),
            "1800");
}

TEST_F(ForecastBatch, TooLittleToFitStoresNothing) {
  auto conn = db_.connect();
  ForecastOptions options = synthetic_options(2);
  options.fit_sets = {2};  // one process count
  EXPECT_THROW(collector::forecast_experiment(conn, options), Error);
  options.fit_sets.clear();
  options.target.reset();  // the planned target: the runs were collected without a plan
  try {
    collector::forecast_experiment(conn, options);
    FAIL() << "no plan, yet a target";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "experiment 'synthetic' has no plan with a target E_s: give --target");
  }
  EXPECT_EQ(stored_rows(), "0");
  // The connection is usable afterwards: every failure rolled its transaction back.
  options.target = kTarget;
  EXPECT_GT(collector::forecast_experiment(conn, options).batch, 0);
}

}  // namespace
}  // namespace hetscale::test
