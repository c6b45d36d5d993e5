// HPL through hpcc: the process grid, the input file, HPL's figures read from an output
// recorded from Debian's hpcc 1.5.0 (tests/fixtures/jobgen/hpcc/: hpccinf.txt as
// `hetscale record hpcc --param N=400` wrote it for 2 ranks, hpccoutf.txt as hpcc wrote it
// under `mpirun -np 2`), and tasks run with a stand-in for hpcc that leaves that output behind.
#include "hetscale/jobgen/hpcc_step.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/model/workload.hpp"
#include "hetscale/site/run_record_reader.hpp"

namespace hetscale::jobgen {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const fs::path fixtures = fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "hpcc";
constexpr const char* hpl_workload = "2/3*N^3 + 3/2*N^2";

std::string recorded_output() { return read_text_file(fixtures / "hpccoutf.txt", "fixture"); }

// The input file the fixture was recorded with, as hetscale wrote it.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(HpccGrid, SquareAsTheDivisorsAllow) {
  using Grid = std::pair<std::size_t, std::size_t>;
  auto grid = [](std::size_t ranks) {
    const HpccGrid g = hpcc_process_grid(ranks);
    return Grid{g.p, g.q};
  };
  EXPECT_EQ(grid(1), (Grid{1, 1}));
  EXPECT_EQ(grid(2), (Grid{1, 2}));
  EXPECT_EQ(grid(4), (Grid{2, 2}));
  EXPECT_EQ(grid(6), (Grid{2, 3}));
  EXPECT_EQ(grid(7), (Grid{1, 7}));
  EXPECT_EQ(grid(12), (Grid{3, 4}));
  EXPECT_THROW((void)hpcc_process_grid(0), Error);
}

TEST(HpccInput, SizeBlockAndGridOnHplsLines) {
  const auto lines = lines_of(hpcc_input_text(1234, 64, {2, 3}));
  ASSERT_EQ(lines.size(), 36U);
  EXPECT_THAT(lines[5], ::testing::StartsWith("1234 "));  // line 6: Ns
  EXPECT_THAT(lines[7], ::testing::StartsWith("64 "));    // line 8: NBs
  EXPECT_THAT(lines[10], ::testing::StartsWith("2 "));    // line 11: Ps
  EXPECT_THAT(lines[11], ::testing::StartsWith("3 "));    // line 12: Qs
  EXPECT_THAT(lines[31], HasSubstr("line (no. 32) is ignored"));
  EXPECT_THROW((void)hpcc_input_text(0, 64, {1, 1}), Error);
  EXPECT_THROW((void)hpcc_input_text(100, 0, {1, 1}), Error);
}

TEST(HpccOutput, HplsFiguresFromTheRecordedOutput) {
  const HpccResult r = read_hpcc_output(recorded_output(), "hpccoutf.txt");
  EXPECT_EQ(r.n, 400);
  EXPECT_EQ(r.nb, 80);
  EXPECT_EQ(r.p, 1U);
  EXPECT_EQ(r.q, 2U);
  EXPECT_TRUE(r.passed);
  EXPECT_GT(r.hpl_seconds, 0);
  // The workload formula is HPL's own count: W / HPL_time is the rate hpcc prints (to the
  // 6 digits it prints HPL_time and HPL_Tflops with).
  const double work = Workload::parse(hpl_workload).evaluate({{"N", 400}});
  EXPECT_NEAR(work / r.hpl_seconds / 1e12, r.hpl_tflops, 2e-5 * r.hpl_tflops);
}

TEST(HpccOutput, AnUnfinishedRunHasNoSummary) {
  const std::string text = recorded_output();
  const std::string cut = text.substr(0, text.find("Begin of Summary section."));
  try {
    (void)read_hpcc_output(cut, "step/hpccoutf.txt");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "step/hpccoutf.txt: no summary section: hpcc did not finish");
  }
  // Without its HPL section the residual check is not known to have passed.
  std::string no_hpl = text;
  no_hpl.erase(no_hpl.find("Begin of HPL section."), std::string("Begin of HPL section.").size());
  EXPECT_FALSE(read_hpcc_output(no_hpl, "x").passed);
}

class HpccTask : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-hpcc-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    vars_ = {{"SLURM_PROCID", "0"},
             {"SLURM_NTASKS", "2"},
             {"SLURM_JOB_ID", "41"},
             {"SLURM_STEP_ID", "3"},
             {"SLURM_STEP_NODELIST", "n[4-5]"},
             {"SLURM_STEP_TASKS_PER_NODE", "1(x2)"},
             {"HETSCALE_RECORD", (dir_ / "set0.jsonl").string()},
             {"HETSCALE_EXPERIMENT", "hpl"},
             {"HETSCALE_MACHINE_SET", "0"},
             {"HETSCALE_SYSTEM_SPEED", "1.5"}};
  }
  void TearDown() override { fs::remove_all(dir_); }

  // hpcc's stand-in: leaves the recorded output in the directory it runs in.
  HpccStep step(double n = 400) const {
    HpccStep s;
    s.workload = hpl_workload;
    s.parameter = "N";
    s.parameter_value = n;
    s.base = dir_;
    s.hpcc = {"cp", (fixtures / "hpccoutf.txt").string(), "hpccoutf.txt"};
    return s;
  }
  GetEnv getenv() const {
    return [this](const char* name) -> const char* {
      const auto it = vars_.find(name);
      return it == vars_.end() ? nullptr : it->second.c_str();
    };
  }

  fs::path dir_;
  std::map<std::string, std::string> vars_;
};

TEST_F(HpccTask, RankZeroRecordsHplsOwnTime) {
  const HpccTaskResult result = run_hpcc_task(step(), getenv());
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_TRUE(result.record_written);
  EXPECT_EQ(result.directory, dir_ / "hpcc-41.3");
  const auto input = lines_of(read_text_file(result.directory / "hpccinf.txt", "input"));
  EXPECT_THAT(input[5], ::testing::StartsWith("400 "));
  EXPECT_THAT(input[10], ::testing::StartsWith("1 "));
  EXPECT_THAT(input[11], ::testing::StartsWith("2 "));

  const auto file = read_run_records(dir_ / "set0.jsonl", OnInvalid::fail);
  ASSERT_EQ(file.records.size(), 1U);
  const RunRecord& r = file.records[0].record;
  const HpccResult hpl = read_hpcc_output(recorded_output(), "fixture");
  EXPECT_EQ(r.timed_by, "program");
  EXPECT_FALSE(r.exit_status.has_value());
  EXPECT_EQ(r.code, "hpcc");
  EXPECT_EQ(r.workload, hpl_workload);
  EXPECT_EQ(r.parameters.at("N"), 400);
  EXPECT_DOUBLE_EQ(r.work, Workload::parse(hpl_workload).evaluate({{"N", 400}}));
  EXPECT_DOUBLE_EQ(r.wall_seconds, hpl.hpl_seconds);
  EXPECT_DOUBLE_EQ(r.marked_speed, 1.5);
  EXPECT_EQ(r.weights_source, "equal");
  EXPECT_TRUE(r.verified);
  ASSERT_EQ(r.ranks.size(), 2U);
  EXPECT_EQ(r.ranks[0].host, "n4");
  EXPECT_EQ(r.ranks[1].host, "n5");
  EXPECT_DOUBLE_EQ(r.ranks[1].weight, 0.5);
  EXPECT_EQ(r.slurm.node_list, "n[4-5]");
  EXPECT_EQ(r.slurm.step_id, 3U);
  EXPECT_EQ(r.experiment, "hpl");
  EXPECT_EQ(r.machine_set, 0);
}

TEST_F(HpccTask, OtherRanksRecordNothing) {
  vars_["SLURM_PROCID"] = "1";
  const HpccTaskResult result = run_hpcc_task(step(), getenv());
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_FALSE(result.record_written);
  EXPECT_FALSE(fs::exists(dir_ / "set0.jsonl"));
  EXPECT_TRUE(fs::exists(result.directory / "hpccinf.txt"));
}

TEST_F(HpccTask, AFailedHpccRecordsNothing) {
  HpccStep s = step();
  s.hpcc = {"sh", "-c", "exit 3"};
  const HpccTaskResult result = run_hpcc_task(s, getenv());
  EXPECT_EQ(result.exit_status, 3);
  EXPECT_FALSE(result.record_written);
  EXPECT_FALSE(fs::exists(dir_ / "set0.jsonl"));
}

// hpcc has run: a record that cannot be made (HPL solved another N than the step's) or
// written (the record file's directory is gone) costs the record, never hpcc's status.
TEST_F(HpccTask, ARecordThatCannotBeMadeOrWrittenKeepsHpccsStatus) {
  const HpccTaskResult other_size = run_hpcc_task(step(500), getenv());
  EXPECT_EQ(other_size.exit_status, 0);
  EXPECT_FALSE(other_size.record_written);
  EXPECT_EQ(other_size.not_written_because, "hpcc solved N = 400, not the step's N = 500");
  EXPECT_FALSE(fs::exists(dir_ / "set0.jsonl"));

  vars_["HETSCALE_RECORD"] = (dir_ / "gone" / "set0.jsonl").string();
  const HpccTaskResult unwritable = run_hpcc_task(step(), getenv());
  EXPECT_EQ(unwritable.exit_status, 0);
  EXPECT_FALSE(unwritable.record_written);
  ASSERT_TRUE(unwritable.not_written_because.has_value());
  EXPECT_NE(unwritable.not_written_because->find("gone"), std::string::npos) << *unwritable.not_written_because;
}

TEST_F(HpccTask, OutsideASlurmStepIsRefused) {
  vars_.erase("SLURM_PROCID");
  EXPECT_THROW((void)run_hpcc_task(step(), getenv()), Error);
}

TEST(StepRankHosts, BlocksOfTheStepsTasksPerNode) {
  const std::map<std::string, std::string> vars = {{"SLURM_STEP_NODELIST", "n[1-3]"},
                                                   {"SLURM_STEP_TASKS_PER_NODE", "2(x2),1"}};
  const auto hosts = step_rank_hosts([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
  EXPECT_THAT(hosts, ElementsAre("n1", "n1", "n2", "n2", "n3"));
}

}  // namespace
}  // namespace hetscale::jobgen
