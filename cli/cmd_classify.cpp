// hetscale classify: probe this node, run the marked-speed benchmark on the CPUs this
// process may use, print one JSON node record (docs/admin-classify.md).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "commands.hpp"
#include "hetscale/classifier/classify.hpp"
#include "hetscale/classifier/markspeed_benchmark.hpp"
#include "hetscale/error.hpp"

namespace hetscale::cli {
namespace {

struct ClassifyArgs {
  ClassifyOptions options;
  std::string topology_file;
  std::string synthetic;
  std::string output;
};

TopologySource topology_source(const ClassifyArgs& args) {
  if (!args.topology_file.empty()) return {TopologySource::Kind::xml, args.topology_file};
  if (!args.synthetic.empty()) return {TopologySource::Kind::synthetic, args.synthetic};
  return {};
}

// "records/%n.json" -> "records/n3.json": one file per node from a single srun line.
std::string output_path(std::string pattern, const std::string& host) {
  for (auto at = pattern.find("%n"); at != std::string::npos;
       at = pattern.find("%n", at + host.size()))
    pattern.replace(at, 2, host);
  return pattern;
}

// Progress only for a person at a terminal; under srun stderr is a pipe and stays quiet.
BenchmarkFunction with_progress(BenchmarkFunction benchmark, std::ostream& err) {
  if (isatty(STDERR_FILENO) == 0) return benchmark;
  return [benchmark = std::move(benchmark), &err](const BenchmarkRequest& request) {
    const std::size_t workers =
        request.unpinned_workers > 0 ? request.unpinned_workers : request.cpus.size();
    err << fmt::format("hetscale classify: running {} with {} {} worker(s), about {} s...\n",
                       request.name, workers, request.unpinned_workers > 0 ? "unpinned" : "pinned",
                       request.seconds)
        << std::flush;
    BenchmarkOutcome outcome = benchmark(request);
    err << fmt::format("hetscale classify: {:.6g} {} per processor, CV {:.2f}%, {} repetitions\n",
                       outcome.per_processor_speed, outcome.speed_unit, 100 * outcome.cv,
                       outcome.repetitions);
    return outcome;
  };
}

// SLURM_CPUS_ON_NODE: the CPUs the job was given here (0: not under Slurm).
std::uint32_t slurm_cpus_on_node() {
  const char* text = std::getenv("SLURM_CPUS_ON_NODE");
  if (text == nullptr) return 0;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  return end != text && *end == '\0' && value <= UINT32_MAX ? static_cast<std::uint32_t>(value) : 0;
}

void run_classify(ClassifyArgs& args, Context& context) {
  args.options.topology = topology_source(args);
  args.options.slurm_cpus = slurm_cpus_on_node();
  const NodeRecord record = classify_node(args.options, with_progress(run_markspeed, context.err));
  const std::string line = to_json(record).dump() + "\n";
  if (args.output.empty()) {
    context.out << line << std::flush;
  } else {
    const std::string path = output_path(args.output, record.host);
    std::ofstream out(path);
    out << line;
    out.close();
    if (!out) throw Error(fmt::format("cannot write the node record to '{}'", path));
  }
  // The record is printed either way; the sysadmin also sees why on stderr.
  if (record.state == NodeState::excluded)
    context.err << fmt::format("hetscale classify: {} excluded: {}\n", record.host, record.reason);
}

}  // namespace

void register_classify(CLI::App& app, Context& context) {
  auto args = std::make_shared<ClassifyArgs>();
  auto* cmd = app.add_subcommand(
      "classify", "Probe this node, measure its marked speed, print one JSON node record");
  cmd->add_option("--benchmark", args->options.benchmark,
                  "dgemm, stream or kernel:<mm|ge|conv2d|lu>:<N> (the same on every node)")
      ->capture_default_str();
  auto* topology = cmd->add_option("--topology", args->topology_file,
                                   "Take the hardware from a recorded hwloc XML file")
                       ->check(CLI::ExistingFile);
  cmd->add_option(
         "--synthetic", args->synthetic,
         "Take the hardware from a synthetic hwloc description, e.g. \"pack:2 core:8 pu:2\"")
      ->excludes(topology);
  cmd->add_option("--seconds", args->options.seconds, "Time budget of the benchmark")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--size", args->options.size,
                  "Problem size: dgemm matrix order, stream elements (default: the benchmark's; "
                  "use the same on every node)");
  cmd->add_option("--output", args->output,
                  "Write the record to this file instead of stdout (%n: the host name)");
  cmd->add_option("--host", args->options.host, "Host name to record (default: this host's)");
  cmd->callback([args, &context] { run_classify(*args, context); });
}

}  // namespace hetscale::cli
