// hetscale predict: fit the time model (SCIENCE.md section 1 "Prediction", section 4 FAST)
// to an experiment's collected runs, then forecast the parameter and work that reach a
// target E_s on the measured sets (beside what was measured), on the site's next
// doublings and on what-if sets, with psi against the previous row; stored as one batch
// of hetscale.predictions.
#include <fmt/format.h>

#include <algorithm>

#include "commands.hpp"
#include "hetscale/capacity_forecast.hpp"
#include "hetscale/collector/prediction_data.hpp"
#include "hetscale/site_table.hpp"
#include "hetscale/workload.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct PredictArgs {
  std::string db;
  std::string experiment;
  double target = 0;
  std::size_t doublings = 2;
  std::vector<std::string> what_if;
  std::string site;
  Format format = Format::table;
};

Cell optional_cell(const std::optional<double>& value) {
  return value ? Cell(*value) : Cell(std::monostate{});
}

Table forecast_table(const std::vector<ForecastRow>& rows) {
  Table t{{"kind", "label", "nodes", "processes", "marked_speed", "predicted_parameter",
           "predicted_work", "psi", "measured_parameter", "measured_work", "relative_error",
           "note"},
          {}};
  for (const auto& r : rows) {
    const bool found = r.prediction.found;
    t.rows.push_back({std::string(to_string(r.set.kind)), r.set.label,
                      static_cast<std::int64_t>(r.set.node_count),
                      static_cast<std::int64_t>(r.set.processes), r.set.marked_speed,
                      found ? Cell(r.prediction.parameter) : Cell(std::monostate{}),
                      found ? Cell(r.prediction.work) : Cell(std::monostate{}),
                      optional_cell(r.psi), optional_cell(r.set.measured_parameter),
                      optional_cell(r.set.measured_work), optional_cell(r.relative_error),
                      r.prediction.note});
  }
  return t;
}

/// The sets to forecast: measured ones, then doublings of the largest, then what-ifs
/// grown from the largest measured set.
std::vector<ForecastSet> forecast_sets(const PredictArgs& args,
                                       const collector::PredictionInput& in,
                                       const std::vector<WhatIf>& what_ifs,
                                       const SiteTable* site) {
  std::vector<ForecastSet> sets = in.measured;
  const ForecastSet& largest = *std::max_element(
      in.measured.begin(), in.measured.end(),
      [](const auto& a, const auto& b) { return a.marked_speed < b.marked_speed; });
  for (auto& d : doubling_sets(largest, site, args.doublings)) sets.push_back(std::move(d));
  for (const auto& w : what_ifs) sets.push_back(apply_what_if(w, largest, site));
  return sets;
}

void run_predict(const PredictArgs& args, Context& context) {
  if (!(args.target > 0 && args.target <= 1)) throw UsageError("--target must be in (0, 1]");
  std::vector<WhatIf> what_ifs;
  try {
    for (const auto& spec : args.what_if) what_ifs.push_back(parse_what_if(spec));
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  pg::Connection conn = pg::Connection::open(args.db);
  pg::Transaction tx(conn);
  auto in = collector::load_prediction_input(conn, args.experiment, args.target);
  if (!args.site.empty()) in.site = load_site_table(args.site);
  const Workload workload = Workload::parse(in.workload);
  const TimeModel model =
      TimeModel::fit(in.samples, workload, communication_pattern_for(in.code));
  const auto sets = forecast_sets(args, in, what_ifs, in.site ? &*in.site : nullptr);
  const auto rows = forecast(model, workload, args.target, in.ops_per_unit, sets);
  const std::string description = model.describe();
  const long long batch = collector::store_predictions(conn, in.experiment_id, args.target,
                                                       description, rows);
  tx.commit();
  const Table table = forecast_table(rows);
  if (args.format == Format::json) {
    nlohmann::json j = {{"experiment", args.experiment},
                        {"target_efficiency", args.target},
                        {"batch", batch},
                        {"model", description},
                        {"speed_unit", in.speed_unit},
                        {"runs", in.samples.size()},
                        {"forecast_error", model.mean_fit_error()},
                        {"rows", to_json(table)}};
    context.out << j.dump(2) << '\n';
    return;
  }
  if (args.format == Format::table) {
    context.out << fmt::format(
        "experiment {}: W = {}, target E_s = {:g}, marked speeds in {}\nmodel: {}\n"
        "run-time forecast on the {} measured runs: mean absolute relative error {:.2f}%\n\n",
        args.experiment, in.workload, args.target, in.speed_unit, description, in.samples.size(),
        100 * model.mean_fit_error());
  }
  print(context.out, table, args.format);
  if (args.format == Format::table)
    context.out << fmt::format("\nstored as prediction batch {}\n", batch);
}

}  // namespace

void register_predict(CLI::App& app, Context& context) {
  auto args = std::make_shared<PredictArgs>();
  auto* cmd = app.add_subcommand(
      "predict", "Forecast the work reaching a target E_s on measured, doubled and what-if sets");
  cmd->add_option("--db", args->db, "libpq connection URI")->required();
  cmd->add_option("--experiment", args->experiment, "Experiment name")->required();
  cmd->add_option("--target", args->target, "Target speed-efficiency E_s, in (0, 1]")->required();
  cmd->add_option("--doublings", args->doublings, "Next doublings of the site to forecast")
      ->capture_default_str();
  cmd->add_option("--what-if", args->what_if,
                  "add:K:GROUP (largest measured set + K nodes of a site group) or "
                  "group:SPEED:K (+ K nodes of per-processor marked speed SPEED); repeatable");
  cmd->add_option("--site", args->site,
                  "Site table (default: the experiment's site in the database)")
      ->check(CLI::ExistingFile);
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] { run_predict(*args, context); });
}

}  // namespace hetscale::cli
