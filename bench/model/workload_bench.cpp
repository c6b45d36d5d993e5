// Workload evaluation speed: the target is a million evaluations well under 100 ms,
// i.e. well under 100 ns per evaluation. Figures are recorded in docs/workload.md.
#include <benchmark/benchmark.h>

#include <vector>

#include "hetscale/model/workload.hpp"

namespace {

// One evaluation per iteration, N varying so that nothing is hoisted out of the loop.
void evaluate_positional(benchmark::State& state, const char* text) {
  const auto workload = hetscale::Workload::parse(text);
  std::vector<double> values(workload.parameters().size(), 0.0);
  double n = 1000;
  for (auto _ : state) {
    for (double& v : values) v = n;
    benchmark::DoNotOptimize(workload.evaluate(values));
    n += 1;
  }
}
BENCHMARK_CAPTURE(evaluate_positional, mm, "mm");
BENCHMARK_CAPTURE(evaluate_positional, ge, "ge");
BENCHMARK_CAPTURE(evaluate_positional, conv2d, "conv2d");
BENCHMARK_CAPTURE(evaluate_positional, user_mixed, "max(2*N^3, 1e6) + sqrt(N)*ln(N) - N/3");

// The figure: one million evaluations of the conv2d formula per iteration.
void million_evaluations_conv2d(benchmark::State& state) {
  const auto workload = hetscale::Workload::parse("conv2d");
  for (auto _ : state) {
    double sum = 0;
    for (int i = 1; i <= 1'000'000; ++i) {
      const double n = i;
      sum += workload.evaluate(std::span<const double>(&n, 1));
    }
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(million_evaluations_conv2d)->Unit(benchmark::kMillisecond);

// Named evaluation (map lookups) is the convenient, slower path.
void evaluate_named(benchmark::State& state) {
  const auto workload = hetscale::Workload::parse("conv2d");
  hetscale::ParameterValues values{{"N", 1000}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(workload.evaluate(values));
    values.begin()->second += 1;
  }
}
BENCHMARK(evaluate_named);

void parse(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(hetscale::Workload::parse("66*N^2*lg(N) + 21*N^2 + 84*N*lg(N)"));
  }
}
BENCHMARK(parse);

}  // namespace
