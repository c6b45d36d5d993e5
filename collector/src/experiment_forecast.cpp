#include "hetscale/collector/experiment_forecast.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "hetscale/base/error.hpp"
#include "hetscale/base/interval_columns.hpp"
#include "hetscale/model/kernel_communication.hpp"
#include "hetscale/model/workload.hpp"

namespace hetscale {
namespace {

std::string join(const std::set<int>& indices) {
  std::string s;
  for (int i : indices) s += (s.empty() ? "" : ",") + std::to_string(i);
  return s;
}

bool fitted_on(const std::set<int>& fit, int set_index) {
  return fit.empty() || fit.contains(set_index);
}

/// Whether a measured row's set was fitted on (null for rows that are not measured).
Cell fitted_cell(const ForecastRow& row, const std::set<int>& fit) {
  if (row.set.kind != ForecastKind::measured || !row.set.set_index) return std::monostate{};
  return std::string(fitted_on(fit, *row.set.set_index) ? "yes" : "no");
}

Cell optional_cell(const std::optional<double>& value) {
  return value ? Cell(*value) : Cell(std::monostate{});
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string percent(const std::optional<double>& e) {
  return e ? fmt::format("{:.2f}%", 100 * *e) : std::string("none");
}

}  // namespace

FittingSamples choose_fitting_samples(const std::vector<TimingSample>& samples,
                                      const std::vector<int>& sample_sets, const std::set<int>& fit,
                                      const std::string& experiment) {
  std::map<int, std::size_t> processes;  // set index -> ranks, sets with timed runs
  for (std::size_t i = 0; i < samples.size(); ++i) processes[sample_sets[i]] = samples[i].processes;
  std::set<int> timed;
  for (const auto& [index, p] : processes) timed.insert(index);
  for (int index : fit)
    if (!timed.contains(index))
      throw Error(
          fmt::format("--fit-sets: set {} is not a measured set of experiment '{}' "
                      "(sets with timed runs: {})",
                      index, experiment, join(timed)));
  FittingSamples out;
  std::set<std::size_t> fitted_processes;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (fitted_on(fit, sample_sets[i])) {
      out.fitted.push_back(samples[i]);
      out.fitted_sets.insert(sample_sets[i]);
      fitted_processes.insert(samples[i].processes);
    } else {
      out.held_out.push_back(samples[i]);
    }
  }
  if (fitted_processes.size() < 2 || out.fitted.size() < 2) {
    std::set<int> add;
    for (const auto& [index, p] : processes)
      if (!fit.contains(index) && !fitted_processes.contains(p)) add.insert(index);
    throw Error(fmt::format(
        "--fit-sets {}: {} run(s) on {} process count(s); the model needs runs on at least 2 "
        "machine sets with different process counts to separate computation from "
        "communication: add one of sets {}",
        join(fit), out.fitted.size(), fitted_processes.size(), add.empty() ? "(none)" : join(add)));
  }
  return out;
}

std::vector<ForecastSet> forecast_sets(const std::vector<ForecastSet>& measured,
                                       std::size_t doublings, const std::vector<WhatIf>& what_ifs,
                                       const SiteTable* site) {
  std::vector<ForecastSet> sets = measured;
  const auto largest = std::max_element(
      measured.begin(), measured.end(),
      [](const auto& a, const auto& b) { return a.marked_speed < b.marked_speed; });
  for (auto& d : doubling_sets(*largest, site, doublings)) sets.push_back(std::move(d));
  for (const auto& w : what_ifs) {
    ForecastSet grown = apply_what_if(w, *largest, site);
    grown.base = static_cast<std::size_t>(largest - measured.begin());
    sets.push_back(std::move(grown));
  }
  return sets;
}

double mean_relative_error(const TimeModel& model, const std::vector<TimingSample>& samples) {
  double error = 0;
  for (const auto& s : samples)
    error += std::abs(model.seconds(s.parameter, s.marked_speed, s.processes) - s.wall_seconds) /
             s.wall_seconds;
  return samples.empty() ? 0 : error / static_cast<double>(samples.size());
}

std::optional<double> mean_parameter_error(const std::vector<ForecastRow>& rows,
                                           const std::set<int>& fit, bool fitted) {
  double sum = 0;
  std::size_t count = 0;
  for (const auto& r : rows) {
    if (r.set.kind != ForecastKind::measured || !r.set.set_index || !r.relative_error) continue;
    if (fitted_on(fit, *r.set.set_index) != fitted) continue;
    sum += std::abs(*r.relative_error);
    ++count;
  }
  return count ? std::optional<double>(sum / static_cast<double>(count)) : std::nullopt;
}

HeldOutCoverage held_out_coverage(const std::vector<ForecastRow>& rows, const std::set<int>& fit) {
  HeldOutCoverage out;
  if (fit.empty()) return out;  // every set fitted: none held out
  for (const auto& r : rows) {
    if (r.set.kind != ForecastKind::measured || !r.set.set_index || fitted_on(fit, *r.set.set_index)) continue;
    if (!r.set.measured_parameter || !r.prediction.found) continue;
    ++out.points;
    const ReportedInterval& i = r.parameter_interval;
    const double m = *r.set.measured_parameter;
    if (i.reason.empty() && (!i.low || m >= *i.low) && (!i.high || m <= *i.high)) ++out.inside;
  }
  return out;
}

void use_probes_beyond_fitted_sets(TimeModel& model, const std::string& code, const std::vector<NetworkProbe>& probes,
                                   const std::vector<TimingSample>& fitted) {
  const std::vector<std::string_view> described = described_kernels();
  if (probes.empty() || std::find(described.begin(), described.end(), code) == described.end()) return;
  std::set<std::size_t> fitted_processes;
  for (const TimingSample& s : fitted) fitted_processes.insert(s.processes);
  for (ProbedCommunication& probed : probed_communication(code, probes))
    if (!fitted_processes.contains(probed.processes)) model.use_probed_communication(std::move(probed));
}

ExperimentForecast forecast_from_input(const PredictionInput& in, const ForecastOptions& options,
                                       double target) {
  const Workload workload = Workload::parse(in.workload);
  const FittingSamples runs =
      choose_fitting_samples(in.samples, in.sample_sets, options.fit_sets, options.experiment);
  const CommunicationPattern pattern = communication_pattern_for(in.code);
  TimeModel model = TimeModel::fit(runs.fitted, workload, pattern);
  use_probes_beyond_fitted_sets(model, in.code, in.probes, runs.fitted);
  const auto sets = forecast_sets(in.measured, options.doublings, options.what_ifs,
                                  in.site ? &*in.site : nullptr);
  ExperimentForecast f;
  f.experiment = options.experiment;
  f.target = target;
  f.workload = in.workload;
  f.speed_unit = in.speed_unit;
  f.rows = forecast(model, workload, target, in.ops_per_unit, sets);
  ForecastIntervalOptions intervals;
  intervals.resamples = options.resamples;
  intervals.seed = forecast_seed(options.experiment, target);
  intervals.run_noise = options.run_noise;
  f.interval_level = intervals.level;
  f.interval_run_noise = options.run_noise;
  f.interval_resamples = options.resamples;
  f.residual_degrees_of_freedom =
      add_forecast_intervals(f.rows, model, runs.fitted, workload, pattern, target, in.ops_per_unit,
                             intervals)
          .degrees_of_freedom;
  f.fit_sets = options.fit_sets;
  f.fitted_sets = runs.fitted_sets;
  // predictions.model is the only place of a batch that can say what the fit saw.
  f.model = model.describe() +
            fmt::format("; fitted on sets {} ({} runs)", join(f.fitted_sets), runs.fitted.size());
  f.fitted_runs = runs.fitted.size();
  f.held_out_runs = runs.held_out.size();
  f.forecast_error = model.mean_fit_error();
  if (!runs.held_out.empty()) f.held_out_forecast_error = mean_relative_error(model, runs.held_out);
  f.fitted_parameter_error = mean_parameter_error(f.rows, f.fit_sets, true);
  f.held_out_parameter_error = mean_parameter_error(f.rows, f.fit_sets, false);
  f.held_out_coverage = held_out_coverage(f.rows, f.fit_sets);
  return f;
}

Table forecast_table(const ExperimentForecast& forecast, TableFormat format) {
  Table t{{"kind", "label", "nodes", "processes", "marked_speed"}, {}};
  for (const char* figure : {"predicted_parameter", "predicted_work", "psi"})
    add_interval_columns(t.columns, figure, format);
  t.columns.insert(t.columns.end(), {"psi_against", "measured_parameter", "measured_work",
                                     "relative_error", "fitted", "note"});
  for (const auto& r : forecast.rows) {
    const bool found = r.prediction.found;
    const Cell against = r.psi_against && *r.psi_against < forecast.rows.size()
                             ? Cell(forecast.rows[*r.psi_against].set.label)
                             : Cell(std::monostate{});
    std::vector<Cell> row{std::string(to_string(r.set.kind)), r.set.label,
                          static_cast<std::int64_t>(r.set.node_count),
                          static_cast<std::int64_t>(r.set.processes), r.set.marked_speed};
    const auto figure = [&](const std::optional<double>& value, const ReportedInterval& i) {
      add_interval_cells(row, value, i.low, i.high, i.reason, i.note, format);
    };
    figure(found ? std::optional<double>(r.prediction.parameter) : std::nullopt,
           r.parameter_interval);
    figure(found ? std::optional<double>(r.prediction.work) : std::nullopt, r.work_interval);
    figure(r.psi, r.psi_interval);
    row.insert(row.end(), {against, optional_cell(r.set.measured_parameter),
                           optional_cell(r.set.measured_work), optional_cell(r.relative_error),
                           fitted_cell(r, forecast.fit_sets), r.prediction.note});
    t.rows.push_back(std::move(row));
  }
  return t;
}

void print_forecast(std::ostream& out, const ExperimentForecast& forecast, TableFormat format) {
  const Table table = forecast_table(forecast, format);
  if (format == TableFormat::json) {
    const nlohmann::json j = {
        {"experiment", forecast.experiment},
        {"target_efficiency", forecast.target},
        {"batch", forecast.batch},
        {"model", forecast.model},
        {"speed_unit", forecast.speed_unit},
        {"runs", forecast.fitted_runs},
        {"fit_sets", forecast.fitted_sets},
        {"held_out_runs", forecast.held_out_runs},
        {"forecast_error", forecast.forecast_error},
        {"held_out_forecast_error", optional_json(forecast.held_out_forecast_error)},
        {"fitted_parameter_error", optional_json(forecast.fitted_parameter_error)},
        {"held_out_parameter_error", optional_json(forecast.held_out_parameter_error)},
        {"held_out_inside", forecast.held_out_coverage.inside},
        {"held_out_points", forecast.held_out_coverage.points},
        {"interval_level", forecast.interval_level},
        {"interval_method", forecast_interval_method_of(forecast.interval_run_noise)},
        {"interval_resamples", forecast.interval_resamples},
        {"rows", table_json(table)}};
    out << j.dump(2) << '\n';
    return;
  }
  if (format == TableFormat::table) {
    out << fmt::format(
        "experiment {}: W = {}, target E_s = {:g}, marked speeds in {}\nmodel: {}\n"
        "run-time forecast on the {} {} runs: mean absolute relative error {:.2f}%\n",
        forecast.experiment, forecast.workload, forecast.target, forecast.speed_unit,
        forecast.model, forecast.fitted_runs, forecast.fit_sets.empty() ? "measured" : "fitted",
        100 * forecast.forecast_error);
    if (forecast.held_out_forecast_error)
      out << fmt::format(
          "run-time forecast on the {} held-out runs: mean absolute relative error {:.2f}%\n",
          forecast.held_out_runs, 100 * *forecast.held_out_forecast_error);
    out << fmt::format(
        "parameter at the target, mean |relative_error|: held-out sets {}, fitted sets {}\n",
        percent(forecast.held_out_parameter_error), percent(forecast.fitted_parameter_error));
    out << fmt::format(
        "intervals: {:g}% of {} on each set, {}, {} resamples; the fitted runs' "
        "relative residuals have {} degrees of freedom\n\n",
        100 * forecast.interval_level, forecast.interval_run_noise ? "one new run" : "the mean run",
        forecast_interval_method_of(forecast.interval_run_noise), forecast.interval_resamples,
        forecast.residual_degrees_of_freedom);
  }
  print_table(out, table, format);
  if (format == TableFormat::table) {
    for (const auto& r : forecast.rows) {
      if (r.prediction.found && !r.parameter_interval.note.empty())
        out << fmt::format("{}: parameter and work: {}\n", r.set.label, r.parameter_interval.note);
      if (r.psi && !r.psi_interval.note.empty())
        out << fmt::format("{}: psi: {}\n", r.set.label, r.psi_interval.note);
    }
    out << fmt::format("\nstored as prediction batch {}\n", forecast.batch);
    // The last line: how the forecast held on the sets it was not fitted on.
    if (forecast.held_out_coverage.points > 0)
      out << fmt::format("held-out: {} of {} inside the {:g}% interval; mean |error| {} (size), {} (run time)\n",
                         forecast.held_out_coverage.inside, forecast.held_out_coverage.points,
                         100 * forecast.interval_level, percent(forecast.held_out_parameter_error),
                         percent(forecast.held_out_forecast_error));
  }
}

}  // namespace hetscale
