// hetscale record step: the CLI over jobgen::record_step (options, exit status passed on).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

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

}  // namespace
}  // namespace hetscale::cli::testing
