// Loading a 10,000-node site table (target: well under 50 ms), written two ways: one
// [[node]] entry per node, and a few host-list expressions covering the same nodes.
// Run: build/default/bin/bench_site --benchmark_filter=SiteTable
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/site_table.hpp"

namespace {

constexpr int node_count = 10'000;

std::string header() {
  return "[site]\nname = \"bench\"\nspeed_unit = \"Mflops\"\nbenchmark = \"dgemm\"\n\n"
         "[[group]]\nname = \"blade\"\nmarked_speed = 20.29\n\n"
         "[[group]]\nname = \"fat\"\nmarked_speed = 45.3\n";
}

// 10,000 entries "n00001" ... "n10000", every fourth in the other group with its own speed.
std::string single_name_table() {
  std::string text = header();
  for (int i = 1; i <= node_count; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "n%05d", i);
    text += "\n[[node]]\nname = \"";
    text += name;
    text += (i % 4 == 0) ? "\"\ngroup = \"fat\"\nprocessors = 4\nmarked_speed = 44.1\n"
                         : "\"\ngroup = \"blade\"\nprocessors = 1\nstate = \"ok\"\n";
  }
  return text;
}

// The same 10,000 nodes in four expressions.
std::string host_list_table() {
  return header() +
         "\n[[node]]\nname = \"n[00001-04000]\"\ngroup = \"blade\"\n"
         "\n[[node]]\nname = \"n[04001-06000,06002-08000]\"\ngroup = \"blade\"\nstate = "
         "\"degraded\"\n"
         "\n[[node]]\nname = \"n06001,n[08001-09000]\"\ngroup = \"fat\"\nprocessors = 4\n"
         "\n[[node]]\nname = \"rack[1-10]-n[001-100]\"\ngroup = \"fat\"\nprocessors = 2\n";
}

// Writes the text to a temporary file so that the figure includes reading the file.
std::filesystem::path write_temp(const std::string& text, const char* tag) {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("hetscale-bench-" + std::to_string(::getpid()) + "-" + tag + ".toml");
  std::ofstream(path) << text;
  return path;
}

void run_load(benchmark::State& state, const std::string& text, const char* tag) {
  std::filesystem::path path = write_temp(text, tag);
  std::size_t nodes = 0;
  for (auto _ : state) {
    hetscale::SiteTable table = hetscale::load_site_table(path);
    nodes = table.nodes.size();
    benchmark::DoNotOptimize(table);
  }
  std::filesystem::remove(path);
  if (nodes != node_count) state.SkipWithError("wrong node count");
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["bytes"] = static_cast<double>(text.size());
}

void BM_SiteTableLoadSingleNames(benchmark::State& state) {
  run_load(state, single_name_table(), "single");
}

void BM_SiteTableLoadHostLists(benchmark::State& state) {
  run_load(state, host_list_table(), "hostlists");
}

void BM_SiteTableFormat(benchmark::State& state) {
  hetscale::SiteTable table = hetscale::parse_site_table(single_name_table(), "bench.toml");
  for (auto _ : state) benchmark::DoNotOptimize(hetscale::format_site_table(table));
}

void BM_HostlistExpand10k(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(hetscale::expand_hostlist("n[00001-10000]"));
}

}  // namespace

BENCHMARK(BM_SiteTableLoadSingleNames)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SiteTableLoadHostLists)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SiteTableFormat)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostlistExpand10k)->Unit(benchmark::kMillisecond);
