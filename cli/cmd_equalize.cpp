// hetscale equalize: step 1 (proportional to mean speed) and step 2 (the equalization
// scheme) of Huang & Lee (SCIENCE.md section 3), written as a partition file that
// `--hetscale-weights=equalized` (or =FILE) reads.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "commands.hpp"
#include "hetscale/csv.hpp"
#include "hetscale/equalization.hpp"
#include "hetscale/hostlist.hpp"
#include "hetscale/partition_file.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct EqualizeArgs {
  std::string input;
  double correlation_time = 0;
  double seconds = 0;
  std::string method = "exact";
  std::string site;
  std::string output;
  std::string partitions;
  Format format = Format::table;
};

struct NodeInput {
  std::vector<std::string> names;
  std::vector<VariableComputer> computers;
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

void write_partition(const EqualizeArgs& args, const NodeInput& in, const StochasticPartition& p,
                     Context& context) {
  if (args.output.empty() && args.partitions.empty()) return;
  Partition partition;
  partition.site = args.site;
  const double total = std::accumulate(p.work.begin(), p.work.end(), 0.0);
  for (std::size_t i = 0; i < in.names.size(); ++i)
    partition.nodes.push_back({in.names[i], p.work[i] / total, {}});
  // The plugin looks for <partitions>/<SLURM_STEP_NODELIST>.toml: Slurm's compressed list,
  // in node order, which for the usual names is the natural order.
  const std::filesystem::path path =
      !args.output.empty() ? std::filesystem::path(args.output)
                           : std::filesystem::path(args.partitions) /
                                 (compress_hostlist(sort_hostnames(in.names)) + ".toml");
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const auto temporary = path.string() + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << "# Written by hetscale equalize (" << args.method << ") from " << args.input << "\n"
         << format_partition(partition);
    if (!file) throw Error("cannot write " + temporary);
  }
  std::filesystem::rename(temporary, path);  // readers never see half a file
  context.err << "hetscale equalize: wrote " << path.string() << '\n';
}

void run_equalize(const EqualizeArgs& args, Context& context) {
  const auto in = read_input(args);
  // sigma_T = k sqrt(t) grows slower than t, so the best shares depend on how long the run
  // is: the total is the work that keeps every node busy --seconds at step 1.
  double total = 0;
  for (const auto& c : in.computers) total += c.speed * args.seconds;
  const auto step1 = proportional_partition(in.computers, total);
  const auto step2 = args.method == "linearised" ? linearised_partition(in.computers, total)
                                                 : equalized_partition(in.computers, total);
  Table table{{"node", "speed", "variation", "proportional_weight", "equalized_weight",
               "t_plus_sigma_step1", "t_plus_sigma_step2"},
              {}};
  for (std::size_t i = 0; i < in.names.size(); ++i)
    table.rows.push_back({in.names[i], in.computers[i].speed, in.computers[i].variation,
                          step1.work[i] / total, step2.work[i] / total,
                          step1.mean_time[i] + step1.time_sd[i],
                          step2.mean_time[i] + step2.time_sd[i]});
  print(context.out, table, args.format);
  if (args.format == Format::table) {
    context.out << fmt::format("degree of equalization: step 1 {:.3g}%, step 2 ({}) {:.3g}%\n",
                               step1.degree, args.method, step2.degree);
    if (!step2.note.empty()) context.out << "note: " << step2.note << '\n';
  }
  write_partition(args, in, step2, context);
}

}  // namespace

void register_equalize(CLI::App& app, Context& context) {
  auto args = std::make_shared<EqualizeArgs>();
  auto* cmd =
      app.add_subcommand("equalize", "Equalization-adjusted partition (stochastic load balancing)");
  cmd->add_option("--input", args->input,
                  "CSV: node, speed (mean work per second), and variation (sigma_T/sqrt(t)) or th "
                  "(sigma_A/a)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--correlation-time", args->correlation_time,
                  "E[L^2]/E[L] of availability intervals, seconds (with a 'th' column)");
  cmd->add_option(
         "--seconds", args->seconds,
         "Expected run time of the job with proportional weights (sigma_T grows as sqrt(t), so "
         "the shares depend on it)")
      ->required()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--method", args->method,
                  "exact (default) or linearised (the paper's approximation)")
      ->check(CLI::IsMember({"exact", "linearised"}))
      ->capture_default_str();
  cmd->add_option("--site", args->site, "Site name recorded in the partition file");
  cmd->add_option("-o,--output", args->output, "Write the partition file here");
  cmd->add_option("--partitions", args->partitions,
                  "Write <DIR>/<node list>.toml, where --hetscale-weights=equalized looks");
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] { run_equalize(*args, context); });
}

}  // namespace hetscale::cli
