// hetscale equalize: step 1 (proportional to mean speed) and step 2 (by case: the
// equalization scheme where it shortens tau, otherwise the move that shortens the modelled
// tau most) of Huang & Lee, written as a partition file that
// `--hetscale-weights=equalized` (or =FILE) reads. The nodes' speeds and variations come
// from a CSV file or, with --db, from a machine set's collected rank timings; then both
// partitions are also simulated and stored in hetscale.partitions. The options and the
// printing; the equalization is the collector's (hetscale/collector/set_equalization.hpp for a set,
// stored_set_equalization.hpp for a stored one).
#include <optional>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/collector/session.hpp"
#include "hetscale/collector/set_equalization.hpp"
#include "hetscale/collector/stored_set_equalization.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct EqualizeArgs {
  std::string input;
  double correlation_time = 0;
  double seconds = 0;
  std::string method = "case";
  std::string site;
  std::string output;
  std::string partitions;
  std::string db;
  std::string experiment;
  int set_index = -1;
  std::optional<double> parameter;
  double interval = 1;
  std::uint64_t seed = 1;
  std::size_t repetitions = 1000;
  TableFormat format = TableFormat::table;
};

void say_written(const std::string& file, Context& context) {
  if (!file.empty()) context.err << "hetscale equalize: wrote " << file << '\n';
}

/// --input: per node `speed` (mean speed s_i, work per second) and either `variation`
/// (k_i = sigma_T / sqrt(t), in sqrt(seconds)) or `th` (sigma_A / a) with --correlation-time.
void equalize_file(const EqualizeArgs& args, Context& context) {
  const auto csv = CsvTable::load(args.input);
  if (node_csv_gives_th(csv) && args.correlation_time <= 0)
    throw UsageError(
        "--correlation-time: needed with a 'th' column (E[L^2]/E[L] of the availability "
        "intervals, in seconds)");
  const auto nodes = equalization_nodes_from_csv(csv, args.input, args.correlation_time);
  const auto plan = plan_equalization(nodes.computers, args.seconds, args.method, nullptr);
  if (args.format == TableFormat::table)
    context.out << equalization_text(nodes, plan);
  else
    print_table(context.out, equalization_table(nodes, plan), args.format);
  say_written(
      write_equalized_partition(nodes, plan, args.site, args.output, args.partitions).string(),
      context);
}

/// --db: the set's stored timings, partitions simulated and stored.
void equalize_database(const EqualizeArgs& args, Context& context) {
  collector::Session session(args.db, {});
  const auto set = collector::equalize_stored_set(
      session.connection(),
      {args.experiment, args.set_index, args.parameter, args.seconds, args.method, args.site,
       args.output, args.partitions, args.interval, args.seed, args.repetitions});
  say_written(set.file, context);
  if (args.format == TableFormat::json)
    context.out << collector::equalized_set_json(set).dump(2) << '\n';
  else if (args.format == TableFormat::table)
    context.out << collector::equalized_set_text(set);
  else
    print_table(context.out, equalization_table(set.nodes, set.plan), args.format);
}

void run_equalize(const EqualizeArgs& args, Context& context) {
  if (args.input.empty() == args.db.empty())
    throw UsageError("give either --input FILE or --db URI (with --experiment and --set)");
  if (!args.db.empty() && (args.experiment.empty() || args.set_index < 0))
    throw UsageError("--db needs --experiment NAME and --set K");
  if (args.db.empty())
    equalize_file(args, context);
  else
    equalize_database(args, context);
}

}  // namespace

void register_equalize(CLI::App& app, Context& context) {
  auto args = std::make_shared<EqualizeArgs>();
  auto* cmd =
      app.add_subcommand("equalize", "Equalization-adjusted partition (stochastic load balancing)");
  cmd->add_option("--input", args->input,
                  "CSV: node, speed (mean work per second), and variation (sigma_T/sqrt(t)) or th "
                  "(sigma_A/a)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--db", args->db,
                  "libpq URI: read the nodes' speeds and spreads from a set's rank timings, "
                  "simulate and store the partitions (without --input, default: HETSCALE_DB or the "
                  "config file)");
  cmd->add_option("--experiment", args->experiment, "Experiment name (with --db)");
  cmd->add_option("--set", args->set_index, "Machine set index (with --db)");
  cmd->add_option("--parameter", args->parameter,
                  "Parameter value of the runs to use (with --db; default: the most repeated)");
  cmd->add_option("--correlation-time", args->correlation_time,
                  "E[L^2]/E[L] of availability intervals, seconds (with a 'th' column)");
  cmd->add_option(
         "--seconds", args->seconds,
         "Expected run time of the job with proportional weights (sigma_T grows as sqrt(t), so "
         "the shares depend on it)")
      ->required()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--method", args->method,
                  "Partition to write: case (step 2 by case of the paper's Table 1), exact "
                  "(equalized), linearised (the paper's approximation of it) or optimum (least "
                  "modelled tau); never one with a longer modelled tau than step 1")
      ->check(CLI::IsMember({"case", "exact", "linearised", "optimum"}))
      ->capture_default_str();
  cmd->add_option("--interval", args->interval,
                  "Simulated availability intervals uniform in [0, this] seconds (with --db)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Simulation seed (with --db)")->capture_default_str();
  cmd->add_option("--repetitions", args->repetitions, "Simulation repetitions (with --db)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--site", args->site, "Site name recorded in the partition file");
  cmd->add_option("-o,--output", args->output, "Write the partition file here");
  cmd->add_option("--partitions", args->partitions,
                  "Write the partition where --hetscale-weights=equalized looks: <DIR>/<node list>.toml "
                  "run as root (the site's), else <DIR>/uid-<uid>/<node list>.toml (the user's own)");
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] {
    if (args->input.empty()) args->db = configured_database(args->db);
    run_equalize(*args, context);
  });
}

}  // namespace hetscale::cli
