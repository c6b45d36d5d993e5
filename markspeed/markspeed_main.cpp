// hetscale-markspeed: runs one marked-speed benchmark on this node's processors and
// prints the per-processor figures (text or JSON).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "hetscale/markspeed.hpp"

int main(int argc, char** argv) {
  using namespace hetscale::markspeed;
  CLI::App app{"Marked-speed benchmark: one pinned worker per processor, all busy at once"};
  std::string benchmark = "dgemm";
  Options options;
  std::string format = "text";
  app.add_option("benchmark", benchmark, "dgemm (Mflops), stream (MB/s) or kernel:<mm|ge|conv2d|lu>:<N> (Mop/s)")
      ->capture_default_str();
  app.add_option("--cpus", options.cpus, "OS indices of the processors (default: all this process may use)")
      ->delimiter(',');
  app.add_option("--repetitions", options.repetitions, "timed repetitions, at least 5")->capture_default_str();
  app.add_option("--warmups", options.warmups, "untimed repetitions first")->capture_default_str();
  app.add_option("--size", options.size, "dgemm matrix order / stream array elements (0 = default)")
      ->capture_default_str();
  app.add_option("--unpinned", options.unpinned_workers,
                 "run this many workers, none pinned, on the processors (0 = one pinned worker each)")
      ->capture_default_str();
  app.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const BenchmarkResult result = run_benchmark(parse_benchmark(benchmark), options);
    if (format == "json") {
      std::printf("%s\n", to_json(result).dump(2).c_str());
      return 0;
    }
    std::printf("%s: %.1f %s per processor (%zu %s workers x %d repetitions), cv %.2f%%, size %zu, %.2f s\n",
                result.benchmark.c_str(), result.sustained, result.unit.c_str(), result.processors.size(),
                result.pinned ? "pinned" : "unpinned", result.repetitions, 100 * result.cv, result.size,
                result.seconds);
    for (std::size_t i = 0; i < result.processors.size(); ++i) {
      const ProcessorFigure& figure = result.processors[i];
      const std::string where = figure.cpu ? "cpu " + std::to_string(*figure.cpu) : "worker " + std::to_string(i);
      std::printf("  %s: %.1f %s sustained, median %.1f, cv %.2f%%\n", where.c_str(), figure.sustained,
                  result.unit.c_str(), figure.median, 100 * figure.cv);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetscale-markspeed: error: %s\n", e.what());
    return 1;
  }
}
