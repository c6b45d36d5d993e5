// The marked-speed benchmark as classify sees it: one function call. The real one wraps
// hetscale_markspeed (markspeed/); tests pass a stand-in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hetscale {

struct BenchmarkRequest {
  std::string name;            // "dgemm", "stream", "kernel:<name>:<N>"
  std::vector<unsigned> cpus;  // OS indices of the PUs to run on, one worker pinned to each
  /// 0: as above. N > 0: N workers, none pinned, sharing `cpus` (a job whose CPUs nobody bound).
  std::uint32_t unpinned_workers = 0;
  double seconds = 2;    // time budget of the whole measurement
  std::size_t size = 0;  // problem size (dgemm order, stream elements); 0: default
};

struct BenchmarkOutcome {
  double per_processor_speed = 0;  // per processor: work / time over the timed repetitions
  std::string speed_unit;          // "Mflops", "MB/s"
  int repetitions = 0;
  double cv = 0;  // coefficient of variation over the repetitions
  double duration_seconds = 0;
  std::size_t size = 0;         // the problem size used
  std::string library_version;  // for the record's software versions; may be empty
};

/// Runs a benchmark; throws (any std::exception) when it cannot: the message becomes
/// the excluded record's reason.
using BenchmarkFunction = std::function<BenchmarkOutcome(const BenchmarkRequest&)>;

}  // namespace hetscale
