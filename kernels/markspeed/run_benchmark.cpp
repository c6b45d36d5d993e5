// Runs a benchmark with one worker thread per processor, all busy together: a barrier
// starts every repetition on every processor at once. Workers are pinned one per processor,
// or, when asked for unpinned workers, each bound to the whole set.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <thread>

#include "hetscale/error.hpp"
#include "hetscale/markspeed.hpp"
#include "hetscale/sample_statistics.hpp"
#include "processors.hpp"
#include "serial/blas.hpp"
#include "workloads.hpp"

namespace hetscale::markspeed {
namespace {

void check_options(const Options& options, const std::vector<unsigned>& allowed) {
  if (options.repetitions < 5) throw Error("markspeed: at least 5 repetitions are needed");
  if (options.warmups < 0) throw Error("markspeed: warm-ups cannot be negative");
  for (unsigned cpu : options.cpus) {
    if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
      throw Error("markspeed: processor " + std::to_string(cpu) + " is not allowed to this process");
    }
  }
}

// Where one worker runs: pinned to one processor, or bound to a set (unpinned).
struct Placement {
  std::optional<unsigned> cpu;
  const std::vector<unsigned>* set = nullptr;
  unsigned seed = 1;
};

// One worker: places itself, builds its data, then runs every repetition in step with the
// others. A worker that fails drops out of the barrier so that the others never wait on it.
void work(const Topology& topology, Placement placement, const BenchmarkSpec& spec, std::size_t size,
          const Options& options, std::barrier<>& start, ProcessorFigure& figure, std::exception_ptr& error) {
  std::unique_ptr<Workload> workload;
  try {
    if (placement.cpu) {
      topology.pin_this_thread(*placement.cpu);
    } else {
      topology.bind_this_thread(*placement.set);
    }
    workload = make_workload(spec, size, placement.seed);
    figure.cpu = placement.cpu;
    const int total = options.warmups + options.repetitions;
    double work = 0, seconds = 0;
    for (int rep = 0; rep < total; ++rep) {
      start.arrive_and_wait();
      const Repetition r = workload->run_once();
      if (rep < options.warmups) continue;
      figure.samples.push_back(r.speed());
      work += r.work;
      seconds += r.seconds;
    }
    figure.sustained = work / seconds;
  } catch (...) {
    error = std::current_exception();
    start.arrive_and_drop();
  }
}

// One pinned worker per processor, or `unpinned` workers sharing them all. Each worker
// gets its own data seed: the processor's index + 1, or the worker's.
std::vector<Placement> placements_of(const std::vector<unsigned>& cpus, unsigned unpinned) {
  std::vector<Placement> placements;
  if (unpinned == 0) {
    for (unsigned cpu : cpus) placements.push_back({cpu, nullptr, cpu + 1});
  } else {
    for (unsigned i = 0; i < unpinned; ++i) placements.push_back({std::nullopt, &cpus, i + 1});
  }
  return placements;
}

}  // namespace

BenchmarkResult run_benchmark(const BenchmarkSpec& spec, const Options& options) {
  const auto began = std::chrono::steady_clock::now();
  const Topology topology;
  const std::vector<unsigned> allowed = topology.allowed_processors();
  check_options(options, allowed);
  const std::vector<unsigned> cpus = options.cpus.empty() ? allowed : options.cpus;
  if (cpus.empty()) throw Error("markspeed: no processor to run on");
  // More busy workers than processors would time their sharing, not the processors.
  if (options.unpinned_workers > cpus.size()) {
    throw Error("markspeed: " + std::to_string(options.unpinned_workers) + " unpinned workers for " +
                std::to_string(cpus.size()) + " processors");
  }
  const std::vector<Placement> placements = placements_of(cpus, options.unpinned_workers);
  // Each worker is one processor: BLAS must not start threads of its own.
  kernels::use_single_threaded_blas();

  BenchmarkResult result;
  result.benchmark = spec.name();
  result.unit = spec.unit();
  result.size = effective_size(spec, options.size);
  result.repetitions = options.repetitions;
  result.pinned = options.unpinned_workers == 0;
  result.processors.resize(placements.size());
  std::vector<std::exception_ptr> errors(placements.size());
  {
    std::barrier<> start(static_cast<std::ptrdiff_t>(placements.size()));
    std::vector<std::jthread> workers;
    for (std::size_t i = 0; i < placements.size(); ++i) {
      workers.emplace_back(work, std::cref(topology), placements[i], std::cref(spec), result.size,
                           std::cref(options), std::ref(start), std::ref(result.processors[i]),
                           std::ref(errors[i]));
    }
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  std::vector<double> sustained, medians, all;
  for (ProcessorFigure& figure : result.processors) {
    figure.median = median(figure.samples);
    figure.cv = coefficient_of_variation(figure.samples);
    sustained.push_back(figure.sustained);
    medians.push_back(figure.median);
    all.insert(all.end(), figure.samples.begin(), figure.samples.end());
  }
  result.sustained = median(sustained);
  result.median = median(medians);
  result.cv = coefficient_of_variation(all);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return result;
}

nlohmann::json to_json(const BenchmarkResult& result) {
  nlohmann::json processors = nlohmann::json::array();
  for (const ProcessorFigure& figure : result.processors) {
    const nlohmann::json cpu = figure.cpu ? nlohmann::json(*figure.cpu) : nlohmann::json(nullptr);
    processors.push_back({{"cpu", cpu},
                          {"sustained", figure.sustained},
                          {"median", figure.median},
                          {"cv", figure.cv},
                          {"samples", figure.samples}});
  }
  return {{"benchmark", result.benchmark},
          {"unit", result.unit},
          {"size", result.size},
          {"repetitions", result.repetitions},
          {"pinned", result.pinned},
          {"sustained", result.sustained},
          {"median", result.median},
          {"cv", result.cv},
          {"seconds", result.seconds},
          {"processors", std::move(processors)}};
}

}  // namespace hetscale::markspeed
