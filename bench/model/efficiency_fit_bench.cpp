// Cost of fitting an E_s curve and reading a target off it (docs/fitting.md).
#include <benchmark/benchmark.h>

#include <vector>

#include "hetscale/model/efficiency_fit.hpp"

namespace {

std::vector<hetscale::EfficiencyPoint> sample(int distinct, int repeats) {
  std::vector<hetscale::EfficiencyPoint> points;
  double n = 100;
  for (int i = 0; i < distinct; ++i, n *= 1.5) {
    for (int r = 0; r < repeats; ++r) {
      // Alternating noise of +-2% so that the isotonic step has work to do.
      const double noise = (i + r) % 2 == 0 ? 1.02 : 0.98;
      points.push_back({n, noise * 0.6 * n / (n + 500)});
    }
  }
  return points;
}

void fit_and_read(benchmark::State& state) {
  const auto points = sample(static_cast<int>(state.range(0)), 3);
  for (auto _ : state) {
    const auto curve = hetscale::EfficiencyCurve::fit(points);
    benchmark::DoNotOptimize(curve.parameter_at(0.3));
  }
}
BENCHMARK(fit_and_read)->Arg(8)->Arg(64);

}  // namespace
