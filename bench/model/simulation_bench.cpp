// Monte Carlo of the availability model (target: 1,000 repetitions on 1,000
// computers in under 2 s on two cores).
//   build/default/bin/bench_model --benchmark_filter=Simulate
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "hetscale/model/simulation.hpp"

namespace {

void BM_Simulate(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> power(1, 4), sd(0, 0.28);
  std::vector<hetscale::SimulatedComputer> computers(n);
  std::vector<double> work(n);
  for (std::size_t i = 0; i < n; ++i) {
    computers[i] = {power(rng), 0.5, sd(rng)};
    work[i] = 100 * computers[i].max_power * 0.5;  // about 100 time units each
  }
  hetscale::SimulationOptions options;
  options.repetitions = 1000;
  options.threads = 2;
  options.sync_points = 4;
  for (auto _ : state) benchmark::DoNotOptimize(hetscale::simulate(computers, work, options));
  state.SetLabel("1000 repetitions, N_s = 4, intervals U[0,20], 2 threads");
}
BENCHMARK(BM_Simulate)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
