// hetscale equalize: step 1 (proportional to mean speed) and step 2 (by case: the
// equalization scheme where it shortens tau, otherwise the move that shortens the modelled
// tau most) of Huang & Lee, written as a partition file that
// `--hetscale-weights=equalized` (or =FILE) reads. The nodes' speeds and variations come
// from a CSV file or, with --db, from a machine set's collected rank timings; then both
// partitions are also simulated and stored in hetscale.partitions.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <optional>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/atomic_file.hpp"
#include "hetscale/collector/partitions.hpp"
#include "hetscale/csv.hpp"
#include "hetscale/equalization.hpp"
#include "hetscale/hostlist.hpp"
#include "hetscale/node_timing.hpp"
#include "hetscale/partition_file.hpp"
#include "hetscale/simulation.hpp"
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

struct NodeInput {
  std::string source;  // for the partition file's header
  std::vector<std::string> names;
  std::vector<VariableComputer> computers;
  std::vector<NodeTimingStats> stats;  // --db only
  std::string note;                    // what the user should know about the input
  std::string variation;               // --db: where the variation comes from, in words
  bool from_availability = false;      // --db: availability TH, not the run times
};

/// Per node: `speed` (mean speed s_i, work per second) and either `variation`
/// (k_i = sigma_T / sqrt(t), in sqrt(seconds)) or `th` (sigma_A / a) with --correlation-time.
NodeInput read_input(const EqualizeArgs& args) {
  const auto csv = CsvTable::load(args.input);
  csv.allow_only({"node", "speed", "variation", "th"});
  const bool has_th = csv.has_column("th");
  if (has_th == csv.has_column("variation"))
    throw ConfigError(csv.where(0, "node"), "give exactly one of the columns 'variation' and 'th'");
  if (has_th && args.correlation_time <= 0)
    throw UsageError(
        "--correlation-time: needed with a 'th' column (E[L^2]/E[L] of the availability "
        "intervals, in seconds)");
  NodeInput in;
  in.source = args.input;
  for (std::size_t r = 0; r < csv.rows(); ++r) {
    in.names.push_back(csv.text(r, "node"));
    const double speed = csv.number(r, "speed");
    const double spread = csv.number(r, has_th ? "th" : "variation");
    if (!(speed > 0)) throw ConfigError(csv.where(r, "speed"), "speed must be positive");
    if (spread < 0) throw ConfigError(csv.where(r, has_th ? "th" : "variation"), "must be >= 0");
    in.computers.push_back(
        {speed, has_th ? variation_from_heterogeneity(spread, args.correlation_time) : spread});
  }
  if (in.names.empty()) throw Error(args.input + ": no nodes listed");
  return in;
}

/// Per node, mean and spread of seconds per unit of work over the repetitions of one
/// configuration of the set.
/// The variation is the nodes' availability TH when every node of the set has one
/// (choose_variation), else the run times'.
NodeInput read_database(const EqualizeArgs& args, const collector::SetTimings& timings,
                        pg::Connection& conn) {
  NodeInput in;
  in.source = fmt::format("experiment {} set {} at {} = {:g}", args.experiment, args.set_index,
                          timings.parameter_name, timings.parameter);
  in.stats = node_timing_stats(timings.ranks);
  in.note = check_equalization_input(in.stats);
  for (const auto& s : in.stats) in.names.push_back(s.host);
  VariationChoice choice = choose_variation(
      in.stats, collector::load_host_availability(conn, timings.experiment_id, in.names));
  in.computers = std::move(choice.computers);
  in.variation = std::move(choice.source);
  in.from_availability = choice.from_availability;
  return in;
}

std::string write_partition(const EqualizeArgs& args, const NodeInput& in,
                            const StochasticPartition& p, Context& context) {
  if (args.output.empty() && args.partitions.empty()) return "";
  Partition partition;
  partition.site = args.site;
  const double total = std::accumulate(p.work.begin(), p.work.end(), 0.0);
  for (std::size_t i = 0; i < in.names.size(); ++i)
    partition.nodes.push_back({in.names[i], p.work[i] / total, {}});
  // Where the plugin looks: the step's nodes are in node order, which for the usual
  // names is the natural order.
  const std::filesystem::path path =
      !args.output.empty() ? std::filesystem::path(args.output)
                           : equalized_partition_path(args.partitions, sort_hostnames(in.names));
  // Replaced whole: the SPANK plugin reads the old partition or the new one, never half.
  write_file_atomically(path, "# Written by hetscale equalize (" + args.method + ") from " +
                                  in.source + "\n" + format_partition(partition));
  context.err << "hetscale equalize: wrote " << path.string() << '\n';
  return path.string();
}

/// Availability processes that give each node its measured k_i: mean availability 0.5,
/// TH_i = k_i / sqrt(correlation time). The interval is lengthened when needed so that
/// the largest TH stays 0.5, inside what the uniform distribution can draw.
struct SimulationModel {
  std::vector<SimulatedComputer> computers;
  SimulationOptions options;
  std::string note;
};

SimulationModel simulation_model(const EqualizeArgs& args, const NodeInput& in) {
  SimulationModel m;
  m.options.repetitions = args.repetitions;
  m.options.seed = args.seed;
  m.options.max_interval = args.interval;
  double largest_k = 0;
  for (const auto& c : in.computers) largest_k = std::max(largest_k, c.variation);
  constexpr double max_th = 0.5;
  const double needed = 1.5 * std::pow(largest_k / max_th, 2);  // correlation = 2/3 interval
  if (needed > m.options.max_interval) {
    m.note = fmt::format("simulated availability intervals lengthened from {:g} s to {:.3g} s so "
                         "that every node's TH stays <= {}",
                         m.options.max_interval, needed, max_th);
    m.options.max_interval = needed;
  }
  const double correlation = correlation_time_of_uniform_intervals(m.options.max_interval);
  for (const auto& c : in.computers) {
    const double th = c.variation / std::sqrt(correlation);
    m.computers.push_back({c.speed / 0.5, 0.5, th * 0.5});
  }
  return m;
}

struct Method {
  std::string name;  // as stored: proportional | equalized | equalized_linear
  StochasticPartition partition;
  SimulationResult simulated;
};

/// What equalize computes: the partition to write (by --method) and the stored methods:
/// `equalized` is step 2, the partition written (by case unless --method says otherwise;
/// with --method linearised the written one is `equalized_linear`).
struct Plan {
  ChosenPartition chosen;
  std::vector<Method> methods;  // step 1 first: its tau is the deadline of every risk factor
};

Plan compute_plan(const EqualizeArgs& args, const NodeInput& in, double total,
                  const SimulationModel* sim) {
  Plan plan;
  plan.chosen = choose_partition(in.computers, total, args.method);
  const bool linear = args.method == "linearised";
  plan.methods = {{"proportional", plan.chosen.two_step.step1, {}},
                  {"equalized", linear ? plan.chosen.two_step.step2 : plan.chosen.partition, {}}};
  if (linear) plan.methods.push_back({"equalized_linear", plan.chosen.partition, {}});
  if (sim == nullptr) return plan;
  SimulationOptions options = sim->options;
  for (auto& m : plan.methods) {
    m.simulated = simulate(sim->computers, m.partition.work, options);
    if (options.deadline == 0) options.deadline = m.simulated.tau;
  }
  return plan;
}

/// The stored method whose partition is the one written.
const Method& written_method(const Plan& plan) { return plan.methods.back(); }

Table node_table(const NodeInput& in, const Plan& plan, double total) {
  const auto& two = plan.chosen.two_step;
  const auto& step1 = two.step1;
  const auto& equalized = two.equalized;
  const auto& step2 = plan.chosen.partition;
  Table table{{"node", "speed", "variation", "proportional_weight", "equalized_weight",
               "step2_weight", "t_plus_sigma_step1", "t_plus_sigma_step2", "case",
               "modelled_tau_step1", "modelled_tau_equalized", "modelled_tau_step2"},
              {}};
  if (!in.stats.empty()) {
    table.columns.insert(table.columns.begin() + 1,
                         {"repetitions", "mean_seconds_per_op", "sd_seconds_per_op"});
  }
  for (std::size_t i = 0; i < in.names.size(); ++i) {
    std::vector<Cell> row{in.names[i]};
    if (!in.stats.empty())
      row.insert(row.end(), {static_cast<std::int64_t>(in.stats[i].repetitions),
                             in.stats[i].mean_seconds_per_op, in.stats[i].sd_seconds_per_op});
    row.insert(row.end(),
               {in.computers[i].speed, in.computers[i].variation, step1.work[i] / total,
                equalized.work[i] / total, step2.work[i] / total,
                step1.mean_time[i] + step1.time_sd[i], step2.mean_time[i] + step2.time_sd[i],
                std::string(case_key(two.which)), two.tau_step1,
                modelled_tau(in.computers, equalized.work), plan.chosen.tau});
    table.rows.push_back(std::move(row));
  }
  return table;
}

void print_result(const EqualizeArgs& args, const NodeInput& in, const Plan& plan, double total,
                  Context& context) {
  print_table(context.out, node_table(in, plan, total), args.format);
  if (args.format != TableFormat::table) return;
  const auto& two = plan.chosen.two_step;
  const auto& step2 = plan.chosen.partition;
  context.out << fmt::format("case: {}: {}\n", case_key(two.which), case_description(two.which));
  if (two.which != EqualizationCase::none && two.which != EqualizationCase::slow_steady_far)
    context.out << fmt::format("share of the equalizing move taken: {:.3g}\n", two.move_fraction);
  context.out << fmt::format(
      "modelled tau (s): step 1 {:.6g}, equalized {:.6g}, step 2 ({}) {:.6g}\n", two.tau_step1,
      two.tau_equalized, args.method, plan.chosen.tau);
  context.out << fmt::format("degree of equalization: step 1 {:.3g}%, step 2 ({}) {:.3g}%\n",
                             two.step1.degree, args.method, step2.degree);
  if (!step2.note.empty() && step2.note != case_description(two.which))
    context.out << "note: " << step2.note << '\n';
}

/// --db with --format json: one object, nodes and the stored methods with their figures.
void print_json(const NodeInput& in, const collector::SetTimings& timings,
                const Plan& plan, const std::vector<long long>& ids, double total,
                Context& context) {
  const auto& methods = plan.methods;
  nlohmann::json j = {{"source", in.source},
                      {"parameter", timings.parameter},
                      {"runs", timings.runs},
                      {"choice", timings.choice},
                      {"variation", in.from_availability ? "availability" : "run_times"},
                      {"variation_source", in.variation},
                      {"note", in.note},
                      {"case", case_key(plan.chosen.two_step.which)},
                      {"nodes", table_json(node_table(in, plan, total))},
                      {"methods", nlohmann::json::array()}};
  for (std::size_t m = 0; m < methods.size(); ++m)
    j["methods"].push_back({{"method", methods[m].name},
                            {"partition_id", ids[m]},
                            {"degree_of_equalization", methods[m].partition.degree},
                            {"modelled_tau", modelled_tau(in.computers, methods[m].partition.work)},
                            {"simulated_tau", methods[m].simulated.tau},
                            {"simulated_sigma", methods[m].simulated.sigma_t},
                            {"simulated_risk", methods[m].simulated.risk_factor}});
  context.out << j.dump(2) << '\n';
}

void print_simulation(const Plan& plan, const SimulationModel& sim, Context& context) {
  const auto& methods = plan.methods;
  context.out << fmt::format(
      "simulated ({} repetitions, seed {}, intervals uniform in [0, {:.3g}] s; risk = "
      "Prob[T > tau of proportional]):\n",
      sim.options.repetitions, sim.options.seed, sim.options.max_interval);
  for (const auto& m : methods)
    context.out << fmt::format("  {:<17} tau {:.6g} s  sigma_T {:.4g} s  risk {:.3f}\n", m.name,
                               m.simulated.tau, m.simulated.sigma_t, m.simulated.risk_factor);
  if (!sim.note.empty()) context.out << "note: " << sim.note << '\n';
}

std::vector<long long> store(const EqualizeArgs& args, const NodeInput& in,
                             const collector::SetTimings& timings,
                             const Plan& plan, double total, const std::string& file,
                             pg::Connection& conn) {
  const auto& methods = plan.methods;
  pg::Transaction tx(conn);
  std::vector<long long> ids;
  for (const auto& m : methods) {
    collector::StoredPartition p;
    p.experiment_id = timings.experiment_id;
    p.set_index = args.set_index;
    p.method = m.name;
    p.seconds = args.seconds;
    p.node_list = compress_hostlist(sort_hostnames(in.names));
    p.degree_of_equalization = m.partition.degree;
    p.simulated_tau = m.simulated.tau;
    p.simulated_sigma = m.simulated.sigma_t;
    p.simulated_risk = m.simulated.risk_factor;
    if (!file.empty() && &m == &written_method(plan)) p.file_name = file;
    for (std::size_t i = 0; i < in.names.size(); ++i)
      p.shares.push_back({in.names[i], m.partition.work[i] / total,
                          in.stats[i].mean_seconds_per_op, in.stats[i].sd_seconds_per_op,
                          m.partition.mean_time[i] + m.partition.time_sd[i]});
    ids.push_back(collector::store_partition(conn, p));
  }
  tx.commit();
  return ids;
}

void run_equalize(const EqualizeArgs& args, Context& context) {
  if (args.input.empty() == args.db.empty())
    throw UsageError("give either --input FILE or --db URI (with --experiment and --set)");
  if (!args.db.empty() && (args.experiment.empty() || args.set_index < 0))
    throw UsageError("--db needs --experiment NAME and --set K");
  std::optional<pg::Connection> conn;
  collector::SetTimings timings;
  NodeInput in;
  if (args.db.empty()) {
    in = read_input(args);
  } else {
    conn = pg::Connection::open(args.db);
    pg::Transaction snapshot(*conn, pg::TransactionMode::snapshot);  // timings of one moment
    timings = collector::load_set_timings(*conn, args.experiment, args.set_index, args.parameter);
    in = read_database(args, timings, *conn);
    snapshot.commit();
  }
  // sigma_T = k sqrt(t) grows slower than t, so the best shares depend on how long the run
  // is: the total is the work that keeps every node busy --seconds at step 1.
  double total = 0;
  for (const auto& c : in.computers) total += c.speed * args.seconds;
  std::optional<SimulationModel> sim;
  if (conn) sim = simulation_model(args, in);
  const auto plan = compute_plan(args, in, total, sim ? &*sim : nullptr);
  if (conn && args.format == TableFormat::table)
    context.out << fmt::format("{}: {}\n{}\n", in.source, timings.choice, in.variation);
  const bool json_object = conn && args.format == TableFormat::json;
  if (!json_object) print_result(args, in, plan, total, context);
  if (!in.note.empty() && args.format == TableFormat::table) context.out << "note: " << in.note << '\n';
  const std::string file = write_partition(args, in, plan.chosen.partition, context);
  if (!conn) return;
  const auto ids = store(args, in, timings, plan, total, file, *conn);
  if (json_object) return print_json(in, timings, plan, ids, total, context);
  if (args.format == TableFormat::table) {
    print_simulation(plan, *sim, context);
    context.out << fmt::format("stored partitions {}\n", fmt::join(ids, ", "));
  }
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
                  "simulate and store the partitions (without --input, default: HETSCALE_DB or the config file)");
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
                  "Write <DIR>/<node list>.toml, where --hetscale-weights=equalized looks");
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] {
    if (args->input.empty()) args->db = configured_database(args->db);
    run_equalize(*args, context);
  });
}

}  // namespace hetscale::cli
