// hetscale classify: probe this node, run the marked-speed benchmark on the CPUs this
// process may use, print one JSON node record (docs/admin-classify.md).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "commands.hpp"
#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/classifier/classify.hpp"
#include "hetscale/classifier/markspeed_benchmark.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct ClassifyArgs {
  ClassifyOptions options;
  std::string topology_file;
  std::string synthetic;
  std::string output;
  std::string format = "record";
};

// The availability part of a record as one row (--format table|json|csv).
Table availability_table(const NodeRecord& record) {
  Table table{{"host", "time", "state", "a", "sigma_a", "th", "correlation_seconds", "windows",
               "window_seconds", "period_seconds", "reference_speed", "reference", "speed_unit"},
              {}};
  if (!record.availability) {
    table.rows.push_back({record.host, record.time, std::string(to_string(record.state)), {}, {},
                          {}, {}, {}, {}, {}, {}, {}, record.speed_unit});
    return table;
  }
  const NodeAvailability& a = *record.availability;
  table.rows.push_back(
      {record.host, record.time, std::string(to_string(record.state)), a.mean, a.sd, a.th,
       a.correlation_seconds ? Cell(*a.correlation_seconds) : Cell(),
       static_cast<std::int64_t>(a.series.size()), a.window_seconds, a.period_seconds,
       a.reference_speed, a.reference, record.speed_unit});
  return table;
}

TableFormat format_of(const std::string& name) {
  if (name == "table") return TableFormat::table;
  if (name == "json") return TableFormat::json;
  return TableFormat::csv;
}

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
  const bool summary = args.format != "record";
  if (summary && !(args.options.availability.seconds > 0))
    throw Error("--format " + args.format + " prints the availability: it needs --availability");
  if (args.options.availability.seconds > 0) check_availability_options(args.options.availability);
  const NodeRecord record = classify_node(args.options, with_progress(run_markspeed, context.err),
                                          sample_markspeed);
  const std::string line = to_json(record).dump() + "\n";
  if (summary) print_table(context.out, availability_table(record), format_of(args.format));
  if (!args.output.empty()) {
    const std::string path = output_path(args.output, record.host);
    write_file_atomically(path, line);  // the collector never reads half a record
  } else if (!summary) {
    context.out << line << std::flush;
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
  cmd->add_option("--availability", args->options.availability.seconds,
                  "After the marked speed, sample the delivered speed for this many seconds and "
                  "record the availability (a, sigma_A, TH, correlation time)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--window", args->options.availability.window,
                  "Seconds per availability sample")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--marked-speed", args->options.availability.marked_speed,
                  "Per-processor marked speed the availability is relative to (default: the one "
                  "this run measures)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--format", args->format,
                  "record (the node record, one JSON line), or the availability as table, json "
                  "or csv (the record then goes only to --output)")
      ->check(CLI::IsMember({"record", "table", "json", "csv"}))
      ->capture_default_str();
  cmd->callback([args, &context] { run_classify(*args, context); });
}

}  // namespace hetscale::cli
