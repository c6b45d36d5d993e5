// The marked-speed benchmark as classify sees it: one function call. The real one wraps
// hetscale_markspeed (kernels/markspeed); tests pass a stand-in.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace hetscale {

struct BenchmarkRequest {
  std::string name;            // "dgemm", "stream", "kernel:<name>:<N>"
  std::vector<unsigned> cpus;  // OS indices of the PUs to run on, one worker pinned to each
  double seconds = 2;          // time budget of the whole measurement
};

struct BenchmarkOutcome {
  double per_processor_speed = 0;  // median over repetitions, per processor
  std::string speed_unit;          // "Mflops", "MB/s"
  int repetitions = 0;
  double cv = 0;  // coefficient of variation over the repetitions
  double duration_seconds = 0;
  std::string library_version;  // for the record's software versions; may be empty
};

/// Runs a benchmark; throws (any std::exception) when it cannot: the message becomes
/// the excluded record's reason.
using BenchmarkFunction = std::function<BenchmarkOutcome(const BenchmarkRequest&)>;

}  // namespace hetscale
