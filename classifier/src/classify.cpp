#include "hetscale/classifier/classify.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "hetscale/base/error.hpp"
#include "hetscale/base/utc_time.hpp"
#include "hetscale/base/version.hpp"

namespace hetscale {
namespace {

nlohmann::json software_versions() {
  nlohmann::json software = {{"hetscale", std::string(version())},
                             {"hwloc", hwloc_version()},
                             {"compiler", fmt::format("g++ {}", __VERSION__)}};
  utsname uts{};
  if (uname(&uts) == 0) software["kernel"] = uts.release;
  return software;
}

void exclude(NodeRecord& record, const std::string& reason) {
  record.state = NodeState::excluded;
  record.reason = reason;
}

std::vector<unsigned> allowed_cpus(const ClassifyOptions& options, const ProbeResult& probe) {
  if (!options.cpus.empty()) return options.cpus;
  return options.topology.kind == TopologySource::Kind::live ? probe.allowed_cpus
                                                             : live_allowed_cpus();
}

// The CPUs of `kind` among `cpus`.
std::vector<unsigned> kind_cpus(const CpuKind& kind, const std::vector<unsigned>& cpus) {
  std::vector<unsigned> out;
  for (unsigned cpu : cpus)
    if (std::binary_search(kind.cpus.begin(), kind.cpus.end(), cpu)) out.push_back(cpu);
  return out;
}

// On a node of several CPU kinds, each kind's own figure: the benchmark on that kind's CPUs
// alone (pinned, one worker each; or as many unpinned workers as the job has, at most one
// per CPU of the kind, bound to them). A kind none of whose CPUs the job may use has none.
void measure_kinds(const ClassifyOptions& options, const BenchmarkFunction& benchmark,
                   const CpuChoice& choice, NodeRecord& record) {
  const std::vector<CpuKind>& kinds = record.hardware.cpu_kinds;
  if (kinds.size() < 2) return;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const std::vector<unsigned> cpus = kind_cpus(kinds[k], choice.cpus);
    if (cpus.empty()) continue;
    const auto workers =
        choice.pinned
            ? 0
            : std::min<std::uint32_t>(choice.workers, static_cast<std::uint32_t>(cpus.size()));
    try {
      const BenchmarkOutcome outcome =
          benchmark({options.benchmark, cpus, workers, options.seconds, record.benchmark_size});
      if (!(outcome.per_processor_speed > 0) || outcome.repetitions <= 0)
        throw Error("measured no speed");
      record.kind_speeds.push_back(
          {k, cpus, workers > 0 ? workers : static_cast<std::uint32_t>(cpus.size()),
           outcome.per_processor_speed, outcome.repetitions, outcome.cv, outcome.duration_seconds});
    } catch (const std::exception& e) {
      record.kind_speeds.clear();
      exclude(record, fmt::format("benchmark {} on CPU kind {} (CPUs {}) failed: {}",
                                  options.benchmark, k, fmt::join(cpus, ","), e.what()));
      return;
    }
  }
}

}  // namespace

CpuChoice choose_cpus(const std::vector<unsigned>& allowed, std::uint32_t slurm_cpus) {
  const auto count = static_cast<std::uint32_t>(allowed.size());
  if (slurm_cpus == 0)
    return {
        allowed, count, true,
        fmt::format("not under Slurm: one worker pinned to each of the {} allowed CPUs", count)};
  if (count <= slurm_cpus)
    return {allowed, count, true,
            fmt::format("Slurm bound the step to {} CPU(s): one worker pinned to each", count)};
  return {allowed, slurm_cpus, false,
          fmt::format("Slurm bound no CPUs (the job has {} here, SLURM_CPUS_ON_NODE, and the "
                      "process may use {}): {} unpinned worker(s)",
                      slurm_cpus, count, slurm_cpus)};
}

std::string short_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  std::string host = name;
  return host.substr(0, host.find('.'));
}

NodeRecord classify_node(const ClassifyOptions& options, const BenchmarkFunction& benchmark,
                         const SamplingFunction& sampler) {
  NodeRecord record;
  record.host = options.host.empty() ? short_host_name() : options.host;
  record.time = options.time.empty() ? utc_time_now() : options.time;
  record.benchmark = options.benchmark;
  record.topology_source = options.topology.describe();
  record.software = software_versions();
  ProbeResult probe;
  try {
    probe = probe_node(options.topology, options.proc);
  } catch (const std::exception& e) {
    exclude(record, e.what());
    return record;
  }
  record.hardware = probe.hardware;
  record.fingerprint = hardware_fingerprint(probe.hardware);
  CpuChoice choice;
  try {
    choice = choose_cpus(allowed_cpus(options, probe), options.slurm_cpus);
  } catch (const std::exception& e) {
    exclude(record, e.what());
    return record;
  }
  if (choice.cpus.empty()) {
    exclude(record, "no CPU is allowed to this process");
    return record;
  }
  record.cpus = choice.cpus;
  record.processors = choice.workers;
  record.binding = choice.pinned ? "pinned" : "unpinned";
  record.binding_reason = choice.reason;
  try {
    const BenchmarkOutcome outcome =
        benchmark({options.benchmark, record.cpus, choice.pinned ? 0 : choice.workers,
                   options.seconds, options.size});
    record.marked_speed = outcome.per_processor_speed;
    record.speed_unit = outcome.speed_unit;
    record.repetitions = outcome.repetitions;
    record.cv = outcome.cv;
    record.duration_seconds = outcome.duration_seconds;
    record.benchmark_size = outcome.size;
    if (!outcome.library_version.empty()) record.software["markspeed"] = outcome.library_version;
    if (!(outcome.per_processor_speed > 0) || outcome.repetitions <= 0)
      exclude(record, fmt::format("benchmark {} measured no speed", options.benchmark));
  } catch (const std::exception& e) {
    exclude(record, fmt::format("benchmark {} failed: {}", options.benchmark, e.what()));
  }
  if (record.state == NodeState::ok) measure_kinds(options, benchmark, choice, record);
  if (record.state != NodeState::ok || !(options.availability.seconds > 0)) return record;
  try {
    if (!sampler) throw Error("no sampler to measure the availability with");
    const AvailabilityOptions& a = options.availability;
    const SpeedSamples samples =
        sampler({options.benchmark, record.cpus, choice.pinned ? 0 : choice.workers, a.seconds,
                 record.benchmark_size},
                a.seconds, a.window);
    const bool given = a.marked_speed > 0;
    record.availability = summarize_availability(
        samples.speeds, samples.window, given ? a.marked_speed : record.marked_speed,
        given ? "given" : "measured");
  } catch (const std::exception& e) {
    exclude(record, fmt::format("availability sampling failed: {}", e.what()));
  }
  return record;
}

}  // namespace hetscale
