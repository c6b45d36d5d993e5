// hetscale predict: fit the time model (docs/science.md section 1 "Prediction", section 4 FAST)
// to an experiment's collected runs, then forecast the parameter and work that reach a
// target E_s on the measured sets (beside what was measured), on the site's next
// doublings and on what-if sets, with psi against the previous row; stored as one batch
// of hetscale.predictions. With --fit-sets the model is fitted on some sets' runs only and
// the other measured sets are out-of-sample predictions (column `fitted`, stored `model`).
#include <fmt/format.h>

#include <optional>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/capacity_forecast.hpp"
#include "hetscale/collector/prediction_data.hpp"
#include "hetscale/collector/stored_experiment.hpp"
#include "hetscale/site_table.hpp"
#include "hetscale/workload.hpp"
#include "output.hpp"
#include "predict_analytic.hpp"

namespace hetscale::cli {
namespace {

struct PredictArgs {
  std::string db;
  std::string experiment;
  std::optional<double> target;  // default: the experiment's, from its plan
  std::size_t doublings = 2;
  std::vector<std::string> what_if;
  std::string site;
  std::string fit_sets;                          // --fit-sets LIST, as given
  const CLI::Option* fit_sets_option = nullptr;  // given at all (an empty list is an error)
  TableFormat format = TableFormat::table;
  AnalyticPredictArgs analytic;
};

std::string join(const std::set<int>& indices) {
  std::string s;
  for (int i : indices) s += (s.empty() ? "" : ",") + std::to_string(i);
  return s;
}

/// `--fit-sets 0,1`: non-negative whole set indices separated by commas, at least one.
std::set<int> parse_fit_sets(const std::string& list) {
  const auto bad = [&list](const std::string& why) {
    return UsageError("--fit-sets '" + list + "': " + why +
                      " (expected comma-separated machine set indices, e.g. 0,1)");
  };
  if (list.empty()) throw bad("the list is empty");
  std::set<int> indices;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    int value = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || value < 0)
      throw bad(item.empty() ? "an empty item" : "'" + item + "' is not a set index");
    indices.insert(value);
    if (comma == list.size()) break;
    start = comma + 1;
  }
  return indices;
}

/// The runs the model is fitted on: those of `fit` (all sets when empty), checked against
/// the sets with timed runs and the model's needs. Fills `held_out` with the others.
std::vector<TimingSample> fitting_samples(const collector::PredictionInput& in,
                                          const std::string& experiment, const std::set<int>& fit,
                                          std::vector<TimingSample>& held_out) {
  std::map<int, std::size_t> processes;  // set index -> ranks, sets with timed runs
  for (std::size_t i = 0; i < in.samples.size(); ++i)
    processes[in.sample_sets[i]] = in.samples[i].processes;
  std::set<int> timed;
  for (const auto& [index, p] : processes) timed.insert(index);
  for (int index : fit)
    if (!timed.contains(index))
      throw Error(
          fmt::format("--fit-sets: set {} is not a measured set of experiment '{}' "
                      "(sets with timed runs: {})",
                      index, experiment, join(timed)));
  std::vector<TimingSample> fitted;
  std::set<std::size_t> fitted_processes;
  for (std::size_t i = 0; i < in.samples.size(); ++i) {
    if (fit.empty() || fit.contains(in.sample_sets[i])) {
      fitted.push_back(in.samples[i]);
      fitted_processes.insert(in.samples[i].processes);
    } else {
      held_out.push_back(in.samples[i]);
    }
  }
  if (fitted_processes.size() < 2 || fitted.size() < 2) {
    std::set<int> add;
    for (const auto& [index, p] : processes)
      if (!fit.contains(index) && !fitted_processes.contains(p)) add.insert(index);
    throw Error(fmt::format(
        "--fit-sets {}: {} run(s) on {} process count(s); the model needs runs on at least 2 "
        "machine sets with different process counts to separate computation from "
        "communication: add one of sets {}",
        join(fit), fitted.size(), fitted_processes.size(), add.empty() ? "(none)" : join(add)));
  }
  return fitted;
}

double mean_relative_error(const TimeModel& model, const std::vector<TimingSample>& samples) {
  double error = 0;
  for (const auto& s : samples)
    error += std::abs(model.seconds(s.parameter, s.marked_speed, s.processes) - s.wall_seconds) /
             s.wall_seconds;
  return samples.empty() ? 0 : error / static_cast<double>(samples.size());
}

/// Whether a measured row's set was fitted on (null for rows that are not measured).
Cell fitted_cell(const ForecastRow& row, const std::set<int>& fit) {
  if (row.set.kind != ForecastKind::measured || !row.set.set_index) return std::monostate{};
  return std::string(fit.empty() || fit.contains(*row.set.set_index) ? "yes" : "no");
}

/// Mean |relative_error| of the measured rows, fitted (true) or held out (false).
std::optional<double> mean_abs_error(const std::vector<ForecastRow>& rows, const std::set<int>& fit,
                                     bool fitted) {
  double sum = 0;
  std::size_t count = 0;
  for (const auto& r : rows) {
    if (r.set.kind != ForecastKind::measured || !r.set.set_index || !r.relative_error) continue;
    if ((fit.empty() || fit.contains(*r.set.set_index)) != fitted) continue;
    sum += std::abs(*r.relative_error);
    ++count;
  }
  return count ? std::optional<double>(sum / static_cast<double>(count)) : std::nullopt;
}

Cell optional_cell(const std::optional<double>& value) {
  return value ? Cell(*value) : Cell(std::monostate{});
}

Table forecast_table(const std::vector<ForecastRow>& rows, const std::set<int>& fit) {
  Table t{{"kind", "label", "nodes", "processes", "marked_speed", "predicted_parameter",
           "predicted_work", "psi", "measured_parameter", "measured_work", "relative_error",
           "fitted", "note"},
          {}};
  for (const auto& r : rows) {
    const bool found = r.prediction.found;
    t.rows.push_back(
        {std::string(to_string(r.set.kind)), r.set.label,
         static_cast<std::int64_t>(r.set.node_count), static_cast<std::int64_t>(r.set.processes),
         r.set.marked_speed, found ? Cell(r.prediction.parameter) : Cell(std::monostate{}),
         found ? Cell(r.prediction.work) : Cell(std::monostate{}), optional_cell(r.psi),
         optional_cell(r.set.measured_parameter), optional_cell(r.set.measured_work),
         optional_cell(r.relative_error), fitted_cell(r, fit), r.prediction.note});
  }
  return t;
}

/// The sets to forecast: measured ones, then doublings of the largest, then what-ifs
/// grown from the largest measured set.
std::vector<ForecastSet> forecast_sets(const PredictArgs& args,
                                       const collector::PredictionInput& in,
                                       const std::vector<WhatIf>& what_ifs, const SiteTable* site) {
  std::vector<ForecastSet> sets = in.measured;
  const ForecastSet& largest = *std::max_element(
      in.measured.begin(), in.measured.end(),
      [](const auto& a, const auto& b) { return a.marked_speed < b.marked_speed; });
  for (auto& d : doubling_sets(largest, site, args.doublings)) sets.push_back(std::move(d));
  for (const auto& w : what_ifs) sets.push_back(apply_what_if(w, largest, site));
  return sets;
}

void run_predict(const PredictArgs& args, Context& context) {
  if (analytic_requested(args.analytic)) {
    if (!args.db.empty() || !args.experiment.empty())
      throw UsageError(
          "--overhead/--overhead-of predict without a database: leave --db and --experiment out");
    if (args.target || !args.what_if.empty() || !args.site.empty() ||
        (args.fit_sets_option && args.fit_sets_option->count() > 0))
      throw UsageError(
          "--target, --what-if, --site and --fit-sets are for the prediction from collected "
          "runs; the analytic prediction keeps the base's E_s");
    run_predict_analytic(args.analytic, args.format, context);
    return;
  }
  if (analytic_options_given(args.analytic))
    throw UsageError(
        "--base, --to, --workload, --unit-time, --commbench, --network and --print-overhead "
        "need --overhead or --overhead-of");
  if (args.db.empty() || args.experiment.empty())
    throw UsageError(
        "give --db (or HETSCALE_DB, or the config file's database) and --experiment (prediction "
        "from collected runs), or --overhead / "
        "--overhead-of (the analytic prediction)");
  if (args.target && !(*args.target > 0 && *args.target <= 1))
    throw UsageError("--target must be in (0, 1]");
  const std::set<int> fit = args.fit_sets_option && args.fit_sets_option->count() > 0
                                ? parse_fit_sets(args.fit_sets)
                                : std::set<int>{};
  std::vector<WhatIf> what_ifs;
  try {
    for (const auto& spec : args.what_if) what_ifs.push_back(parse_what_if(spec));
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  pg::Connection conn = pg::Connection::open(args.db);
  // One snapshot for the runs fitted; the predictions made from them go in with it.
  pg::Transaction tx(conn, pg::TransactionMode::repeatable_read);
  const double target = args.target ? *args.target : collector::planned_target(conn, args.experiment);
  auto in = collector::load_prediction_input(conn, args.experiment, target);
  if (!args.site.empty()) in.site = load_site_table(args.site);
  const Workload workload = Workload::parse(in.workload);
  std::vector<TimingSample> held_out_runs;
  const auto fitted_runs = fitting_samples(in, args.experiment, fit, held_out_runs);
  const TimeModel model = TimeModel::fit(fitted_runs, workload, communication_pattern_for(in.code));
  const auto sets = forecast_sets(args, in, what_ifs, in.site ? &*in.site : nullptr);
  const auto rows = forecast(model, workload, target, in.ops_per_unit, sets);
  std::set<int> fitted_sets = fit;
  if (fitted_sets.empty()) fitted_sets.insert(in.sample_sets.begin(), in.sample_sets.end());
  // predictions.model is the only place of a batch that can say what the fit saw.
  const std::string description =
      model.describe() +
      fmt::format("; fitted on sets {} ({} runs)", join(fitted_sets), fitted_runs.size());
  const auto fitted_error = mean_abs_error(rows, fit, true);
  const auto held_out_error = mean_abs_error(rows, fit, false);
  const long long batch =
      collector::store_predictions(conn, in.experiment_id, target, description, rows);
  tx.commit();
  const Table table = forecast_table(rows, fit);
  if (args.format == TableFormat::json) {
    nlohmann::json j = {
        {"experiment", args.experiment},
        {"target_efficiency", target},
        {"batch", batch},
        {"model", description},
        {"speed_unit", in.speed_unit},
        {"runs", fitted_runs.size()},
        {"fit_sets", fitted_sets},
        {"held_out_runs", held_out_runs.size()},
        {"forecast_error", model.mean_fit_error()},
        {"held_out_forecast_error",
         held_out_runs.empty() ? nlohmann::json(nullptr)
                               : nlohmann::json(mean_relative_error(model, held_out_runs))},
        {"fitted_parameter_error",
         fitted_error ? nlohmann::json(*fitted_error) : nlohmann::json(nullptr)},
        {"held_out_parameter_error",
         held_out_error ? nlohmann::json(*held_out_error) : nlohmann::json(nullptr)},
        {"rows", table_json(table)}};
    context.out << j.dump(2) << '\n';
    return;
  }
  if (args.format == TableFormat::table) {
    context.out << fmt::format(
        "experiment {}: W = {}, target E_s = {:g}, marked speeds in {}\nmodel: {}\n"
        "run-time forecast on the {} {} runs: mean absolute relative error {:.2f}%\n",
        args.experiment, in.workload, target, in.speed_unit, description, fitted_runs.size(),
        fit.empty() ? "measured" : "fitted", 100 * model.mean_fit_error());
    if (!held_out_runs.empty())
      context.out << fmt::format(
          "run-time forecast on the {} held-out runs: mean absolute relative error {:.2f}%\n",
          held_out_runs.size(), 100 * mean_relative_error(model, held_out_runs));
    const auto percent = [](const std::optional<double>& e) {
      return e ? fmt::format("{:.2f}%", 100 * *e) : std::string("none");
    };
    context.out << fmt::format(
        "parameter at the target, mean |relative_error|: held-out sets {}, fitted sets {}\n\n",
        percent(held_out_error), percent(fitted_error));
  }
  print_table(context.out, table, args.format);
  if (args.format == TableFormat::table)
    context.out << fmt::format("\nstored as prediction batch {}\n", batch);
}

}  // namespace

void register_predict(CLI::App& app, Context& context) {
  auto args = std::make_shared<PredictArgs>();
  auto* cmd = app.add_subcommand(
      "predict",
      "Forecast the work reaching a target E_s on measured, doubled and what-if sets; or, with "
      "--overhead, solve the isospeed-e condition analytically");
  cmd->add_option("--db", args->db, "libpq connection URI (default: HETSCALE_DB or the config file)");
  cmd->add_option("--experiment", args->experiment, "Experiment name");
  cmd->add_option("--target", args->target,
                  "Target speed-efficiency E_s, in (0, 1] (default: the experiment's target_efficiency "
                  "from its plan)");
  cmd->add_option("--doublings", args->doublings, "Next doublings of the site to forecast")
      ->capture_default_str();
  cmd->add_option("--what-if", args->what_if,
                  "add:K:GROUP (largest measured set + K nodes of a site group) or "
                  "group:SPEED:K (+ K nodes of per-processor marked speed SPEED); repeatable");
  cmd->add_option("--site", args->site,
                  "Site table (default: the experiment's site in the database)")
      ->check(CLI::ExistingFile);
  args->fit_sets_option =
      cmd->add_option("--fit-sets", args->fit_sets,
                      "Comma-separated machine set indices to fit the model on, e.g. 0,1 (default: "
                      "all); the other measured sets are then out-of-sample predictions");
  add_analytic_options(*cmd, args->analytic);
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] {
    if (!analytic_requested(args->analytic)) args->db = configured_database(args->db);
    run_predict(*args, context);
  });
}

}  // namespace hetscale::cli
