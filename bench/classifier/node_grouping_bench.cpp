// `hetscale groups` at site scale: 10,000 generated node records (JSON Lines text) read,
// validated and grouped. Target: under 2 s. Run: build/default/bin/bench_classifier
// --benchmark_filter=NodeGrouping
#include <benchmark/benchmark.h>

#include <random>
#include <sstream>

#include "hetscale/classifier/node_grouping.hpp"

namespace hetscale {
namespace {

// Ten hardware types, two speed classes in some, 2% noise, 1% degraded, 0.5% excluded,
// 1% hosts classified twice.
std::string generated_records(int nodes) {
  std::mt19937 random(42);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::ostringstream out;
  for (int i = 0; i < nodes; ++i) {
    const int type = i % 10;
    NodeRecord r;
    r.host = "n" + std::to_string(i);
    r.time = "2026-11-21T06:00:00Z";
    r.hardware.cpu_vendor = "GenuineIntel";
    r.hardware.cpu_model = "Intel(R) Xeon(R) Model " + std::to_string(type % 5);
    r.hardware.packages = 2;
    r.hardware.cores = 16 * (1 + type);
    r.hardware.pus = 2 * r.hardware.cores;
    r.hardware.numa_nodes = 2;
    r.hardware.caches = {
        {1, 32768, r.hardware.cores}, {2, 1048576, r.hardware.cores}, {3, 33554432, 2}};
    r.hardware.memory_bytes = (std::uint64_t{192} << 30) - 3'000'000'000ULL;
    r.fingerprint = hardware_fingerprint(r.hardware);
    r.topology_source = "live";
    r.benchmark = "dgemm";
    r.benchmark_size = 1024;
    r.speed_unit = "Mflops";
    const double base = 1000.0 * (1 + type) * (type % 3 == 0 && i % 20 < 10 ? 0.5 : 1.0);
    r.marked_speed = base * noise(random) * (uniform(random) < 0.01 ? 0.8 : 1.0);
    r.processors = r.hardware.pus;
    r.repetitions = 5;
    r.cv = 0.01;
    r.duration_seconds = 2;
    if (uniform(random) < 0.005) {
      r.state = NodeState::excluded;
      r.reason = "benchmark dgemm failed: out of memory";
    }
    out << to_json(r).dump() << '\n';
    if (uniform(random) < 0.01) {  // classified again later
      r.time = "2026-11-22T06:00:00Z";
      out << to_json(r).dump() << '\n';
    }
  }
  return out.str();
}

void BM_NodeGrouping_ReadGroupWrite(benchmark::State& state) {
  const std::string text = generated_records(static_cast<int>(state.range(0)));
  std::size_t groups = 0;
  for (auto _ : state) {
    std::istringstream in(text);
    NodeRecordBatch batch;
    read_node_records(in, "generated.jsonl", batch);
    const GroupingResult result = group_nodes(batch.records, {});
    const std::string site_toml = format_site_table(result.table);
    groups = result.groups.size();
    benchmark::DoNotOptimize(site_toml.data());
  }
  state.counters["nodes"] = static_cast<double>(state.range(0));
  state.counters["groups"] = static_cast<double>(groups);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_NodeGrouping_ReadGroupWrite)->Arg(10000)->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace
}  // namespace hetscale
