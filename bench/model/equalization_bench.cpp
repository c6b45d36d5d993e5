// Equalization of many computers (target: 100,000 nodes in under 50 ms), step 2 by case
// and the optimum of the modelled tau.
//   build/default/bin/bench_model --benchmark_filter='Equaliz|Linearised|TwoStep|Optimal'

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "hetscale/model/equalization.hpp"

namespace {

std::vector<hetscale::VariableComputer> random_computers(std::size_t n) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> speed(0.5, 4), variation(0, 1);
  std::vector<hetscale::VariableComputer> computers(n);
  for (auto& c : computers) c = {speed(rng), variation(rng)};
  return computers;
}

void BM_EqualizedPartition(benchmark::State& state) {
  const auto computers = random_computers(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(hetscale::equalized_partition(computers, 1e9));
  state.SetLabel(std::to_string(state.range(0)) + " computers");
}
BENCHMARK(BM_EqualizedPartition)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_LinearisedPartition(benchmark::State& state) {
  const auto computers = random_computers(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(hetscale::linearised_partition(computers, 1e9));
}
BENCHMARK(BM_LinearisedPartition)->Arg(100000)->Unit(benchmark::kMillisecond);

/// Step 2 by case: two partitions, a gradient and a golden-section search of the modelled tau.
void BM_TwoStepPartition(benchmark::State& state) {
  const auto computers = random_computers(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(hetscale::two_step_partition(computers, 1e5));
}
BENCHMARK(BM_TwoStepPartition)->Arg(8)->Arg(64)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_OptimalPartition(benchmark::State& state) {
  const auto computers = random_computers(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(hetscale::optimal_partition(computers, 1e5));
}
BENCHMARK(BM_OptimalPartition)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
