// hetscale-markspeed: runs one marked-speed benchmark on this node's processors and
// prints the per-processor figures (text or JSON).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "hetscale/markspeed.hpp"

int main(int argc, char** argv) {
  using namespace hetscale::markspeed;
  CLI::App app{"Marked-speed benchmark: one pinned worker per processor, all busy at once"};
  std::string benchmark = "dgemm";
  Options options;
  std::string format = "text";
  app.add_option("benchmark", benchmark, "dgemm (Mflops), stream (MB/s) or kernel:<mm|ge|conv2d>:<N> (Mop/s)")
      ->capture_default_str();
  app.add_option("--cpus", options.cpus, "OS indices of the processors (default: all this process may use)")
      ->delimiter(',');
  app.add_option("--repetitions", options.repetitions, "timed repetitions, at least 5")->capture_default_str();
  app.add_option("--warmups", options.warmups, "untimed repetitions first")->capture_default_str();
  app.add_option("--size", options.size, "dgemm matrix order / stream array elements (0 = default)")
      ->capture_default_str();
  app.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const BenchmarkResult result = run_benchmark(parse_benchmark(benchmark), options);
    if (format == "json") {
      std::printf("%s\n", to_json(result).dump(2).c_str());
      return 0;
    }
    std::printf("%s: %.1f %s per processor (median of %zu processors x %d repetitions), cv %.2f%%, size %zu, %.2f s\n",
                result.benchmark.c_str(), result.median, result.unit.c_str(), result.processors.size(),
                result.repetitions, 100 * result.cv, result.size, result.seconds);
    for (const ProcessorFigure& figure : result.processors) {
      std::printf("  cpu %u: median %.1f %s, cv %.2f%%\n", figure.cpu, figure.median, result.unit.c_str(),
                  100 * figure.cv);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetscale-markspeed: error: %s\n", e.what());
    return 1;
  }
}
