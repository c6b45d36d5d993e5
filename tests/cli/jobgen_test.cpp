#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "round_records.hpp"

namespace hetscale::cli::testing {
namespace {

namespace fs = std::filesystem;

const std::string fixtures = std::string(HETSCALE_FIXTURES_DIR) + "/jobgen/";
const std::string site = fixtures + "site-example.toml";
const std::string examples = std::string(HETSCALE_SOURCE_DIR) + "/examples/experiments/";

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The study token of the round written into `dir` (its plan's).
std::string study_token_of(const fs::path& dir) {
  return nlohmann::json::parse(read(dir / "plan.json")).at("study_token").get<std::string>();
}

// `text` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The example specs name partition "batch": the tests must not ask a Slurm that a
// developer's shell may point to (SLURM_CONF of a running testbed), so no Slurm is
// reachable here and the partition check is always skipped, with its note.
class Jobgen : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_ = fs::temp_directory_path() / ("hetscale-cli-jobgen-" + std::to_string(::getpid()));
  test::NoSlurm no_slurm_{root_ / "no-slurm.conf"};
};

TEST_F(Jobgen, WritesTheStudyAndSaysHowToSubmitIt) {
  const std::string dir = (root_ / "mm").string();
  const auto r = run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "-o", dir, "--kernel-dir",
                          "/opt/hetscale/bin"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + dir + ": 3 machine sets (2, 4, 8 nodes), 15 array tasks x 2 repetitions; submit with " +
                       dir + "/submit.sh\n");
  // The same scripts as the library's golden files (whose study token is fixed), plus copies
  // of the inputs.
  const std::string token = study_token_of(root_ / "mm");
  EXPECT_EQ(replaced(read(root_ / "mm" / "set1.sbatch"), token, "0a1b2c3d"), read(fixtures + "golden/mm/set1.sbatch"));
  EXPECT_EQ(read(root_ / "mm" / "submit.sh"), read(fixtures + "golden/mm/submit.sh"));
  EXPECT_EQ(read(root_ / "mm" / "experiment.toml"), read(examples + "mm.toml"));
  EXPECT_EQ(read(root_ / "mm" / "site.toml"), read(site));
  const auto plan = nlohmann::json::parse(read(root_ / "mm" / "plan.json"));
  // "2026-11-21T07:00:00Z": digits where the pattern has 'd'.
  const std::string created = plan["created"];
  const std::string pattern = "dddd-dd-ddTdd:dd:ddZ";
  ASSERT_EQ(created.size(), pattern.size()) << created;
  for (std::size_t i = 0; i < pattern.size(); ++i)
    EXPECT_TRUE(pattern[i] == 'd' ? std::isdigit(static_cast<unsigned char>(created[i])) != 0 : created[i] == pattern[i])
        << created;
  EXPECT_EQ(plan["machine_sets"].size(), 3U);
}

// Two studies of one experiment, in two directories: each with a token of its own, in every
// job name of its rounds, so that one's status and resubmission never see the other's jobs.
TEST_F(Jobgen, TwoStudiesOfOneExperimentHaveJobNamesOfTheirOwn) {
  std::vector<std::string> tokens;
  for (const char* name : {"a", "b"}) {
    const fs::path dir = root_ / name;
    ASSERT_EQ(run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "-o", dir.string()}).code, 0);
    const std::string token = study_token_of(dir);
    EXPECT_THAT(token, ::testing::MatchesRegex("[0-9a-f]{8}"));
    EXPECT_NE(read(dir / "set0.sbatch").find("\n#SBATCH --job-name=mm-scaling-" + token + "-set0\n"), std::string::npos)
        << read(dir / "set0.sbatch");
    // Its next round keeps it: the study's token, not the new directory's.
    test::write_mm_records(dir / "records" / "set0-10_0.jsonl", 0, 100, {400, 566, 800, 1131, 1600});
    const fs::path next = root_ / (std::string(name) + "-round1");
    ASSERT_EQ(run_cli({"jobgen", "--refine", "--experiment", "mm-scaling", "--from", dir.string(), "-o", next.string()})
                  .code,
              0);
    EXPECT_EQ(study_token_of(next), token);
    EXPECT_NE(read(next / "set0.sbatch").find("\n#SBATCH --job-name=mm-scaling-" + token + "-r1-set0\n"),
              std::string::npos)
        << read(next / "set0.sbatch");
    tokens.push_back(token);
  }
  EXPECT_NE(tokens[0], tokens[1]);
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

// record = "program" with a program the job will not find: a warning, and the round is written.
TEST_F(Jobgen, WarnsWhenTheProgramMayWriteNoRecord) {
  const fs::path spec = root_ / "heat.toml";
  std::ofstream(spec) << replaced(replaced(read(examples + "heat.toml"), "$HOME/bin/heat", "./heat"),
                                  "workload = \"500*M^2\"\n", "workload = \"500*M^2\"\nrecord = \"program\"\n");
  const fs::path dir = root_ / "heat";
  const auto r = run_cli({"jobgen", "--site", site, "--experiment", spec.string(), "-o", dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = split_lines(r.err);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "hetscale jobgen: " + spec.string() + ":10:10: warning: [code] record = \"program\" but the "
                      "command's program './heat' does not exist (" + (dir / "heat").string() + ": a relative path "
                      "starts in the study directory, where the job runs), so it is not checked for a sign of writing "
                      "a run record; if it writes none, its tasks would run and record nothing: set [code] record = "
                      "\"step\" to have each step timed from outside");
  EXPECT_TRUE(fs::exists(dir / "set0.sbatch"));
}

TEST_F(Jobgen, RefuseToOverwriteAStudy) {
  fs::create_directories(root_ / "out");
  std::ofstream(root_ / "out" / "jobs.txt") << "0 17 set0.sbatch\n";
  const auto r = run_cli({"jobgen", "--site", site, "--experiment", examples + "ge.toml", "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 1);
  // After the note that Slurm could not be asked about the partition.
  const auto lines = split_lines(r.err);
  ASSERT_EQ(lines.size(), 2U) << r.err;
  EXPECT_TRUE(lines[0].starts_with("hetscale jobgen: note: Slurm not reachable")) << r.err;
  EXPECT_EQ(lines[1], "hetscale jobgen: '" + (root_ / "out").string() +
                          "' exists and is not an empty directory; choose a new output directory");
  EXPECT_EQ(read(root_ / "out" / "jobs.txt"), "0 17 set0.sbatch\n");
}

TEST_F(Jobgen, UsageErrors) {
  auto r = run_cli({"jobgen", "--experiment", examples + "ge.toml", "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith("hetscale jobgen: no site table: give --site or set `site` in "));
  // A round needs the database or the study directories.
  r = run_cli({"jobgen", "--refine", "--experiment", "ge-chain", "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale jobgen: --refine needs a database (--db URI, HETSCALE_DB or the config file's `database`: the "
            "runs, spec and plans collected into it) or --from DIR... (the first study and every round since, with "
            "their records) (see --help)\n");
  // A round runs on the sets measured before: their members are not swapped.
  r = run_cli({"jobgen", "--refine", "--experiment", "ge-chain", "--from", (root_ / "x").string(), "--replace-unavailable",
               "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale jobgen: --replace-unavailable is for a new study; a round runs on the sets measured "
                   "before (see --help)\n");
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(Jobgen, RefinesFromTheRecordsOfAStudy) {
  const fs::path first = root_ / "mm";
  ASSERT_EQ(run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "-o", first.string(),
                     "--kernel-dir", "/opt/hetscale/bin"}).code, 0);
  test::write_mm_records(first / "records" / "set0-10_0.jsonl", 0, 100, {400, 566, 800, 1131, 1600});
  test::write_mm_records(first / "records" / "set1-11_0.jsonl", 1, 200, {800, 1000, 1200});
  // Another experiment's records in the same folder are not this study's.
  std::ofstream(first / "records" / "other.jsonl") << R"({"experiment": "other", "machine_set": 7})" << '\n';
  const fs::path next = root_ / "round1";
  const auto r = run_cli({"jobgen", "--refine", "--experiment", "mm-scaling", "--from", first.string(), "-o",
                          next.string(), "--kernel-dir", "/opt/hetscale/bin"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = split_lines(r.out);
  ASSERT_EQ(lines.size(), 4U) << r.out;
  EXPECT_TRUE(lines[0].starts_with("set 0: the fitted curve reaches 0.3 at ")) << lines[0];
  EXPECT_EQ(lines[1], "set 1: E_s = 0.3 at 1000 is within 2% of the target 0.3");
  EXPECT_EQ(lines[2], "set 2: no runs collected");
  EXPECT_EQ(lines[3], "wrote " + next.string() + ": 1 machine set (2 nodes), 5 array tasks x 2 repetitions; "
                      "submit with " + next.string() + "/submit.sh");
  EXPECT_TRUE(fs::exists(next / "set0.sbatch"));
  EXPECT_FALSE(fs::exists(next / "set1.sbatch"));
  // The round's time limit comes from the run nearest in work to its largest size (~1040).
  EXPECT_NE(read(next / "set0.sbatch").find("\n#   measured "), std::string::npos) << read(next / "set0.sbatch");
  EXPECT_NE(read(next / "set0.sbatch").find(" s at N=1131 (the run nearest in work), x W("), std::string::npos);
  EXPECT_EQ(read(next / "submit.sh").find("submit 1 "), std::string::npos);
  const auto plan = nlohmann::json::parse(read(next / "plan.json"));
  const auto sizes = plan["machine_sets"][0]["parameter_values"].get<std::vector<double>>();
  ASSERT_EQ(sizes.size(), 5U);
  EXPECT_NEAR(sizes[2], 1000, 30);  // the estimate, within 3%
  EXPECT_NEAR(sizes[0] / sizes[2], 0.96, 0.002);
  EXPECT_TRUE(plan["machine_sets"][1]["parameter_values"].empty());
  // The round's plan carries what the next round needs: its number, the spec and [refine].
  EXPECT_EQ(plan["round"], 1);
  EXPECT_EQ(plan["experiment"]["spec"]["path"], (first / "experiment.toml").string());
  EXPECT_EQ(plan["experiment"]["spec"]["text"], read(examples + "mm.toml"));
  EXPECT_EQ(plan["experiment"]["refine"],
            nlohmann::json::parse(R"({"steps": [0.02, 0.04], "tolerance": 0.02, "max_rounds": 3})"));
  EXPECT_EQ(nlohmann::json::parse(read(first / "plan.json"))["round"], 0);
}

TEST_F(Jobgen, RefineChecksTheExperimentName) {
  const fs::path first = root_ / "mm";
  ASSERT_EQ(run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "-o", first.string()}).code, 0);
  const auto r = run_cli({"jobgen", "--refine", "--experiment", "ge-chain", "--from", first.string(), "-o",
                          (root_ / "next").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale jobgen: " + first.string() + " holds experiment 'mm-scaling', not 'ge-chain' (see --help)\n");
  EXPECT_FALSE(fs::exists(root_ / "next"));
}

// Without a reachable Slurm the partition check is skipped, and stderr says so.
TEST_F(Jobgen, SaysWhenThePartitionCouldNotBeChecked) {
  const auto r =
      run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "-o", (root_ / "mm").string()});
  const auto named = run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "--partition", "short",
                              "-o", (root_ / "short").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "hetscale jobgen: note: Slurm not reachable (SLURM_CONF names no file: " +
                       (root_ / "no-slurm.conf").string() +
                       "); machine sets not checked against its node states and partition 'batch', scripts not tested with sbatch --test-only\n");
  EXPECT_TRUE(r.err.ends_with("); machine sets not checked against its node states and partition 'batch', scripts not tested with sbatch --test-only\n")) << r.err;
  ASSERT_EQ(named.code, 0) << named.err;
  EXPECT_TRUE(named.err.ends_with("); machine sets not checked against its node states and partition 'short', scripts not tested with sbatch --test-only\n")) << named.err;
  EXPECT_NE(read(root_ / "short" / "set0.sbatch").find("#SBATCH --partition=short\n"), std::string::npos);
}

TEST_F(Jobgen, PartitionUsageErrors) {
  auto r = run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "--partition", "a b", "-o",
                    (root_ / "out").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale jobgen: --partition may hold only letters, digits and ._- (got 'a b') (see --help)\n");
  r = run_cli({"jobgen", "--refine", "--experiment", "mm-scaling", "--from", (root_ / "x").string(), "--partition",
               "short", "-o", (root_ / "out").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale jobgen: --partition is for a new study; rounds submit to the spec's [slurm] "
                   "partition (see --help)\n");
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(Jobgen, RefineFromAnUnreachableDatabaseWritesNothing) {
  const fs::path first = root_ / "mm";
  ASSERT_EQ(run_cli({"jobgen", "--site", site, "--experiment", examples + "mm.toml", "-o", first.string()}).code, 0);
  // Port 1 on the loopback: nothing listens, the connection is refused at once.
  const auto r = run_cli({"jobgen", "--refine", "--db", "postgresql://127.0.0.1:1/none?connect_timeout=2",
                          "--experiment", "mm-scaling", "--from", first.string(), "-o", (root_ / "next").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("127.0.0.1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(root_ / "next"));
}

TEST_F(Jobgen, RefineFromAnUnreachableDatabaseAloneWritesNothing) {
  const auto r = run_cli({"jobgen", "--refine", "--db", "postgresql://127.0.0.1:1/none?connect_timeout=2",
                          "--experiment", "mm-scaling", "-o", (root_ / "next").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("127.0.0.1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(root_ / "next"));
}

}  // namespace
}  // namespace hetscale::cli::testing
