#include "hetscale/classifier/markspeed_benchmark.hpp"

#include <algorithm>
#include <cmath>

#include "hetscale/base/version.hpp"
#include "hetscale/markspeed.hpp"

namespace hetscale {
namespace {

constexpr int min_repetitions = 5;  // markspeed's floor
constexpr int max_repetitions = 200;

// The request's processors, workers and size; markspeed's defaults for the rest.
markspeed::Options options_of(const BenchmarkRequest& request) {
  markspeed::Options options;
  options.cpus = request.cpus;
  options.unpinned_workers = request.unpinned_workers;
  options.size = request.size;
  return options;
}

BenchmarkOutcome outcome_of(const markspeed::BenchmarkResult& r) {
  return {r.sustained, r.unit, r.repetitions, r.cv, r.seconds, r.size, std::string(version())};
}

}  // namespace

BenchmarkOutcome run_markspeed(const BenchmarkRequest& request) {
  const markspeed::BenchmarkSpec spec = markspeed::parse_benchmark(request.name);
  markspeed::Options options = options_of(request);
  options.repetitions = min_repetitions;
  const markspeed::BenchmarkResult first = markspeed::run_benchmark(spec, options);
  if (first.seconds >= request.seconds / 2) return outcome_of(first);
  // One repetition (the warm-up counts as one) took first.seconds / (reps + warm-ups).
  const double per_repetition = first.seconds / (options.repetitions + options.warmups);
  const double fit = request.seconds / std::max(per_repetition, 1e-9) - options.warmups;
  options.repetitions =
      std::clamp(static_cast<int>(std::floor(fit)), min_repetitions, max_repetitions);
  if (options.repetitions == min_repetitions) return outcome_of(first);
  // The figure is the second run's; the time is both runs', calibration included.
  BenchmarkOutcome outcome = outcome_of(markspeed::run_benchmark(spec, options));
  outcome.duration_seconds += first.seconds;
  return outcome;
}

SpeedSamples sample_markspeed(const BenchmarkRequest& request, double seconds, double window) {
  const markspeed::BenchmarkSpec spec = markspeed::parse_benchmark(request.name);
  const markspeed::SpeedSeries series =
      markspeed::sample_speed(spec, options_of(request), seconds, window);
  return {series.speeds, series.window};
}

}  // namespace hetscale
