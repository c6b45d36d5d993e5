// Host-list expansion: a list of N single-host terms ("n1,n3,n5,...", what compression
// gives for names that share no range) must expand in time linear in N.
//   build/default/bin/bench_site --benchmark_filter=Hostlist
#include <benchmark/benchmark.h>

#include <string>

#include "hetscale/site/hostlist.hpp"

namespace {

void BM_Hostlist_ExpandSingleHostTerms(benchmark::State& state) {
  std::string list;
  for (long i = 0; i < state.range(0); ++i) list += (i ? ",n" : "n") + std::to_string(2 * i + 1);
  for (auto _ : state) benchmark::DoNotOptimize(hetscale::expand_hostlist(list));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Hostlist_ExpandSingleHostTerms)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Complexity(benchmark::oN)
    ->Unit(benchmark::kMillisecond);

}  // namespace
