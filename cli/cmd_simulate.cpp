// hetscale simulate: Monte Carlo of shared heterogeneous computers (docs/science.md section 3)
// for given partitions, and how far the equalization heuristic is from the best partition.
#include <fmt/format.h>

#include "commands.hpp"
#include "hetscale/base/csv.hpp"
#include "hetscale/model/equalization.hpp"
#include "hetscale/model/simulation.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct SimulateArgs {
  std::string computers;
  std::vector<std::string> partitions{"proportional", "equalized"};
  double total_work = 0;
  std::string distribution = "uniform";
  SimulationOptions options;
  TableFormat format = TableFormat::table;
};

struct Computers {
  std::vector<std::string> names;
  std::vector<SimulatedComputer> simulated;
  std::vector<double> given_work;  // the optional `work` column
};

Computers read_computers(const std::string& path) {
  const auto csv = CsvTable::load(path);
  csv.allow_only({"name", "max_power", "availability", "availability_sd", "work"});
  Computers c;
  for (std::size_t r = 0; r < csv.rows(); ++r) {
    c.names.push_back(csv.text(r, "name"));
    c.simulated.push_back({csv.number(r, "max_power"), csv.number(r, "availability"),
                           csv.number(r, "availability_sd")});
    if (csv.has_column("work")) c.given_work.push_back(csv.number(r, "work"));
  }
  if (c.names.empty()) throw Error(path + ": no computers listed");
  return c;
}

std::vector<double> partition_named(const std::string& name, const Computers& c,
                                    const std::vector<VariableComputer>& model, double total,
                                    const SimulationOptions& options) {
  if (name == "given") {
    if (c.given_work.empty())
      throw UsageError("--partition given: the computers file has no 'work' column");
    return c.given_work;
  }
  if (name == "proportional") return proportional_partition(model, total).work;
  if (name == "equalized") return equalized_partition(model, total).work;
  if (name == "linearised") return linearised_partition(model, total).work;
  if (name == "step2") return two_step_partition(model, total).step2.work;
  if (name == "optimum") return optimal_partition(model, total).work;
  if (name == "optimised")
    return optimise_partition(c.simulated, equalized_partition(model, total).work, options);
  throw UsageError("--partition: unknown partition '" + name +
                   "' (given, proportional, equalized, linearised, step2, optimum, optimised)");
}

void run_simulate(SimulateArgs& args, Context& context) {
  args.options.distribution = parse_availability_distribution(args.distribution);
  const auto computers = read_computers(args.computers);
  const auto model = variable_computers(computers.simulated, args.options.max_interval);
  double total = args.total_work;
  if (total <= 0) {
    // Default: enough work for about 100 time units per computer at step 1.
    for (const auto& m : model) total += 100 * m.speed;
  }
  Table table{{"partition", "tau", "sigma_t", "normalised_sd", "risk_factor", "deadline", "degree",
               "gain_vs_first"},
              {}};
  double first_tau = 0;
  for (const auto& name : args.partitions) {
    const auto work = partition_named(name, computers, model, total, args.options);
    const auto r = simulate(computers.simulated, work, args.options);
    if (first_tau == 0) first_tau = r.tau;
    table.rows.push_back({name, r.tau, r.sigma_t, r.normalised_sd, r.risk_factor, r.deadline,
                          describe_partition(model, work).degree, 100 * (first_tau - r.tau) / first_tau});
  }
  print_table(context.out, table, args.format);
}

}  // namespace

void register_simulate(CLI::App& app, Context& context) {
  auto args = std::make_shared<SimulateArgs>();
  auto* cmd = app.add_subcommand(
      "simulate", "Monte Carlo of shared computers: tau, sigma_T, risk factor per partition");
  cmd->add_option("--computers", args->computers,
                  "CSV with columns name, max_power, availability, availability_sd [, work]")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "--partition", args->partitions,
         "Partitions to compare, the first is the reference for the gain: given, proportional, "
         "equalized, linearised, step2 (by case), optimum (least modelled tau), optimised "
         "(least simulated tau, searched from equalized)")
      ->capture_default_str();
  cmd->add_option("--total-work", args->total_work,
                  "Work to partition (default: 100 time units per computer)");
  cmd->add_option("--repetitions", args->options.repetitions, "Monte Carlo repetitions")
      ->capture_default_str();
  cmd->add_option("--seed", args->options.seed, "Random seed (same seed, same figures)")
      ->capture_default_str();
  cmd->add_option("--interval", args->options.max_interval,
                  "Availability intervals are uniform in [0, this] time units")
      ->capture_default_str();
  cmd->add_option("--sync-points", args->options.sync_points,
                  "N_s: phases that wait for the slowest")
      ->capture_default_str();
  cmd->add_option("--distribution", args->distribution, "Availability: uniform, two-point or beta")
      ->capture_default_str();
  cmd->add_option("--deadline", args->options.deadline, "tau_d for the risk factor (default: tau)");
  cmd->add_option("--communication-time", args->options.communication_time,
                  "Communication after each phase at full network availability (each computer "
                  "draws its own network availability; the phase waits for the slowest)");
  cmd->add_option("--network-availability", args->options.network_availability,
                  "Mean network availability")
      ->capture_default_str();
  cmd->add_option("--network-availability-sd", args->options.network_availability_sd,
                  "Standard deviation of network availability")
      ->capture_default_str();
  cmd->add_option("--threads", args->options.threads, "Threads (0: all cores)")
      ->capture_default_str();
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] { run_simulate(*args, context); });
}

}  // namespace hetscale::cli
