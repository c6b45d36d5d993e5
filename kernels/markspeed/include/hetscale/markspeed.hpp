// Marked-speed benchmarks (SCIENCE.md sections 1 and 4): one worker thread per processor,
// all busy at once, each pinned to its processor with hwloc; a warm-up, then at least five
// timed repetitions; per processor the median and coefficient of variation.
// Called by the classifier; `hetscale-markspeed` is the command-line front.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetscale::markspeed {

enum class BenchmarkKind { dgemm, stream, kernel };

struct BenchmarkSpec {
  BenchmarkKind kind = BenchmarkKind::dgemm;
  std::string kernel;  // "mm", "ge" or "conv2d" for kind == kernel
  std::size_t n = 0;   // kernel size; for dgemm/stream 0 = default size

  /// "dgemm", "stream" or "kernel:<name>:<N>".
  [[nodiscard]] std::string name() const;
  /// "Mflops" (dgemm), "MB/s" (stream), "Mop/s" (kernel: workload formula ops per second).
  [[nodiscard]] std::string unit() const;
};

/// Parses "dgemm", "stream" or "kernel:<mm|ge|conv2d>:<N>"; throws Error.
[[nodiscard]] BenchmarkSpec parse_benchmark(std::string_view text);

struct Options {
  std::vector<unsigned> cpus;  // OS indices of the processors; empty = all allowed_processors()
  int repetitions = 5;         // timed repetitions per processor, >= 5
  int warmups = 1;             // untimed repetitions first
  std::size_t size = 0;        // dgemm matrix order / stream elements; 0 = default
};

inline constexpr std::size_t default_dgemm_order = 1024;
inline constexpr std::size_t default_stream_elements = std::size_t{1} << 22;  // 32 MiB per array

struct ProcessorFigure {
  unsigned cpu = 0;
  double median = 0;           // in the benchmark's unit
  double cv = 0;               // standard deviation / mean of the repetitions
  std::vector<double> samples;
};

struct BenchmarkResult {
  std::string benchmark;       // BenchmarkSpec::name()
  std::string unit;
  std::size_t size = 0;        // the problem size used
  int repetitions = 0;
  double median = 0;           // median of the per-processor medians: the per-processor marked speed
  double cv = 0;               // coefficient of variation of all samples (noise, not heterogeneity)
  double seconds = 0;          // wall time of the whole benchmark
  std::vector<ProcessorFigure> processors;
};

/// The processors this process may run on: hwloc's allowed set (cgroup cpuset) within
/// the process's current binding (Slurm's allocation). OS indices, ascending.
[[nodiscard]] std::vector<unsigned> allowed_processors();

/// Runs the benchmark; throws Error on bad options, an unknown or disallowed processor.
[[nodiscard]] BenchmarkResult run_benchmark(const BenchmarkSpec& spec, const Options& options);

/// Stable keys: benchmark, unit, size, repetitions, median, cv, seconds,
/// processors[{cpu, median, cv, samples}].
[[nodiscard]] nlohmann::json to_json(const BenchmarkResult& result);

/// Median and coefficient of variation (population standard deviation / mean) of a sample.
[[nodiscard]] double median(std::vector<double> values);
[[nodiscard]] double coefficient_of_variation(const std::vector<double>& values);

}  // namespace hetscale::markspeed
