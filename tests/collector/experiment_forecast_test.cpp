#include "hetscale/collector/experiment_forecast.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

#include "hetscale/base/error.hpp"
#include "hetscale/model/kernel_communication.hpp"
#include "hetscale/model/network_probe.hpp"

namespace hetscale {
namespace {

// Runs generated from a known time model T = W/(C eta) + c0 [p>1] + c1 N^2 ceil(log2 p),
// W = 2 N^3, on sets of 2, 4 and 8 one-processor nodes of 100 Mflops each.
constexpr double kEta = 0.8;
constexpr double kLatency = 0.01;
constexpr double kVolume = 2e-8;
constexpr double kNodeMflops = 100;

double overhead(double n, double p) {
  return kLatency + kVolume * n * n * std::ceil(std::log2(p));
}

// E_s = W / (T C) of the generating model on C (ops/s) and p.
double speed_efficiency(double n, double c, double p) {
  const double work = 2 * n * n * n;
  return work / ((work / (c * kEta) + overhead(n, p)) * c);
}

TimingSample sample(double n, int nodes, double communication) {
  TimingSample s;
  s.parameter = n;
  s.processes = static_cast<std::size_t>(nodes);
  s.marked_speed = kNodeMflops * nodes * 1e6;
  s.compute_seconds = 2 * n * n * n / (s.marked_speed * kEta);
  s.communication_seconds = communication;
  s.wall_seconds = s.compute_seconds + s.communication_seconds;
  return s;
}

TimingSample sample(double n, int nodes) { return sample(n, nodes, overhead(n, nodes)); }

// The runs of `code` on the three sets at N = smallest, 2 smallest, ... 64 smallest, their
// communication `communication(N, p)`.
PredictionInput generated_input(const std::string& code, double smallest,
                                const std::function<double(double, int)>& communication) {
  PredictionInput in;
  in.code = code;
  in.workload = "2*N^3";
  in.parameter = "N";
  in.speed_unit = "Mflops";
  in.ops_per_unit = 1e6;
  for (int set = 0; set < 3; ++set) {
    const int nodes = 2 << set;
    for (double n = smallest; n <= 64 * smallest; n *= 2) {
      in.samples.push_back(sample(n, nodes, communication(n, nodes)));
      in.sample_sets.push_back(set);
    }
    ForecastSet measured;
    measured.label = "set " + std::to_string(set);
    measured.set_index = set;
    measured.node_count = static_cast<std::size_t>(nodes);
    measured.marked_speed = kNodeMflops * nodes;
    measured.processes = static_cast<std::size_t>(nodes);
    in.measured.push_back(measured);
  }
  return in;
}

PredictionInput synthetic_input() {
  PredictionInput in = generated_input("synthetic", 25, overhead);
  for (std::size_t set = 0; set < in.measured.size(); ++set)  // made up: the relative errors follow
    in.measured[set].measured_parameter = 100.0 * static_cast<double>(set + 1);
  return in;
}

TEST(ChooseFittingSamples, SplitsTheRunsBySet) {
  const auto in = synthetic_input();
  const auto all = choose_fitting_samples(in.samples, in.sample_sets, {}, "e");
  EXPECT_EQ(all.fitted.size(), 21u);
  EXPECT_TRUE(all.held_out.empty());
  EXPECT_EQ(all.fitted_sets, (std::set<int>{0, 1, 2}));
  const auto two = choose_fitting_samples(in.samples, in.sample_sets, {0, 2}, "e");
  EXPECT_EQ(two.fitted.size(), 14u);
  EXPECT_EQ(two.held_out.size(), 7u);
  EXPECT_EQ(two.fitted_sets, (std::set<int>{0, 2}));
  for (const auto& s : two.held_out) EXPECT_EQ(s.processes, 4u);  // set 1's
}

TEST(ChooseFittingSamples, UnknownSetsAndTooFewProcessCountsAreNamed) {
  const auto in = synthetic_input();
  try {
    choose_fitting_samples(in.samples, in.sample_sets, {1, 7}, "e");
    FAIL() << "set 7 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "--fit-sets: set 7 is not a measured set of experiment 'e' (sets with timed "
                 "runs: 0,1,2)");
  }
  try {
    choose_fitting_samples(in.samples, in.sample_sets, {1}, "e");
    FAIL() << "one process count accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "--fit-sets 1: 7 run(s) on 1 process count(s); the model needs runs on at least "
                 "2 machine sets with different process counts to separate computation from "
                 "communication: add one of sets 0,2");
  }
}

TEST(ForecastSets, MeasuredThenDoublingsAndWhatIfsOfTheFastest) {
  auto measured = synthetic_input().measured;
  std::swap(measured[1], measured[2]);  // the fastest set is not the last one
  const auto sets = forecast_sets(measured, 2, {parse_what_if("group:50:3")}, nullptr);
  ASSERT_EQ(sets.size(), 6u);
  EXPECT_EQ(sets[2].label, "set 1");
  EXPECT_EQ(sets[3].kind, ForecastKind::doubling);
  EXPECT_DOUBLE_EQ(sets[3].marked_speed, 2 * 800);
  EXPECT_EQ(sets[3].processes, 16u);
  EXPECT_DOUBLE_EQ(sets[4].marked_speed, 4 * 800);
  EXPECT_EQ(sets[5].kind, ForecastKind::what_if);
  EXPECT_DOUBLE_EQ(sets[5].marked_speed, 800 + 3 * 50);
  EXPECT_EQ(sets[5].processes, 8u + 3u);
}

TEST(MeanRelativeError, OfRunsOffTheModel) {
  const auto in = synthetic_input();
  const TimeModel model =
      TimeModel::fit(in.samples, Workload::parse(in.workload), CommunicationPattern::generic);
  EXPECT_LT(mean_relative_error(model, in.samples), 1e-6);
  // Runs 10% and 30% slower than the model: |T - 1.1 T| / 1.1 T = 0.1 / 1.1, and so on.
  auto slow = sample(100, 4);
  slow.wall_seconds *= 1.1;
  auto slower = sample(400, 8);
  slower.wall_seconds *= 1.3;
  EXPECT_NEAR(mean_relative_error(model, {slow, slower}), (0.1 / 1.1 + 0.3 / 1.3) / 2, 1e-6);
  EXPECT_EQ(mean_relative_error(model, {}), 0);
}

ForecastRow row(ForecastKind kind, std::optional<int> set, std::optional<double> error) {
  ForecastRow r;
  r.set.kind = kind;
  r.set.set_index = set;
  r.relative_error = error;
  return r;
}

TEST(MeanParameterError, FittedAndHeldOutSetsApart) {
  const std::vector<ForecastRow> rows{
      row(ForecastKind::measured, 0, -0.1), row(ForecastKind::measured, 1, 0.3),
      row(ForecastKind::measured, 2, -0.2), row(ForecastKind::measured, 3, std::nullopt),
      row(ForecastKind::doubling, std::nullopt, std::nullopt)};
  EXPECT_DOUBLE_EQ(*mean_parameter_error(rows, {0, 2}, true), (0.1 + 0.2) / 2);
  EXPECT_DOUBLE_EQ(*mean_parameter_error(rows, {0, 2}, false), 0.3);
  EXPECT_DOUBLE_EQ(*mean_parameter_error(rows, {}, true), (0.1 + 0.3 + 0.2) / 3);
  EXPECT_FALSE(mean_parameter_error(rows, {}, false));
  EXPECT_FALSE(mean_parameter_error(rows, {3}, true));  // set 3 has no measured parameter
}

// The held-out summary's count: a held-out set's measured parameter against its row's
// interval, an open bound covering its side, a row without an interval covering nothing.
TEST(HeldOutCoverage, CountsTheHeldOutSetsWhoseMeasuredParameterIsInsideTheirInterval) {
  const auto held_out = [](int set, std::optional<double> measured, std::optional<double> low,
                           std::optional<double> high, std::string reason = "") {
    ForecastRow r = row(ForecastKind::measured, set, std::nullopt);
    r.set.measured_parameter = measured;
    r.prediction.found = true;
    r.parameter_interval = {low, high, std::move(reason), ""};
    return r;
  };
  std::vector<ForecastRow> rows{
      held_out(0, 100, 200, 300),                      // fitted (fit = {0}): not counted
      held_out(1, 100, 90, 110),                       // inside
      held_out(2, 150, 160, std::nullopt),             // below its lower bound
      held_out(3, 200, std::nullopt, 250),             // inside: the lower bound is open
      held_out(4, 120, std::nullopt, std::nullopt, "too few runs"),  // no interval
      held_out(5, std::nullopt, 90, 110),              // nothing measured: not counted
      row(ForecastKind::doubling, std::nullopt, std::nullopt)};
  rows.push_back(held_out(6, 300, 250, 300));          // on its upper bound: inside
  rows.back().prediction.found = false;                // ... but no forecast: not counted
  const HeldOutCoverage c = held_out_coverage(rows, {0});
  EXPECT_EQ(c.points, 4u);
  EXPECT_EQ(c.inside, 2u);
  EXPECT_EQ(held_out_coverage(rows, {}).points, 0u);  // every set fitted
}

TEST(ForecastFromInput, HeldOutSetPredictedToTheClosedForm) {
  const auto in = synthetic_input();
  ForecastOptions options;
  options.experiment = "synthetic";
  options.doublings = 1;
  options.fit_sets = {0, 1};
  const auto f = forecast_from_input(in, options, 0.5);
  EXPECT_EQ(f.experiment, "synthetic");
  EXPECT_EQ(f.target, 0.5);
  EXPECT_EQ(f.fitted_runs, 14u);
  EXPECT_EQ(f.held_out_runs, 7u);
  EXPECT_EQ(f.fitted_sets, (std::set<int>{0, 1}));
  EXPECT_LT(f.forecast_error, 1e-6);
  ASSERT_TRUE(f.held_out_forecast_error);
  EXPECT_LT(*f.held_out_forecast_error, 1e-6);
  EXPECT_TRUE(f.model.ends_with("; fitted on sets 0,1 (14 runs)")) << f.model;
  ASSERT_EQ(f.rows.size(), 4u);
  // Exact runs, exact model: every predicted parameter gives the target E_s, the
  // held-out set's and the doubling's included.
  const std::vector<double> speeds{200, 400, 800, 1600};
  for (std::size_t i = 0; i < f.rows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_DOUBLE_EQ(f.rows[i].set.marked_speed, speeds[i]);
    EXPECT_NEAR(
        speed_efficiency(f.rows[i].prediction.parameter, speeds[i] * 1e6, speeds[i] / kNodeMflops),
        0.5, 1e-6);
  }
  // relative_error against the made-up measured parameters 100, 200, 300.
  const auto expected_error = [&](std::size_t i) {
    return std::abs(f.rows[i].prediction.parameter - 100.0 * (i + 1)) / (100.0 * (i + 1));
  };
  EXPECT_NEAR(*f.held_out_parameter_error, expected_error(2), 1e-12);
  EXPECT_NEAR(*f.fitted_parameter_error, (expected_error(0) + expected_error(1)) / 2, 1e-12);
}

// A what-if set's psi is against the measured set it grows (the fastest, set 2 of 8 nodes),
// not against the row before it (the last doubling, 32 nodes); a doubling's is against the
// row before it.
TEST(ForecastFromInput, WhatIfPsiIsAgainstItsBaseAndDoublingPsiAgainstThePreviousRow) {
  ForecastOptions options;
  options.experiment = "synthetic";
  options.doublings = 2;
  options.what_ifs = {parse_what_if("group:100:2")};
  const auto f = forecast_from_input(synthetic_input(), options, 0.5);
  ASSERT_EQ(f.rows.size(), 6u);
  auto psi = [&](std::size_t row, std::size_t against) {
    const auto& r = f.rows[row];
    const auto& a = f.rows[against];
    return (r.set.marked_speed * a.prediction.work) / (a.set.marked_speed * r.prediction.work);
  };
  EXPECT_FALSE(f.rows[0].psi_against);
  EXPECT_FALSE(f.rows[0].psi);
  for (std::size_t i = 1; i < 5; ++i) {  // measured sets and doublings
    SCOPED_TRACE(i);
    ASSERT_TRUE(f.rows[i].prediction.found);
    EXPECT_EQ(f.rows[i].psi_against, i - 1);
    EXPECT_NEAR(*f.rows[i].psi, psi(i, i - 1), 1e-12);
  }
  const auto& what_if = f.rows[5];
  EXPECT_EQ(what_if.set.kind, ForecastKind::what_if);
  EXPECT_EQ(what_if.set.label, "group:100:2 on set 2");
  EXPECT_EQ(what_if.set.node_count, 10u);
  ASSERT_EQ(what_if.psi_against, 2u);
  EXPECT_NEAR(*what_if.psi, psi(5, 2), 1e-12);
  // Ten nodes from eight: a psi near 1, as for the doublings, not the ratio to 32 nodes.
  EXPECT_GT(*what_if.psi, 0.5);
  EXPECT_LT(*what_if.psi, 1.01);
  // The printed table names the row each psi is against.
  const Table t = forecast_table(f, TableFormat::table);
  EXPECT_EQ(t.columns[8], "psi_against");
  EXPECT_EQ(t.rows[0][8], Cell(std::monostate{}));
  EXPECT_EQ(t.rows[1][8], Cell(std::string("set 0")));
  EXPECT_EQ(t.rows[5][8], Cell(std::string("set 2")));
}

// synthetic_input() with every run's times off the model by up to `amplitude` (a fixed
// pattern: 1 + amplitude sin(7 i) for run i).
PredictionInput synthetic_input_off_the_model(double amplitude) {
  PredictionInput in = synthetic_input();
  for (std::size_t i = 0; i < in.samples.size(); ++i) {
    const double f = 1 + amplitude * std::sin(static_cast<double>(7 * i));
    in.samples[i].wall_seconds *= f;
    in.samples[i].compute_seconds *= f;
    in.samples[i].communication_seconds *= f;
  }
  return in;
}

// Runs off the model by a few percent: every row gets its 90% interval around the forecast,
// the same for the same experiment and target.
TEST(ForecastFromInput, EveryRowCarriesAReproducibleInterval) {
  const PredictionInput in = synthetic_input_off_the_model(0.03);
  ForecastOptions options;
  options.experiment = "synthetic";
  options.doublings = 1;
  options.what_ifs = {parse_what_if("group:100:2")};
  options.resamples = 300;
  const auto f = forecast_from_input(in, options, 0.5);
  const auto again = forecast_from_input(in, options, 0.5);
  EXPECT_EQ(f.interval_level, 0.9);
  EXPECT_EQ(f.interval_resamples, 300u);
  EXPECT_GT(f.residual_degrees_of_freedom, 10u);
  ASSERT_EQ(f.rows.size(), 5u);
  for (std::size_t i = 0; i < f.rows.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& r = f.rows[i];
    ASSERT_TRUE(r.prediction.found);
    ASSERT_TRUE(r.parameter_interval.low && r.parameter_interval.high) << r.parameter_interval.note;
    EXPECT_LT(*r.parameter_interval.low, r.prediction.parameter);
    EXPECT_GT(*r.parameter_interval.high, r.prediction.parameter);
    EXPECT_LT(*r.work_interval.low, r.prediction.work);
    EXPECT_GT(*r.work_interval.high, r.prediction.work);
    EXPECT_EQ(r.parameter_interval.low, again.rows[i].parameter_interval.low);
    EXPECT_EQ(r.psi_interval.high, again.rows[i].psi_interval.high);
    if (i > 0) {
      ASSERT_TRUE(r.psi_interval.low && r.psi_interval.high) << r.psi_interval.note;
      EXPECT_LT(*r.psi_interval.low, *r.psi);
      EXPECT_GT(*r.psi_interval.high, *r.psi);
    }
  }
}

// --interval mean: the fit's uncertainty alone. Each row's interval of the mean run lies
// inside where one new run lands (the same model resamples, no run-noise factor), and the
// forecast says which interval it gives, printed and in json.
TEST(ForecastFromInput, TheIntervalOfTheMeanRunIsNarrowerThanThatOfOneNewRun) {
  const PredictionInput in = synthetic_input_off_the_model(0.05);
  ForecastOptions options;
  options.experiment = "synthetic";
  options.doublings = 1;
  options.resamples = 300;
  const auto run = forecast_from_input(in, options, 0.5);
  options.run_noise = false;
  const auto mean = forecast_from_input(in, options, 0.5);
  EXPECT_TRUE(run.interval_run_noise);
  EXPECT_FALSE(mean.interval_run_noise);
  ASSERT_EQ(run.rows.size(), mean.rows.size());
  for (std::size_t i = 0; i < run.rows.size(); ++i) {
    SCOPED_TRACE(i);
    const ReportedInterval& r = run.rows[i].parameter_interval;
    const ReportedInterval& m = mean.rows[i].parameter_interval;
    ASSERT_TRUE(r.low && r.high && m.low && m.high);
    EXPECT_EQ(mean.rows[i].prediction.parameter, run.rows[i].prediction.parameter);
    EXPECT_LT(*m.high - *m.low, 0.8 * (*r.high - *r.low));
  }
  std::ostringstream text;
  print_forecast(text, mean, TableFormat::table);
  EXPECT_NE(text.str().find("intervals: 90% of the mean run on each set, residual bootstrap of the time model, "
                            "percentile, 300 resamples"),
            std::string::npos)
      << text.str();
  std::ostringstream json;
  print_forecast(json, mean, TableFormat::json);
  EXPECT_EQ(nlohmann::json::parse(json.str())["interval_method"], "residual bootstrap of the time model, percentile");
}

// A network whose backbone is shared: one flow gets 100 MB/s, k concurrent flows 100/k MB/s
// each from `shared_from` flows on (1 MB/s = 1e6 bytes/s); below, every flow gets 100 MB/s.
// Point to point: 20 us + B / 100 MB/s.
NetworkProbe backbone_probe(int processes, int shared_from) {
  NetworkProbe probe;
  probe.engine = "slurm";
  for (int r = 0; r < processes; ++r) probe.hosts.push_back("n" + std::to_string(r));
  PointToPointProbe p2p;
  p2p.second_rank = 1;
  p2p.first_host = "n0";
  p2p.second_host = "n1";
  p2p.fit.segments = {{1, 1 << 30, 20e-6, 1e-8}};
  probe.remote = p2p;
  SaturationProbe saturation;
  saturation.message_bytes = 1 << 22;
  saturation.pairing = "halves";
  for (int flows = 1; flows <= processes / 2; flows *= 2)
    saturation.points.push_back({flows, 0.04, flows < shared_from ? 100.0 : 100.0 / flows});
  probe.saturation = saturation;
  return probe;
}

// mm's runs (W = 2 N^3) on sets of 2, 4 and 8 one-processor nodes of 100 Mflops, their
// communication mm's messages on a network without contention at these sizes; its 16-node
// doubling's network shares its backbone from 4 flows on (its probe says so).
TEST(ForecastFromInput, AProbeAtTheForecastSizeSeesContentionTheSmallSetsCannot) {
  const CompiledCommunication mm(kernel_communication("mm"));
  const auto truth_communication = [&](double n, int p) {
    const ProbeCosts costs(backbone_probe(p, p >= 16 ? 4 : 1 << 20));
    return communication_seconds(mm, costs, n, p);
  };
  PredictionInput in = generated_input("mm", 100, truth_communication);
  // The N that reaches E_s = 0.5 on the 16-node doubling (C = 1600 Mflops), by bisection in ln N.
  const double c = 16 * kNodeMflops * 1e6;
  const auto efficiency = [&](double n) {
    const double work = 2 * n * n * n;
    return work / ((work / (c * kEta) + truth_communication(n, 16)) * c);
  };
  double low = 10, high = 1e7;
  for (int i = 0; i < 200; ++i) {
    const double mid = std::sqrt(low * high);
    (efficiency(mid) < 0.5 ? low : high) = mid;
  }
  const double truth = std::sqrt(low * high);

  ForecastOptions options;
  options.experiment = "mm";
  options.doublings = 1;
  options.resamples = 20;
  const auto doubling = [](const ExperimentForecast& f) {
    const ForecastRow& row = f.rows.back();
    EXPECT_EQ(row.set.kind, ForecastKind::doubling);
    EXPECT_EQ(row.set.processes, 16u);
    EXPECT_TRUE(row.prediction.found);
    return row.prediction.parameter;
  };
  const double fitted_alone = doubling(forecast_from_input(in, options, 0.5));
  EXPECT_GT(std::abs(fitted_alone - truth) / truth, 0.2) << "fitted alone " << fitted_alone << ", truth " << truth;

  in.probes = {backbone_probe(2, 1 << 20), backbone_probe(16, 4)};  // a fitted set's probe is not used
  const ExperimentForecast probed = forecast_from_input(in, options, 0.5);
  EXPECT_NEAR(doubling(probed), truth, 1e-6 * truth);
  EXPECT_TRUE(probed.model.find("; T0 from network probes at p = 16;") != std::string::npos) << probed.model;
}

TEST(ForecastFromInput, UnknownGroupOfAWhatIfIsAnError) {
  ForecastOptions options;
  options.what_ifs = {parse_what_if("add:2:gpu")};
  EXPECT_THROW(forecast_from_input(synthetic_input(), options, 0.5), Error);
}

ExperimentForecast small_forecast() {
  ExperimentForecast f;
  f.experiment = "x";
  f.target = 0.4;
  f.workload = "2*N^3";
  f.speed_unit = "Mflops";
  f.model = "T = W/(C eta) + T0; fitted on sets 0 (3 runs)";
  f.fit_sets = {0};
  f.fitted_sets = {0};
  f.fitted_runs = 3;
  f.held_out_runs = 2;
  f.forecast_error = 0.0125;
  f.held_out_forecast_error = 0.5;
  f.held_out_parameter_error = 0.25;
  f.batch = 7;
  f.interval_resamples = 1000;
  f.residual_degrees_of_freedom = 2;
  auto fitted = row(ForecastKind::measured, 0, 0.1);
  fitted.set.label = "set 0";
  fitted.set.node_count = 2;
  fitted.set.processes = 4;
  fitted.set.marked_speed = 200;
  fitted.prediction = {true, 110, 2 * 110.0 * 110 * 110, 1, ""};
  const std::string open = "upper bound open: 60 of 1000 resamples fall above N = 1e+06";
  fitted.parameter_interval = {100.0, std::nullopt, "", open};
  fitted.work_interval = {2e6, std::nullopt, "", open};
  fitted.set.measured_parameter = 100;
  auto held_out = row(ForecastKind::measured, 1, 0.25);
  held_out.set.label = "set 1";
  held_out.prediction = {true, 125, 3, 1, ""};
  held_out.psi = 0.5;
  held_out.psi_interval = {0.4, 0.6};
  held_out.parameter_interval = {120.0, 130.0};
  held_out.work_interval = {2.0, 4.0};
  auto doubling = row(ForecastKind::doubling, std::nullopt, std::nullopt);
  doubling.set.label = "twice, beyond";
  doubling.prediction.note = "target unreachable";
  doubling.parameter_interval = {
      {}, {}, "no parameter", "no interval: the forecast has no parameter at the target"};
  f.rows = {fitted, held_out, doubling};
  return f;
}

TEST(ForecastTable, FittedColumnEmptyCellsAndIntervals) {
  const Table t = forecast_table(small_forecast(), TableFormat::json);
  ASSERT_EQ(t.columns.size(), 23u);
  EXPECT_EQ(t.columns[6], "predicted_parameter_low");
  EXPECT_EQ(t.columns[8], "predicted_parameter_interval_note");
  EXPECT_EQ(t.columns[13], "psi");
  EXPECT_EQ(t.columns[16], "psi_interval_note");
  EXPECT_EQ(t.columns[21], "fitted");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][21], Cell(std::string("yes")));
  EXPECT_EQ(t.rows[1][21], Cell(std::string("no")));
  EXPECT_EQ(t.rows[2][21], Cell(std::monostate{}));
  EXPECT_EQ(t.rows[0][3], Cell(std::int64_t{4}));
  EXPECT_EQ(t.rows[0][5], Cell(110.0));
  EXPECT_EQ(t.rows[0][6], Cell(100.0));
  EXPECT_EQ(t.rows[0][7], Cell(std::monostate{}));  // an open upper bound
  EXPECT_EQ(t.rows[0][8],
            Cell(std::string("upper bound open: 60 of 1000 resamples fall above N = 1e+06")));
  EXPECT_EQ(t.rows[0][9], Cell(2 * 110.0 * 110 * 110));
  EXPECT_EQ(t.rows[0][11], Cell(std::monostate{}));
  EXPECT_EQ(t.rows[0][13], Cell(std::monostate{}));  // no psi on the first row
  EXPECT_EQ(t.rows[1][13], Cell(0.5));
  EXPECT_EQ(t.rows[1][14], Cell(0.4));
  EXPECT_EQ(t.rows[2][5], Cell(std::monostate{}));  // not found: no parameter
  EXPECT_EQ(t.rows[2][8],
            Cell(std::string("no interval: the forecast has no parameter at the target")));
  EXPECT_EQ(t.rows[2][22], Cell(std::string("target unreachable")));
  // One cell per figure in text tables: the figure and its bounds.
  const Table text = forecast_table(small_forecast(), TableFormat::table);
  ASSERT_EQ(text.columns.size(), 14u);
  EXPECT_EQ(text.rows[0][5], Cell(std::string("110 [100, open]")));
  EXPECT_EQ(text.rows[0][6], Cell(std::string("2.662e+06 [2e+06, open]")));
  EXPECT_EQ(text.rows[1][7], Cell(std::string("0.5 [0.4, 0.6]")));
  EXPECT_EQ(text.rows[2][5], Cell(std::monostate{}));
}

// A figure without an interval: its short reason in the text table's cell, the note in
// full under the table and in the json and csv column.
TEST(ForecastTable, AFigureWithoutAnIntervalShowsItsShortReasonAndItsNoteApart) {
  ExperimentForecast f = small_forecast();
  const std::string note =
      "no interval: 3 runs for 3 fitted coefficients of the time model; an interval needs more "
      "runs than coefficients";
  for (ForecastRow& r : f.rows) {
    r.parameter_interval = r.work_interval = {{}, {}, "too few runs", note};
    r.psi_interval = r.psi ? r.parameter_interval : ReportedInterval{};
  }
  const Table text = forecast_table(f, TableFormat::table);
  EXPECT_EQ(text.rows[1][5], Cell(std::string("125 (too few runs)")));
  EXPECT_EQ(text.rows[1][6], Cell(std::string("3 (too few runs)")));
  EXPECT_EQ(text.rows[1][7], Cell(std::string("0.5 (too few runs)")));
  EXPECT_EQ(text.rows[0][7], Cell(std::monostate{}));  // no psi on the first row
  const Table json = forecast_table(f, TableFormat::json);
  EXPECT_EQ(json.rows[1][8], Cell(note));
  EXPECT_EQ(json.rows[1][16], Cell(note));
  std::ostringstream out;
  print_forecast(out, f, TableFormat::table);
  EXPECT_NE(out.str().find("\nset 1: parameter and work: " + note + "\nset 1: psi: " + note + "\n"),
            std::string::npos)
      << out.str();
}

TEST(PrintForecast, SummaryTableAndBatch) {
  const auto f = small_forecast();
  std::ostringstream text;
  print_forecast(text, f, TableFormat::table);
  const std::string out = text.str();
  EXPECT_TRUE(out.starts_with(
      "experiment x: W = 2*N^3, target E_s = 0.4, marked speeds in Mflops\n"
      "model: T = W/(C eta) + T0; fitted on sets 0 (3 runs)\n"
      "run-time forecast on the 3 fitted runs: mean absolute relative error 1.25%\n"
      "run-time forecast on the 2 held-out runs: mean absolute relative error 50.00%\n"
      "parameter at the target, mean |relative_error|: held-out sets 25.00%, fitted sets none\n"
      "intervals: 90% of one new run on each set, residual bootstrap of the time model with "
      "run noise, percentile, 1000 resamples; the fitted runs' relative residuals have 2 "
      "degrees of freedom\n\n"
      "kind "))
      << out;
  EXPECT_NE(out.find("\nset 0: parameter and work: upper bound open: 60 of 1000 resamples fall "
                     "above N = 1e+06\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("\nset 1: "), std::string::npos) << out;  // its intervals have no note
  // The held-out line only where held-out sets have a measured parameter.
  EXPECT_EQ(out.find("held-out:"), std::string::npos) << out;
  auto counted = f;
  counted.held_out_coverage = {1, 2};
  std::ostringstream with_line;
  print_forecast(with_line, counted, TableFormat::table);
  // The output ends with it, after the stored batch (docs/predict.md).
  EXPECT_TRUE(with_line.str().ends_with("\nstored as prediction batch 7\nheld-out: 1 of 2 inside the 90% interval; "
                                        "mean |error| 25.00% (size), 50.00% (run time)\n"))
      << with_line.str();
  EXPECT_TRUE(out.ends_with("\n\nstored as prediction batch 7\n")) << out;

  std::ostringstream json;
  print_forecast(json, f, TableFormat::json);
  const auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["batch"], 7);
  EXPECT_EQ(j["runs"], 3);
  EXPECT_EQ(j["fit_sets"], nlohmann::json::array({0}));
  EXPECT_TRUE(j["fitted_parameter_error"].is_null());
  EXPECT_EQ(j["held_out_parameter_error"], 0.25);
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["rows"][1]["fitted"], "no");
  EXPECT_EQ(j["interval_level"], 0.9);
  EXPECT_EQ(j["interval_resamples"], 1000);
  EXPECT_EQ(j["rows"][0]["predicted_parameter_low"], 100.0);
  EXPECT_TRUE(j["rows"][0]["predicted_parameter_high"].is_null());
  EXPECT_TRUE(j["rows"][0]["predicted_work_high"].is_null());
  EXPECT_EQ(j["rows"][1]["psi_high"], 0.6);

  std::ostringstream csv;
  print_forecast(csv, f, TableFormat::csv);
  const std::string rows = csv.str();
  EXPECT_TRUE(
      rows.starts_with("kind,label,nodes,processes,marked_speed,predicted_parameter,"
                       "predicted_parameter_low,predicted_parameter_high,"
                       "predicted_parameter_interval_note,"))
      << rows;
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 4);
}

}  // namespace
}  // namespace hetscale
