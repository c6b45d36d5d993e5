// hetscale record step: the CLI over jobgen::record_step (options, exit status passed on);
// hetscale record hpcc: the CLI over jobgen::run_hpcc_task.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

namespace fs = std::filesystem;

class RecordStep : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hetscale-cli-record-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::setenv("HETSCALE_RECORD", (dir_ / "records.jsonl").c_str(), 1);
    ::setenv("HETSCALE_EXPERIMENT", "cli-record", 1);
  }
  void TearDown() override {
    ::unsetenv("HETSCALE_RECORD");
    ::unsetenv("HETSCALE_EXPERIMENT");
    fs::remove_all(dir_);
  }
  Result record(const std::string& param, const std::string& step) {
    return run_cli({"record", "step", "--code", "./solver", "--workload", "1000*N", "--param", param, "--weights",
                    "off", "--nodes", "n[1-2]", "--", "sh", "-c", step});
  }
  fs::path dir_;
};

TEST_F(RecordStep, AppendsTheStepsRecordAndPassesItsExitStatusOn) {
  const Result r = record("N=4", "exit 3");
  EXPECT_EQ(r.code, 3) << r.err;
  const std::string text = read_file(dir_ / "records.jsonl");
  EXPECT_NE(text.find("\"exit_status\":3"), std::string::npos) << text;
  EXPECT_NE(text.find("\"work\":4000"), std::string::npos) << text;
}

// A record that cannot be appended (a full file system, a quota) is said on stderr; the
// wrapper still exits with the step's own status, as the batch script's bare srun would.
TEST_F(RecordStep, AFullFileSystemCostsTheRecordButNeverTheStepsExitStatus) {
  ASSERT_EQ(::geteuid(), 0U) << "mounting the small file system needs root (the tests run as root, as scripts/test.sh does)";
  const fs::path full = dir_ / "full";
  fs::create_directories(full);
  ASSERT_EQ(::mount("hetscale-test", full.c_str(), "tmpfs", 0, "size=64k"), 0) << std::strerror(errno);
  struct Unmount {
    fs::path at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{full};
  {
    std::ofstream filler(full / "filler", std::ios::binary);
    const std::vector<char> block(4096, 'x');
    for (int i = 0; i < 64 && filler.write(block.data(), static_cast<std::streamsize>(block.size())); ++i) {
    }
  }
  ::setenv("HETSCALE_RECORD", (full / "records.jsonl").c_str(), 1);
  const Result r = record("N=4", "exit 3");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("hetscale record step: the run record was not written: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(full / "records.jsonl"), "");

  const Result ok = record("N=4", "true");
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.err.find("was not written"), std::string::npos) << ok.err;
}

// A value that is no finite number is bad usage, as in every other --param; the step never runs.
TEST_F(RecordStep, AParameterThatIsNoFiniteNumberIsRefusedBeforeTheStepRuns) {
  for (const std::string param : {"N=nan", "N=inf", "N=4x", "N", "=4"}) {
    const Result r = record(param, "touch '" + (dir_ / "ran").string() + "'");
    EXPECT_EQ(r.code, 2) << param << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("--param"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "ran"));
  EXPECT_FALSE(fs::exists(dir_ / "records.jsonl"));
}

// One task of a step as srun starts it (the Slurm variables set by hand), with a stand-in
// for hpcc that leaves the output recorded from Debian's hpcc behind (N = 400 on 2 ranks).
class RecordHpcc : public RecordStep {
 protected:
  void SetUp() override {
    RecordStep::SetUp();
    for (const auto& [name, value] : slurm_) ::setenv(name, value, 1);
  }
  void TearDown() override {
    for (const auto& [name, value] : slurm_) ::unsetenv(name);
    RecordStep::TearDown();
  }
  Result record_hpcc(const std::string& param) {
    const fs::path output = fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "hpcc" / "hpccoutf.txt";
    return run_cli({"record", "hpcc", "--workload", "2/3*N^3 + 3/2*N^2", "--param", param, "--dir", dir_.string(),
                    "--", "cp", output.string(), "hpccoutf.txt"});
  }
  static constexpr std::pair<const char*, const char*> slurm_[] = {
      {"SLURM_PROCID", "0"},    {"SLURM_NTASKS", "2"},           {"SLURM_JOB_ID", "7"},
      {"SLURM_STEP_ID", "0"},   {"SLURM_STEP_NODELIST", "n[1-2]"}, {"SLURM_STEP_TASKS_PER_NODE", "1(x2)"}};
};

TEST_F(RecordHpcc, RankZeroAppendsHplsRecord) {
  const Result r = record_hpcc("N=400");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("hetscale record hpcc: HPL_time "), std::string::npos) << r.out;
  const std::string text = read_file(dir_ / "records.jsonl");
  EXPECT_NE(text.find("\"timed_until\":\"hpl_time\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"timed_by\":\"program\""), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(dir_ / "hpcc-7.0" / "hpccinf.txt"));
}

// hpcc has run: a record that cannot be made costs the record, said on stderr, and the
// exit status is hpcc's.
TEST_F(RecordHpcc, AnotherSizeThanHplSolvedCostsTheRecordNotTheStatus) {
  const Result r = record_hpcc("N=500");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.err.find("hetscale record hpcc: the run record was not written: hpcc solved N = 400, not the step's "
                       "N = 500"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "records.jsonl"));
}

}  // namespace
}  // namespace hetscale::cli::testing
