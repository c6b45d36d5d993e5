// hetscale predict: the forecast of an experiment from its collected runs (the fit, the
// rows and the stored batch are the libraries': hetscale/experiment_forecast.hpp,
// hetscale/collector/forecast_batch.hpp; docs/predict.md), or with --overhead the
// analytic prediction (predict_analytic.cpp). This file parses the options and prints.
#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/collector/experiment_forecast.hpp"
#include "hetscale/collector/forecast_batch.hpp"
#include "hetscale/collector/session.hpp"
#include "hetscale/model/capacity_forecast.hpp"
#include "hetscale/site/site_table.hpp"
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
  std::string interval = "run";  // --interval run|mean
  TableFormat format = TableFormat::table;
  AnalyticPredictArgs analytic;
};

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
  ForecastOptions options;
  options.experiment = args.experiment;
  options.target = args.target;
  options.doublings = args.doublings;
  options.what_ifs = std::move(what_ifs);
  options.fit_sets = fit;
  options.run_noise = args.interval == "run";
  if (!args.site.empty()) options.site = load_site_table(args.site);
  collector::Session session(args.db, {});
  print_forecast(context.out, collector::forecast_experiment(session.connection(), options),
                 args.format);
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
  cmd->add_option("--interval", args->interval,
                  "What the rows' 90% intervals hold: 'run', where one new run on the set lands (the "
                  "fit's uncertainty and a run's own noise), or 'mean', where the mean of many runs "
                  "lies (the fit's alone)")
      ->check(CLI::IsMember({"run", "mean"}))
      ->capture_default_str();
  add_analytic_options(*cmd, args->analytic);
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] {
    if (!analytic_requested(args->analytic)) args->db = configured_database(args->db);
    run_predict(*args, context);
  });
}

}  // namespace hetscale::cli
