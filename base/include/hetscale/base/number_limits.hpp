// The ranges every figure hetscale reads must lie in (docs/contracts.md, "Number ranges"):
// wide enough for any real machine and run, narrow enough that sums over a million ranks,
// products of a speed and a time, and conversions to integers never overflow. Readers
// refuse a value outside its range with the place it came from (TOML file:line:col, run
// record file:line and field).
#pragma once

#include <limits>

namespace hetscale {

/// Seconds of any run, rank or time limit: about 31.7 years.
inline constexpr double kMaxSeconds = 1e9;
/// Work W of a run, and the workload formula's value at any planned size.
inline constexpr double kMaxWork = 1e30;
/// A per-processor marked speed in a site table (or its cache), in the site's unit; a
/// step's sum over a million ranks of many CPUs each stays below kMaxSpeed.
inline constexpr double kMaxProcessorSpeed = 1e18;
/// Any marked speed of a rank, a step or a set (C).
inline constexpr double kMaxSpeed = 1e30;
/// A rank's weight (its share of the work; all sum to 1).
inline constexpr double kMaxWeight = 1;
/// The magnitude of a workload parameter (N).
inline constexpr double kMaxParameter = 1e15;
/// [network] latency_us (and the backbone's): 10 s, 30 times a geostationary satellite hop.
inline constexpr double kMaxLatencyMicroseconds = 1e7;
/// [network] bandwidth_MBps (and the backbone's): 1 PB/s, 500 times the fastest link (2 TB/s).
inline constexpr double kMaxBandwidthMBps = 1e9;
/// No bound beyond finiteness (the default of the readers that take a maximum).
inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

}  // namespace hetscale
