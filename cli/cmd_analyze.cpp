// hetscale analyze: per machine set the work needed for a target speed-efficiency, and
// psi between consecutive sets (docs/science.md section 1), from the database.
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/interval_columns.hpp"
#include "hetscale/collector/analysis.hpp"
#include "hetscale/collector/extrap_export.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/session.hpp"
#include "hetscale/collector/stored_experiment.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct AnalyzeArgs {
  std::string db;
  std::string experiment;
  std::optional<double> target;  // default: the experiment's, from its plan
  std::optional<double> tolerance;     // --tolerance; absent: the experiment's, or the default
  std::vector<std::string> export_to;  // {format, file}
  TableFormat format = TableFormat::table;
};

Cell optional_cell(const std::optional<double>& value) {
  return value ? Cell(*value) : Cell(std::monostate{});
}

const char* status_name(TargetReading::Status status) {
  switch (status) {
    case TargetReading::Status::found:
      return "found";
    case TargetReading::Status::below_range:
      return "below_range";
    case TargetReading::Status::above_range:
      return "above_range";
    case TargetReading::Status::too_few_points:
      return "too_few_points";
    case TargetReading::Status::within_tolerance:
      return "within_tolerance";
  }
  return "unknown";
}

Table sets_table(const collector::Analysis& a, TableFormat format) {
  Table t{{"set", "nodes", "groups", "marked_speed", "runs", "status"}, {}};
  add_interval_columns(t.columns, "parameter", format);
  add_interval_columns(t.columns, "work", format);
  t.columns.insert(t.columns.end(), {"nearest_parameter", "nearest_efficiency"});
  for (const auto& s : a.sets) {
    const bool found = s.reading.has_parameter();
    std::vector<Cell> row{std::int64_t{s.set_index}, std::int64_t{s.node_count}, s.group_counts,
                          s.marked_speed, static_cast<std::int64_t>(s.runs),
                          std::string(status_name(s.reading.status))};
    const auto& i = s.parameter_interval;
    add_interval_cells(row, found ? std::optional<double>(s.reading.parameter) : std::nullopt,
                       i.low, i.high, i.reason, i.note, format);
    add_interval_cells(row, s.work, s.work_low, s.work_high, i.reason, i.note, format);
    row.insert(row.end(), {optional_cell(s.nearest_parameter), optional_cell(s.nearest_efficiency)});
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The per-size mean E_s of every set with its t interval.
Table sizes_table(const collector::Analysis& a, TableFormat format) {
  Table t{{"set", "parameter", "runs"}, {}};
  add_interval_columns(t.columns, "efficiency", format);
  t.columns.push_back("stddev_efficiency");
  for (const auto& s : a.sets) {
    for (const auto& size : s.sizes) {
      const MeanEstimate& m = size.efficiency;
      std::vector<Cell> row{std::int64_t{s.set_index}, size.parameter,
                            static_cast<std::int64_t>(m.count)};
      add_interval_cells(row, m.mean, m.low, m.high, m.reason, m.note, format);
      row.push_back(optional_cell(m.stddev));
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

Table psi_table(const collector::Analysis& a, TableFormat format) {
  Table t{{"from_set", "to_set", "from_speed", "to_speed", "from_work", "to_work"}, {}};
  add_interval_columns(t.columns, "psi", format);
  for (const auto& p : a.psi) {
    std::vector<Cell> row{std::int64_t{p.set_index}, std::int64_t{p.next_set_index}, p.marked_speed,
                          p.next_marked_speed, optional_cell(p.work), optional_cell(p.next_work)};
    add_interval_cells(row, p.psi, p.psi_low, p.psi_high, p.psi_interval_reason,
                       p.psi_interval_note, format);
    t.rows.push_back(std::move(row));
  }
  return t;
}

// Where the tolerance came from, for users.
struct Tolerance {
  double value = default_efficiency_tolerance;
  std::string source;  // "option", "refine" or "default"
};

std::string describe(const Tolerance& t) {
  if (t.source == "option") return "--tolerance";
  if (t.source == "refine") return "the experiment's [refine] tolerance";
  return "the default";
}

// --tolerance, else the refine tolerance of the experiment's latest round, else the default.
Tolerance tolerance_of(const AnalyzeArgs& args, const std::optional<double>& refine_tolerance) {
  if (args.tolerance) return {*args.tolerance, "option"};
  if (refine_tolerance) return {*refine_tolerance, "refine"};
  return {default_efficiency_tolerance, "default"};
}

void print_table(const collector::Analysis& a, const Tolerance& tolerance, Context& context) {
  context.out << fmt::format("experiment {}: W = {}, parameter {}, target E_s = {}{}\n",
                             a.experiment, a.workload, a.parameter, a.target_efficiency,
                             a.speed_unit.empty() ? "" : ", marked speeds in " + a.speed_unit);
  context.out << fmt::format(
      "tolerance {:g} ({}): a measured mean E_s that close to the target "
      "counts as reaching it\n\n",
      tolerance.value, describe(tolerance));
  print_table(context.out, sets_table(a, TableFormat::table), TableFormat::table);
  for (const auto& s : a.sets) {
    if (!s.advice.empty()) {
      context.out << fmt::format("set {}: {}; {}\n", s.set_index, s.reading.explanation, s.advice);
    } else if (s.reading.status == TargetReading::Status::within_tolerance) {
      context.out << fmt::format("set {}: {}\n", s.set_index, s.reading.explanation);
    }
    if (!s.parameter_interval.note.empty() && s.work)
      context.out << fmt::format("set {}: {}\n", s.set_index, s.parameter_interval.note);
  }
  context.out << '\n';
  print_table(context.out, psi_table(a, TableFormat::table), TableFormat::table);
  for (const auto& p : a.psi)
    if (p.psi && !p.psi_interval_note.empty())
      context.out << fmt::format("psi {}->{}: {}\n", p.set_index, p.next_set_index,
                                 p.psi_interval_note);
  context.out << fmt::format(
      "\nintervals: {:g}%; parameter, work and psi: {}, {} resamples; E_s per size: {}\n\n",
      a.interval_level * 100, a.parameter_interval_method, a.resamples,
      a.efficiency_interval_method);
  print_table(context.out, sizes_table(a, TableFormat::table), TableFormat::table);
}

std::string runs_text(std::size_t n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); }

// Written before the analysis, which needs runs on machine sets; the export does not.
void write_export(const std::filesystem::path& file, const collector::ExtrapExport& e,
                  Context& context) {
  for (const collector::ExtrapSetFile& set : e.sets) {
    const std::filesystem::path path = collector::extrap_set_path(file, set.set_index);
    write_file_atomically(path, set.lines);
    context.err << fmt::format("analyze: wrote {} of set {} to {} (Extra-P JSON Lines)\n",
                               runs_text(set.runs), set.set_index, path.string());
  }
  if (e.grid_runs == 0) {
    context.err << fmt::format("analyze: no file {} over p and the parameter: {}\n", file.string(),
                               e.grid_refusal);
    return;
  }
  write_file_atomically(file, e.grid);
  context.err << fmt::format("analyze: wrote {} over p and the parameter to {} (Extra-P JSON Lines)\n",
                             runs_text(e.grid_runs), file.string());
}

void run_analyze(const AnalyzeArgs& args, Context& context) {
  if (args.target && !(*args.target > 0 && *args.target <= 1))
    throw UsageError("--target must be in (0, 1]");
  if (args.tolerance && !(*args.tolerance >= 0 && *args.tolerance < 1))
    throw UsageError("--tolerance must be in [0, 1)");
  if (!args.export_to.empty() && args.export_to[0] != "extrap") {
    throw UsageError("--export: unknown format '" + args.export_to[0] + "' (known: extrap)");
  }
  collector::Session session(args.db, {});  // one connection for every call
  // The stored refine tolerance lives in migration 6's plan_rounds: an older database gets
  // "run hetscale db migrate", not an SQL error.
  collector::require_current_schema(session.connection());
  const collector::AnalyzeSnapshot snapshot = collector::read_analyze_snapshot(
      session.connection(), args.experiment, {!args.export_to.empty(), !args.tolerance});
  if (snapshot.extrap) write_export(args.export_to[1], *snapshot.extrap, context);
  const Tolerance tolerance = tolerance_of(args, snapshot.refine_tolerance);
  const double target =
      args.target ? *args.target : collector::planned_target(session.connection(), args.experiment);
  const collector::Analysis a =
      collector::analyze(session.connection(), args.experiment, target, tolerance.value);
  switch (args.format) {
    case TableFormat::table:
      return print_table(a, tolerance, context);
    case TableFormat::json: {
      nlohmann::json j = {{"experiment", a.experiment},
                          {"workload", a.workload},
                          {"parameter", a.parameter},
                          {"speed_unit", a.speed_unit},
                          {"target_efficiency", a.target_efficiency},
                          {"tolerance", tolerance.value},
                          {"tolerance_source", tolerance.source},
                          {"interval_level", a.interval_level},
                          {"interval_method", a.parameter_interval_method},
                          {"interval_resamples", a.resamples},
                          {"efficiency_interval_method", a.efficiency_interval_method},
                          {"sets", table_json(sets_table(a, args.format))},
                          {"psi", table_json(psi_table(a, args.format))},
                          {"sizes", table_json(sizes_table(a, args.format))}};
      for (std::size_t i = 0; i < a.sets.size(); ++i) {
        j["sets"][i]["explanation"] = a.sets[i].reading.explanation;
        j["sets"][i]["advice"] = a.sets[i].advice;
      }
      context.out << j.dump(2) << '\n';
      return;
    }
    case TableFormat::csv:  // three tables, separated by an empty line
      print_table(context.out, sets_table(a, args.format), TableFormat::csv);
      context.out << '\n';
      print_table(context.out, psi_table(a, args.format), TableFormat::csv);
      context.out << '\n';
      print_table(context.out, sizes_table(a, args.format), TableFormat::csv);
      return;
  }
}

}  // namespace

void register_analyze(CLI::App& app, Context& context) {
  auto args = std::make_shared<AnalyzeArgs>();
  auto* cmd = app.add_subcommand(
      "analyze", "Required work per machine set at a target E_s, and psi between sets");
  cmd->add_option("--db", args->db, "libpq connection URI (default: HETSCALE_DB or the config file)");
  cmd->add_option("--experiment", args->experiment, "Experiment name")->required();
  cmd->add_option("--target", args->target,
                  "Target speed-efficiency E_s, in (0, 1] (default: the experiment's target_efficiency "
                  "from its plan)");
  cmd->add_option("--tolerance", args->tolerance,
                  "A set whose runs do not bracket the target but whose measured mean E_s is "
                  "within this fraction of it counts as reached there (as jobgen --refine); "
                  "default: the experiment's [refine] tolerance from its latest plan, else " +
                      fmt::format("{:g}", default_efficiency_tolerance));
  cmd->add_option("--export", args->export_to,
                  "FORMAT FILE: also write the experiment's runs for FORMAT extrap (Extra-P JSON "
                  "Lines): each set's over the parameter to FILE's name with .set<k> before its "
                  "extension, and, where every set measured the same sizes, all over p and the "
                  "parameter to FILE")
      ->expected(2);
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] {
    args->db = required_database(args->db);
    run_analyze(*args, context);
  });
}

}  // namespace hetscale::cli
