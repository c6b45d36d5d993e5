#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

namespace fs = std::filesystem;

const std::string fixtures = std::string(HETSCALE_FIXTURES_DIR) + "/jobgen/";
const std::string site = fixtures + "site-example.toml";
const std::string examples = std::string(HETSCALE_SOURCE_DIR) + "/examples/experiments/";

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class Jobgen : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hetscale-cli-jobgen-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(Jobgen, WritesTheStudyAndSaysHowToSubmitIt) {
  const std::string dir = (root_ / "mm").string();
  const auto r = run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "-o", dir, "--kernel-dir",
                          "/opt/hetscale/bin"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + dir + ": 3 machine sets (2, 4, 8 nodes), 15 array tasks x 2 repetitions; submit with " +
                       dir + "/submit.sh\n");
  // The same scripts as the library's golden files, plus copies of the inputs.
  EXPECT_EQ(read(root_ / "mm" / "set1.sbatch"), read(fixtures + "golden/mm/set1.sbatch"));
  EXPECT_EQ(read(root_ / "mm" / "submit.sh"), read(fixtures + "golden/mm/submit.sh"));
  EXPECT_EQ(read(root_ / "mm" / "experiment.toml"), read(examples + "mm.toml"));
  EXPECT_EQ(read(root_ / "mm" / "site.toml"), read(site));
  const auto plan = nlohmann::json::parse(read(root_ / "mm" / "plan.json"));
  EXPECT_TRUE(std::regex_match(plan["created"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_EQ(plan["machine_sets"].size(), 3U);
}

TEST_F(Jobgen, ABadSpecWritesNothing) {
  const std::string spec = fixtures + "bad/target-above-one.toml";
  const auto r = run_cli({"jobgen", "--site", site, "--experiment", spec, "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale jobgen: " + spec +
                       ":3:21: 'target_efficiency' must be in (0, 1]: a speed-efficiency above 1 cannot be reached, "
                       "got 1.5\n");
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(Jobgen, ASetLargerThanTheSiteWritesNothing) {
  const std::string spec = fixtures + "bad/set-larger-than-site.toml";
  const auto r = run_cli({"jobgen", "--site", site, "--experiment", spec, "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale jobgen: " + spec + ":15:7: a set of up to 32 nodes is larger than the 16 eligible nodes of "
                       "the site 'example' (" + site + "); degraded nodes count only with include_degraded = true\n");
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(Jobgen, RefuseToOverwriteAStudy) {
  fs::create_directories(root_ / "out");
  std::ofstream(root_ / "out" / "jobs.txt") << "0 17 set0.sbatch\n";
  const auto r = run_cli({"jobgen", "--site", site, "--experiment", examples + "ge.toml", "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale jobgen: '" + (root_ / "out").string() +
                       "' exists and is not an empty directory; choose a new output directory\n");
  EXPECT_EQ(read(root_ / "out" / "jobs.txt"), "0 17 set0.sbatch\n");
}

TEST_F(Jobgen, UsageErrors) {
  auto r = run_cli({"jobgen", "--experiment", examples + "ge.toml", "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale jobgen: --site is required (the site table) (see --help)\n");
  r = run_cli({"jobgen", "--refine", "--experiment", "ge-chain", "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale jobgen: --refine needs --db URI (the database the runs were collected into) (see --help)\n");
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(Jobgen, RefineIsNotWiredToTheDatabaseYet) {
  const auto r = run_cli({"jobgen", "--refine", "--db", "postgresql:///hetscale", "--experiment", "ge-chain", "-o",
                          (root_ / "out").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale jobgen: --refine: reading the collected runs needs the collector's database layer, which "
                   "this build does not include yet\n");
}

}  // namespace
}  // namespace hetscale::cli::testing
