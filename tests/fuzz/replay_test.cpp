// Every seed and every regression input of every fuzz target, through the target's entry
// function: the normal build checks what the fuzzers checked, without libFuzzer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

#include "fuzz_targets.hpp"

namespace {

namespace fs = std::filesystem;

using Entry = int (*)(const std::uint8_t*, std::size_t);

struct Target {
  const char* name;
  Entry entry;
};

const Target targets[] = {
    {"experiment_spec", hetscale_fuzz_experiment_spec},
    {"hostlist", hetscale_fuzz_hostlist},
    {"jobcomp", hetscale_fuzz_jobcomp},
    {"node_record", hetscale_fuzz_node_record},
    {"partition", hetscale_fuzz_partition},
    {"run_record", hetscale_fuzz_run_record},
    {"sacct", hetscale_fuzz_sacct},
    {"scontrol_nodes", hetscale_fuzz_scontrol_nodes},
    {"scontrol_partition", hetscale_fuzz_scontrol_partition},
    {"site_table", hetscale_fuzz_site_table},
    {"round_plan", hetscale_fuzz_round_plan},
    {"workload", hetscale_fuzz_workload},
    {"task_times", hetscale_fuzz_task_times},
    {"topology", hetscale_fuzz_topology},
};

const fs::path fuzz_dir = HETSCALE_FUZZ_DIR;

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::uint8_t> bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class Replay : public ::testing::TestWithParam<Target> {};

TEST_P(Replay, SeedsAndRegressionsPass) {
  const Target& target = GetParam();
  const std::vector<fs::path> seeds = files_under(fuzz_dir / "corpus" / target.name);
  EXPECT_FALSE(seeds.empty()) << "no seed corpus in fuzz/corpus/" << target.name;
  std::vector<fs::path> files = seeds;
  for (const fs::path& file : files_under(fuzz_dir / "regressions" / target.name)) {
    files.push_back(file);
  }
  for (const fs::path& file : files) {
    const std::vector<std::uint8_t> data = bytes_of(file);
    try {
      EXPECT_EQ(target.entry(data.data(), data.size()), 0) << file;
    } catch (const std::exception& e) {
      ADD_FAILURE() << file << ": " << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, Replay, ::testing::ValuesIn(targets),
                         [](const ::testing::TestParamInfo<Target>& param) {
                           return std::string(param.param.name);
                         });

// A directory of fuzz/corpus or fuzz/regressions that no target replays would be skipped.
TEST(Replay, EveryCorpusDirectoryHasATarget) {
  std::set<std::string> names;
  for (const Target& target : targets) names.insert(target.name);
  for (const char* kind : {"corpus", "regressions"}) {
    if (!fs::is_directory(fuzz_dir / kind)) continue;
    for (const auto& entry : fs::directory_iterator(fuzz_dir / kind)) {
      EXPECT_TRUE(names.count(entry.path().filename().string()) == 1) << entry.path();
    }
  }
}

}  // namespace
