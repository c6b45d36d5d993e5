// `hetscale jobgen` asks the testbed's Slurm for the partition (one partition `testbed`
// of the 5 nodes n1-n5, scripts/cluster.sh): sets larger than it, or a partition Slurm
// does not have, are errors at the spec's keys, and nothing is written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/process.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

// Eight nodes in the site table, only five in the cluster.
constexpr const char* site_text = R"([site]
name = "paper"
speed_unit = "Mflops"
benchmark = "dgemm"

[[group]]
name = "g"
marked_speed = 100.0

[[node]]
name = "n[1-8]"
group = "g"
)";

std::string spec_text(int max, const std::string& partition) {
  return "[experiment]\nname = \"partition-check\"\ntarget_efficiency = 0.3\n\n[code]\nkernel = "
         "\"mm\"\n\n"
         "[parameter]\nvalues = [64, 128]\n\n[machine_sets]\nstart = 2\nmax = " +
         std::to_string(max) + "\n\n[slurm]\npartition = \"" + partition + "\"\n";
}

class PartitionCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hetscale-partition-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    std::ofstream(root_ / "site.toml") << site_text;
  }
  void TearDown() override { fs::remove_all(root_); }

  CommandResult jobgen(int max, const std::string& partition, std::vector<std::string> extra = {}) {
    std::ofstream(root_ / "spec.toml") << spec_text(max, partition);
    std::vector<std::string> argv{HETSCALE_EXECUTABLE,
                                  "jobgen",
                                  "--site",
                                  (root_ / "site.toml").string(),
                                  "--experiment",
                                  (root_ / "spec.toml").string(),
                                  "-o",
                                  (root_ / "out").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
  }

  fs::path root_;
};

TEST_F(PartitionCheck, ASetLargerThanThePartitionIsAnErrorAtTheMaxKey) {
  // Lines: 13 `max = 8` (column 7), 16 `partition = "testbed"` (column 13).
  const auto r = jobgen(8, "testbed");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(r.err, "hetscale jobgen: " + (root_ / "spec.toml").string() +
                       ":13:7: machine set 2 has 8 nodes, more "
                       "than the 5 nodes of partition 'testbed' (" +
                       (root_ / "spec.toml").string() + ":16:13)\n");
  EXPECT_FALSE(fs::exists(root_ / "out"));
}

TEST_F(PartitionCheck, SetsWithinThePartitionPassSilently) {
  const auto r = jobgen(4, "testbed");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.err, "");  // checked: no "not reachable" note
  EXPECT_TRUE(fs::exists(root_ / "out" / "set1.sbatch"));
}

TEST_F(PartitionCheck, APartitionSlurmDoesNotHave) {
  auto r = jobgen(4, "nosuch");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(r.err, "hetscale jobgen: " + (root_ / "spec.toml").string() +
                       ":16:13: partition 'nosuch' does not exist in this Slurm cluster\n");
  r = jobgen(4, "testbed", {"--partition", "other"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(
      r.err,
      "hetscale jobgen: partition 'other' does not exist in this Slurm cluster (see --help)\n");
  EXPECT_FALSE(fs::exists(root_ / "out"));
}

}  // namespace
}  // namespace hetscale::test
