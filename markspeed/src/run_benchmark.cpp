// Runs a benchmark with one worker thread per processor, all busy together: a barrier
// starts every repetition on every processor at once. Workers are pinned one per processor,
// or, when asked for unpinned workers, each bound to the whole set.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <functional>
#include <exception>
#include <optional>
#include <string>
#include <thread>

#include "hetscale/base/error.hpp"
#include "hetscale/markspeed.hpp"
#include "hetscale/model/sample_statistics.hpp"
#include "processors.hpp"
#include "serial/blas.hpp"
#include "workloads.hpp"

namespace hetscale::markspeed {
namespace {

// The processors the workers run on: options.cpus, or every allowed one. Throws Error on
// negative warm-ups, a processor not allowed, none at all, or more unpinned workers than
// processors (more busy workers than processors would time their sharing, not the processors).
std::vector<unsigned> processors_to_run_on(const Options& options,
                                           const std::vector<unsigned>& allowed) {
  if (options.warmups < 0) throw Error("markspeed: warm-ups cannot be negative");
  for (unsigned cpu : options.cpus) {
    if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
      throw Error("markspeed: processor " + std::to_string(cpu) + " is not allowed to this process");
    }
  }
  std::vector<unsigned> cpus = options.cpus.empty() ? allowed : options.cpus;
  if (cpus.empty()) throw Error("markspeed: no processor to run on");
  if (options.unpinned_workers > cpus.size()) {
    throw Error("markspeed: " + std::to_string(options.unpinned_workers) + " unpinned workers for " +
                std::to_string(cpus.size()) + " processors");
  }
  return cpus;
}

// Where one worker runs: pinned to one processor, or bound to a set (unpinned).
struct Placement {
  std::optional<unsigned> cpu;
  const std::vector<unsigned>* set = nullptr;
  unsigned seed = 1;
};

// Pinned to its processor, or bound to its set of processors when unpinned.
void place_this_thread(const Topology& topology, const Placement& placement) {
  if (placement.cpu) {
    topology.pin_this_thread(*placement.cpu);
  } else {
    topology.bind_this_thread(*placement.set);
  }
}

// One worker: places itself, builds its data, then runs every repetition in step with the
// others. A worker that fails drops out of the barrier so that the others never wait on it.
void work(const Topology& topology, Placement placement, const BenchmarkSpec& spec, std::size_t size,
          const Options& options, std::barrier<>& start, ProcessorFigure& figure, std::exception_ptr& error) {
  std::unique_ptr<Workload> workload;
  try {
    place_this_thread(topology, placement);
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

// Spreads a slice's work over the windows its run [begin, end) overlaps (seconds from the
// common start); work past the last window is dropped.
void attribute(double begin, double end, double work, double window, std::vector<double>& windows) {
  const auto count = static_cast<double>(windows.size());
  if (!(end > begin)) {
    const double k = std::floor(begin / window);
    if (k >= 0 && k < count) windows[static_cast<std::size_t>(k)] += work;
    return;
  }
  const double rate = work / (end - begin);
  for (double k = std::max(0.0, std::floor(begin / window)); k < count && k * window < end; ++k) {
    const double overlap = std::min(end, (k + 1) * window) - std::max(begin, k * window);
    if (overlap > 0) windows[static_cast<std::size_t>(k)] += rate * overlap;
  }
}

using SteadyClock = std::chrono::steady_clock;

// One sampling worker: places itself, builds its data, runs its warm-up slices, then slices
// back to back from the common start until `span` seconds have passed.
void sample(const Topology& topology, Placement placement, const BenchmarkSpec& spec,
            std::size_t size, const Options& options, double span, double window,
            std::barrier<std::function<void()>>& start, const SteadyClock::time_point& began,
            std::vector<double>& windows, std::uint64_t& slices, std::exception_ptr& error) {
  std::unique_ptr<Workload> workload;
  try {
    place_this_thread(topology, placement);
    workload = make_workload(spec, size, placement.seed);
    for (int i = 0; i < options.warmups; ++i) (void)workload->run_slice();
  } catch (...) {
    error = std::current_exception();
    start.arrive_and_drop();
    return;
  }
  start.arrive_and_wait();
  const auto at = [&began](SteadyClock::time_point t) {
    return std::chrono::duration<double>(t - began).count();
  };
  for (double now = at(SteadyClock::now()); now < span;) {
    const Repetition r = workload->run_slice();
    const double end = at(SteadyClock::now());
    // The slice's own timing, placed to end now (the bookkeeping between slices is tiny).
    attribute(end - r.seconds, end, r.work, window, windows);
    ++slices;
    now = end;
  }
}

}  // namespace

SpeedSeries sample_speed(const BenchmarkSpec& spec, const Options& options, double seconds,
                         double window) {
  const auto began = SteadyClock::now();
  if (!(window > 0) || !std::isfinite(window))
    throw Error("markspeed: the sampling window must be a positive number of seconds");
  if (!(seconds >= window) || !std::isfinite(seconds))
    throw Error("markspeed: the sampling period must be at least one window long");
  const Topology topology;
  const std::vector<unsigned> cpus = processors_to_run_on(options, topology.allowed_processors());
  const std::vector<Placement> placements = placements_of(cpus, options.unpinned_workers);
  kernels::use_single_threaded_blas();
  const auto count = static_cast<std::size_t>(std::max(1.0, std::floor(seconds / window)));
  const double span = static_cast<double>(count) * window;

  SpeedSeries series;
  series.benchmark = spec.name();
  series.unit = spec.unit();
  series.size = effective_size(spec, options.size);
  series.pinned = options.unpinned_workers == 0;
  series.window = window;
  std::vector<std::vector<double>> windows(placements.size(), std::vector<double>(count, 0.0));
  std::vector<std::uint64_t> slices(placements.size(), 0);
  std::vector<std::exception_ptr> errors(placements.size());
  SteadyClock::time_point start_time;
  {
    // The last worker to arrive starts the clock for all.
    std::barrier<std::function<void()>> start(static_cast<std::ptrdiff_t>(placements.size()),
                                              [&start_time]() noexcept { start_time = SteadyClock::now(); });
    std::vector<std::jthread> workers;
    for (std::size_t i = 0; i < placements.size(); ++i) {
      workers.emplace_back(sample, std::cref(topology), placements[i], std::cref(spec), series.size,
                           std::cref(options), span, window, std::ref(start), std::cref(start_time),
                           std::ref(windows[i]), std::ref(slices[i]), std::ref(errors[i]));
    }
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  series.speeds.assign(count, 0.0);
  for (std::size_t w = 0; w < placements.size(); ++w) {
    for (std::size_t k = 0; k < count; ++k)
      series.speeds[k] += windows[w][k] / window / static_cast<double>(placements.size());
    series.slices += slices[w];
  }
  series.seconds = std::chrono::duration<double>(SteadyClock::now() - began).count();
  return series;
}

BenchmarkResult run_benchmark(const BenchmarkSpec& spec, const Options& options) {
  const auto began = std::chrono::steady_clock::now();
  if (options.repetitions < 5) throw Error("markspeed: at least 5 repetitions are needed");
  const Topology topology;
  const std::vector<unsigned> cpus = processors_to_run_on(options, topology.allowed_processors());
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
