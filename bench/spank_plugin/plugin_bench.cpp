// The plugin's work per step and node with a 10,000-node site table: site table from
// the cache (as slurmstepd does on every step while the table is unchanged), weights of
// a 4-node step, and one task's environment. Budget: under 5 ms.
//   build/default/bin/bench_spank_plugin
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

#include "../../tests/spank_plugin/fake_slurm.hpp"
#include "hetscale/site/site_table_cache.hpp"
#include "plugin.hpp"

namespace hetscale::spank {
namespace {

namespace fs = std::filesystem;

SiteTable big_table(const fs::path& source) {
  SiteTable table;
  table.name = "big";
  table.source = source;
  table.groups = {{"g0", 10.0, {}}, {"g1", 20.0, {}}};
  for (int i = 0; i < 10000; ++i) {
    table.nodes.push_back({"node" + std::to_string(i),
                           i % 2 ? "g1" : "g0",
                           4,
                           10.0 + (i % 7) * 1.5,
                           NodeState::ok,
                           {}});
  }
  table.index();
  return table;
}

struct Files {
  fs::path dir = fs::temp_directory_path() / "hetscale_plugin_bench";
  fs::path site = dir / "site.toml";
  fs::path cache = dir / "cache";
  Files() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(site) << "# stand-in: the cache below holds the table\n";
  }
  ~Files() { fs::remove_all(dir); }
};

void BM_StepOnOneNode_10000NodeTable_CacheHit(benchmark::State& state) {
  Files files;
  int parses = 0;
  auto loader = [&](const fs::path& p) {
    ++parses;
    return big_table(p);
  };
  std::vector<std::string> args{"site=" + files.site.string(), "cache=" + files.cache.string()};
  {
    FakeSlurm warm;  // first step: parses and writes the cache
    Plugin plugin(loader);
    plugin.configure(args);
    plugin.on_option("marked");
    warm.step("node[0-3]", {"node0", "node1", "node2", "node3"}, "1(x4)");
    plugin.load_site(warm);
  }
  for (auto _ : state) {
    FakeSlurm slurm;
    Plugin plugin(loader);
    plugin.configure(args);
    plugin.on_option("marked");
    slurm.step("node[0-3]", {"node0", "node1", "node2", "node3"}, "1(x4)");
    slurm.on_node("node2");
    plugin.load_site(slurm);
    plugin.prepare_step(slurm);
    slurm.task("node2", 2);
    if (plugin.task_init(slurm) != 0) state.SkipWithError("task_init failed");
    benchmark::DoNotOptimize(slurm.env);
  }
  state.counters["parses"] = parses;  // 1: every iteration came from the cache
}
BENCHMARK(BM_StepOnOneNode_10000NodeTable_CacheHit)->Unit(benchmark::kMillisecond);

// The first step after the table changes: the full TOML parse (hetscale::load_site_table)
// of 10,000 single-name [[node]] entries, the worst case a site can write.
void BM_ParseSiteTable_10000Nodes_CacheMiss(benchmark::State& state) {
  Files files;
  {
    std::ofstream out(files.site);
    out << "[site]\nname = \"big\"\nspeed_unit = \"Mflops\"\nbenchmark = \"dgemm\"\n"
        << "[[group]]\nname = \"g0\"\nmarked_speed = 10.0\n";
    for (int i = 0; i < 10000; ++i) {
      out << "[[node]]\nname = \"node" << i << "\"\ngroup = \"g0\"\nprocessors = 4\n"
          << "marked_speed = " << 10.0 + (i % 7) * 1.5 << "\n";
    }
  }
  for (auto _ : state) benchmark::DoNotOptimize(load_site_table(files.site));
}
BENCHMARK(BM_ParseSiteTable_10000Nodes_CacheMiss)->Unit(benchmark::kMillisecond);

void BM_WeightsOnly_10000NodeStep(benchmark::State& state) {
  SiteTable table = big_table("site.toml");
  StepLayout layout;
  for (int i = 0; i < 10000; ++i) layout.nodes.push_back({"node" + std::to_string(i), 2, 1});
  for (auto _ : state) benchmark::DoNotOptimize(marked_weights(table, layout, OnMissing::fail));
}
BENCHMARK(BM_WeightsOnly_10000NodeStep)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hetscale::spank
