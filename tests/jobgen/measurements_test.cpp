#include "hetscale/jobgen/measurements.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace hetscale::jobgen {
namespace {

const std::string study_token = "0a1b2c3d";  // fixed: the same job names on every run

namespace fs = std::filesystem;

class Measurements : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hetscale-measurements-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    round_ = plan_round(load_experiment_spec(std::string(HETSCALE_SOURCE_DIR) + "/examples/experiments/mm.toml"),
                        load_site_table(std::string(HETSCALE_FIXTURES_DIR) + "/jobgen/site-example.toml"), study_token);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  Round round_;
};

TEST_F(Measurements, EfficiencyIsWorkOverTimeAndMarkedSpeed) {
  // W = 2e9 flop in 50 s on C = 100 Mflops: E_s = 2e9 / (50 * 1e8) = 0.4. The second
  // record has no marked speed: the plan's C of set 1 (200 Mflops) is used.
  std::ofstream(dir_ / "a.jsonl")
      << R"({"experiment":"mm-scaling","machine_set":0,"parameters":{"N":1000},"work":2e9,"wall_seconds":50,"marked_speed":100})"
      << "\n\n"
      << R"({"experiment":"mm-scaling","machine_set":1,"parameters":{"N":1000},"work":2e9,"wall_seconds":20})" << "\n"
      << R"({"experiment":"elsewhere","machine_set":9})" << "\n";
  std::ofstream(dir_ / "ignored.txt") << "not a record file";
  const auto m = read_measurements(dir_, round_);
  ASSERT_EQ(m.size(), 2U);
  ASSERT_EQ(m.at(0).size(), 1U);
  EXPECT_DOUBLE_EQ(m.at(0)[0].parameter, 1000);
  EXPECT_DOUBLE_EQ(m.at(0)[0].efficiency, 0.4);
  EXPECT_DOUBLE_EQ(m.at(1)[0].efficiency, 0.5);
}

TEST_F(Measurements, ABadLineNamesFileAndLine) {
  std::ofstream(dir_ / "b.jsonl")
      << R"({"experiment":"mm-scaling","machine_set":0,"parameters":{"N":1000},"work":2e9,"wall_seconds":50})" << "\n"
      << R"({"experiment":"mm-scaling","machine_set":0,"parameters":{"M":1000},"work":2e9,"wall_seconds":50})" << "\n";
  try {
    (void)read_measurements(dir_, round_);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "b.jsonl").string() + ":2: field 'parameters/N' must be a number");
  }
}

TEST_F(Measurements, ASetOutsideThePlanIsAnError) {
  std::ofstream(dir_ / "c.jsonl")
      << R"({"experiment":"mm-scaling","machine_set":5,"parameters":{"N":1000},"work":2e9,"wall_seconds":50})" << "\n";
  try {
    (void)read_measurements(dir_, round_);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "c.jsonl").string() + ":1: machine set 5 is not in the plan");
  }
}

}  // namespace
}  // namespace hetscale::jobgen
