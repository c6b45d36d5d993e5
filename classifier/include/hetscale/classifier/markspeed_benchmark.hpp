// The real marked-speed benchmark behind classify: hetscale_markspeed (markspeed/).
#pragma once

#include "hetscale/classifier/availability_sampling.hpp"
#include "hetscale/classifier/benchmark.hpp"

namespace hetscale {

/// Runs request.name on request.cpus, one pinned worker per CPU (or
/// request.unpinned_workers sharing them); the speed is markspeed's sustained figure
/// (work / time over the timed repetitions). request.seconds is a
/// budget: a first run of the minimum repetitions calibrates, and when it took under half
/// the budget a second run with more repetitions fills it and is the one reported.
/// Throws Error for an unknown benchmark or a CPU this process may not use.
BenchmarkOutcome run_markspeed(const BenchmarkRequest& request);

}  // namespace hetscale

namespace hetscale {

/// Samples request.name's delivered speed with markspeed::sample_speed (slices of the
/// benchmark's repetition back to back, one warm-up slice per worker) on request.cpus.
SpeedSamples sample_markspeed(const BenchmarkRequest& request, double seconds, double window);

}  // namespace hetscale
