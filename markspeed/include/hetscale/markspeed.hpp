// Marked-speed benchmarks (docs/science.md sections 1 and 4): one worker thread per processor,
// all busy at once, each pinned to its processor with hwloc (or, for a job whose CPUs
// nobody bound, unpinned workers); a warm-up, then at least five timed repetitions; per
// processor the sustained speed (work / time over the timed repetitions), median and CV.
// Called by the classifier; `hetscale-markspeed` is the command-line front.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetscale::markspeed {

enum class BenchmarkKind { dgemm, stream, kernel };

struct BenchmarkSpec {
  BenchmarkKind kind = BenchmarkKind::dgemm;
  std::string kernel;  // "mm", "ge", "conv2d" or "lu" for kind == kernel
  std::size_t n = 0;   // kernel size; for dgemm/stream 0 = default size

  /// "dgemm", "stream" or "kernel:<name>:<N>".
  [[nodiscard]] std::string name() const;
  /// "Mflops" (dgemm), "MB/s" (stream), "Mop/s" (kernel: workload formula ops per second).
  [[nodiscard]] std::string unit() const;
};

/// Parses "dgemm", "stream" or "kernel:<mm|ge|conv2d|lu>:<N>"; throws Error.
[[nodiscard]] BenchmarkSpec parse_benchmark(std::string_view text);

struct Options {
  std::vector<unsigned> cpus;  // OS indices of the processors; empty = all allowed_processors()
  int repetitions = 5;         // timed repetitions per processor, >= 5
  int warmups = 1;             // untimed repetitions first
  std::size_t size = 0;        // dgemm matrix order / stream elements; 0 = default
  /// 0: one worker pinned to each processor of `cpus`. N > 0: N workers, each bound to all
  /// of `cpus` and placed by the OS scheduler, for a job given N CPUs of a larger set that
  /// nobody bound (Slurm's task/none): pinning there would pick CPUs other jobs use too.
  unsigned unpinned_workers = 0;
};

inline constexpr std::size_t default_dgemm_order = 1024;
inline constexpr std::size_t default_stream_elements = std::size_t{1} << 22;  // 32 MiB per array

struct ProcessorFigure {
  std::optional<unsigned> cpu;  // the processor it was pinned to; none for an unpinned worker
  double sustained = 0;         // total work / total time of the timed repetitions
  double median = 0;            // of the repetitions' speeds, in the benchmark's unit
  double cv = 0;                // standard deviation / mean of the repetitions' speeds
  std::vector<double> samples;  // each repetition's speed
};

struct BenchmarkResult {
  std::string benchmark;       // BenchmarkSpec::name()
  std::string unit;
  std::size_t size = 0;        // the problem size used
  int repetitions = 0;
  bool pinned = true;          // one worker per processor pinned to it (Options::unpinned_workers == 0)
  /// Median over processors of their sustained speeds: the per-processor marked speed.
  /// Work over time across whole repetitions, not a per-repetition statistic: under a CPU
  /// quota a repetition's time varies by up to one quota period with where it starts.
  double sustained = 0;
  double median = 0;           // median of the per-processor medians of the repetitions' speeds
  double cv = 0;               // coefficient of variation of all samples (noise, not heterogeneity)
  double seconds = 0;          // wall time of the whole benchmark
  std::vector<ProcessorFigure> processors;
};

/// The processors this process may run on: hwloc's allowed set (cgroup cpuset) within
/// the process's current binding (Slurm's allocation). OS indices, ascending.
[[nodiscard]] std::vector<unsigned> allowed_processors();

/// Runs the benchmark; throws Error on bad options, an unknown or disallowed processor.
[[nodiscard]] BenchmarkResult run_benchmark(const BenchmarkSpec& spec, const Options& options);

/// The delivered speed over time: every worker runs slices of the benchmark's repetition
/// (Workload::run_slice: a block of dgemm rows, of stream elements) back to back for
/// `seconds`, all starting together; the time is cut into windows of `window` seconds and
/// each slice's work is spread over the windows its run overlaps. A window's speed is the
/// work done in it over its length: time the quota or other load took from the worker
/// counts as not delivered.
struct SpeedSeries {
  std::string benchmark;  // BenchmarkSpec::name()
  std::string unit;
  std::size_t size = 0;
  bool pinned = true;
  double window = 0;            // seconds per window
  std::vector<double> speeds;   // per processor (mean over workers), one per window
  std::uint64_t slices = 0;     // slices run by all workers together
  double seconds = 0;           // wall time of the whole sampling, setup included
};

/// Samples for `seconds` in windows of `window` seconds (floor(seconds / window) windows,
/// at least one); options.repetitions is not used, options.warmups slices per worker run
/// untimed first. Throws Error on bad options or timing arguments, as run_benchmark does.
[[nodiscard]] SpeedSeries sample_speed(const BenchmarkSpec& spec, const Options& options,
                                       double seconds, double window);

/// Stable keys: benchmark, unit, size, repetitions, pinned, sustained, median, cv, seconds,
/// processors[{cpu (null when unpinned), sustained, median, cv, samples}].
[[nodiscard]] nlohmann::json to_json(const BenchmarkResult& result);

/// The coefficient of variation (population standard deviation / mean) of a sample (its
/// median: the model's hetscale::median).
[[nodiscard]] double coefficient_of_variation(const std::vector<double>& values);

}  // namespace hetscale::markspeed
