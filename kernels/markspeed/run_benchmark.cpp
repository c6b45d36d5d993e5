// Runs a benchmark with one pinned worker thread per processor, all busy together:
// a barrier starts every repetition on every processor at once.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <exception>
#include <string>
#include <thread>

#include "hetscale/error.hpp"
#include "hetscale/markspeed.hpp"
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

// One worker: pins itself, builds its data, then runs every repetition in step with the
// others. A worker that fails drops out of the barrier so that the others never wait on it.
void work(const Topology& topology, unsigned cpu, const BenchmarkSpec& spec, std::size_t size,
          const Options& options, std::barrier<>& start, ProcessorFigure& figure, std::exception_ptr& error) {
  std::unique_ptr<Workload> workload;
  try {
    topology.pin_this_thread(cpu);
    workload = make_workload(spec, size, cpu + 1);
    figure.cpu = cpu;
    const int total = options.warmups + options.repetitions;
    for (int rep = 0; rep < total; ++rep) {
      start.arrive_and_wait();
      const double speed = workload->run_once();
      if (rep >= options.warmups) figure.samples.push_back(speed);
    }
  } catch (...) {
    error = std::current_exception();
    start.arrive_and_drop();
  }
}

}  // namespace

BenchmarkResult run_benchmark(const BenchmarkSpec& spec, const Options& options) {
  const auto began = std::chrono::steady_clock::now();
  const Topology topology;
  const std::vector<unsigned> allowed = topology.allowed_processors();
  check_options(options, allowed);
  const std::vector<unsigned> cpus = options.cpus.empty() ? allowed : options.cpus;
  if (cpus.empty()) throw Error("markspeed: no processor to run on");
  // Each worker is one processor: BLAS must not start threads of its own.
  kernels::use_single_threaded_blas();

  BenchmarkResult result;
  result.benchmark = spec.name();
  result.unit = spec.unit();
  result.size = effective_size(spec, options.size);
  result.repetitions = options.repetitions;
  result.processors.resize(cpus.size());
  std::vector<std::exception_ptr> errors(cpus.size());
  {
    std::barrier<> start(static_cast<std::ptrdiff_t>(cpus.size()));
    std::vector<std::jthread> workers;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      workers.emplace_back(work, std::cref(topology), cpus[i], std::cref(spec), result.size, std::cref(options),
                           std::ref(start), std::ref(result.processors[i]), std::ref(errors[i]));
    }
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  std::vector<double> medians, all;
  for (ProcessorFigure& figure : result.processors) {
    figure.median = median(figure.samples);
    figure.cv = coefficient_of_variation(figure.samples);
    medians.push_back(figure.median);
    all.insert(all.end(), figure.samples.begin(), figure.samples.end());
  }
  result.median = median(medians);
  result.cv = coefficient_of_variation(all);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return result;
}

nlohmann::json to_json(const BenchmarkResult& result) {
  nlohmann::json processors = nlohmann::json::array();
  for (const ProcessorFigure& figure : result.processors) {
    processors.push_back({{"cpu", figure.cpu}, {"median", figure.median}, {"cv", figure.cv}, {"samples", figure.samples}});
  }
  return {{"benchmark", result.benchmark}, {"unit", result.unit},     {"size", result.size},
          {"repetitions", result.repetitions}, {"median", result.median}, {"cv", result.cv},
          {"seconds", result.seconds},     {"processors", std::move(processors)}};
}

}  // namespace hetscale::markspeed
