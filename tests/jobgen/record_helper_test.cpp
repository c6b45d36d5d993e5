#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hetscale/site/run_record.hpp"
#include "hetscale_record.hpp"
#include "hetscale_record_shim.h"

extern "C" int write_record_from_c(void);
extern "C" int write_record_with_rank_figure_from_c(double figure);

namespace {

namespace fs = std::filesystem;

class RecordHelper : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = fs::temp_directory_path() / ("hetscale-record-helper-" + std::to_string(::getpid()) + ".jsonl");
    fs::remove(file_);
    ::setenv("HETSCALE_RECORD", file_.c_str(), 1);
    ::setenv("HETSCALE_EXPERIMENT", "heat-solver", 1);
    ::setenv("HETSCALE_MACHINE_SET", "1", 1);
    ::setenv("HETSCALE_REPETITION", "2", 1);
    ::setenv("HETSCALE_SYSTEM_SPEED", "40", 1);
    ::setenv("HETSCALE_WEIGHTS_SOURCE", "marked", 1);
    ::setenv("SLURM_JOB_ID", "17", 1);
    ::setenv("SLURM_ARRAY_JOB_ID", "15", 1);
    ::setenv("SLURM_ARRAY_TASK_ID", "2", 1);
    ::unsetenv("SLURM_STEP_ID");
    ::setenv("SLURM_STEP_NODELIST", "n[1-2]", 1);
  }
  void TearDown() override {
    fs::remove(file_);
    for (const char* name : {"HETSCALE_RECORD", "HETSCALE_EXPERIMENT", "HETSCALE_MACHINE_SET", "HETSCALE_REPETITION",
                             "HETSCALE_SYSTEM_SPEED", "HETSCALE_WEIGHTS_SOURCE", "HETSCALE_WEIGHT", "SLURM_JOB_ID",
                             "HETSCALE_WEIGHTS_DIGEST",
                             "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_STEP_ID", "SLURM_STEP_NODELIST"})
      ::unsetenv(name);
  }
  [[nodiscard]] std::vector<nlohmann::json> lines() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(file_);
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  fs::path file_;
};

TEST_F(RecordHelper, CWritesOneContractLine) {
  ASSERT_EQ(write_record_from_c(), 0);
  const auto records = lines();
  ASSERT_EQ(records.size(), 1U);
  const auto& r = records[0];
  EXPECT_EQ(r["schema"], 1);
  EXPECT_EQ(r["experiment"], "heat-solver");
  EXPECT_EQ(r["code"], "heat");
  EXPECT_EQ(r["workload"], "500*M^2");
  EXPECT_EQ(r["parameters"], nlohmann::json({{"M", 1000.0}}));
  EXPECT_EQ(r["work"], 5e8);
  EXPECT_EQ(r["wall_seconds"], 2.5);
  EXPECT_EQ(r["marked_speed"], 40.0);
  EXPECT_EQ(r["weights_source"], "marked");
  ASSERT_EQ(r["ranks"].size(), 2U);
  EXPECT_EQ(r["ranks"][1]["host"], "n\"2");
  EXPECT_EQ(r["ranks"][0]["weight"], 0.75);
  EXPECT_EQ(r["ranks"][1]["communication_seconds"], 0.5);
  EXPECT_EQ(r["slurm"], nlohmann::json({{"job_id", 17}, {"array_job_id", 15}, {"array_task_id", 2},
                                        {"step_id", nullptr}, {"node_list", "n[1-2]"}}));
  EXPECT_EQ(r["machine_set"], 1);
  EXPECT_EQ(r["repetition"], 2);
  EXPECT_EQ(r["start_time"], "2026-11-21T06:10:00Z");
  EXPECT_FALSE(r.contains("end_time"));
  EXPECT_EQ(r["verified"], true);
  EXPECT_FALSE(r.contains("weights_digest"));  // no plugin digest in the environment
}

// A numbered step's id is kept; the batch step's (Slurm 26.05: -5), the other steps
// without a number and anything not a number are null.
TEST_F(RecordHelper, StepIdOnlyOfANumberedStep) {
  const char* values[] = {"3", "4294967280", "-5", "4294967291", "batch", "+3", " 3", "18446744073709551616"};
  for (const char* value : values) {
    ::setenv("SLURM_STEP_ID", value, 1);
    ASSERT_EQ(write_record_from_c(), 0);
  }
  ::setenv("SLURM_JOB_ID", "-17", 1);
  ASSERT_EQ(write_record_from_c(), 0);
  const auto records = lines();
  ASSERT_EQ(records.size(), std::size(values) + 1);
  EXPECT_EQ(records[0]["slurm"]["step_id"], 3);
  EXPECT_EQ(records[1]["slurm"]["step_id"], 4294967280U);
  for (std::size_t i = 2; i < std::size(values); ++i) EXPECT_EQ(records[i]["slurm"]["step_id"], nullptr) << values[i];
  EXPECT_EQ(records.back()["slurm"]["job_id"], nullptr);
  EXPECT_EQ(hetscale::run_record_from_json(records[2]).slurm.step_id, std::nullopt);
}

TEST_F(RecordHelper, RecordsThePluginsWeightsDigest) {
  const std::string digest(64, 'a');
  ::setenv("HETSCALE_WEIGHTS_DIGEST", digest.c_str(), 1);
  ASSERT_EQ(write_record_from_c(), 0);
  ::setenv("HETSCALE_WEIGHTS_DIGEST", "not-a-digest", 1);  // not what the plugin sets
  ASSERT_EQ(write_record_from_c(), 0);
  const auto records = lines();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0]["weights_digest"], digest);
  EXPECT_FALSE(records[1].contains("weights_digest"));
  EXPECT_EQ(hetscale::run_record_from_json(records[0]).weights_digest, digest);
}

// JSON has no NaN or infinity: a record holding one is no record (the collector refuses the
// line, and `hetscale record step` would take it for the step's own and write none).
TEST_F(RecordHelper, CRefusesEveryNumberThatIsNotFiniteAndWritesNothing) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (const double figure : {std::numeric_limits<double>::quiet_NaN(), inf, -inf}) {
    errno = 0;
    EXPECT_EQ(write_record_with_rank_figure_from_c(figure), -1) << figure;
    EXPECT_EQ(errno, EINVAL) << figure;
  }
  EXPECT_FALSE(fs::exists(file_));
  ASSERT_EQ(write_record_with_rank_figure_from_c(1.25), 0);
  ASSERT_EQ(lines().size(), 1U);
  EXPECT_EQ(lines()[0]["ranks"][1]["compute_seconds"], 1.25);
}

// HETSCALE_SYSTEM_SPEED is the environment's, not the program's: one that is no finite,
// non-negative number reads as 0 (C unknown), as garbage does, and the record is written.
TEST_F(RecordHelper, CReadsASystemSpeedThatIsNotFiniteAsUnknown) {
  for (const char* speed : {"inf", "-inf", "nan", "1e999", "infinity", "fast", "-3"}) {
    ::setenv("HETSCALE_SYSTEM_SPEED", speed, 1);
    errno = 0;
    ASSERT_EQ(write_record_from_c(), 0) << speed << ": errno " << errno;
  }
  const auto written = lines();
  ASSERT_EQ(written.size(), 7U);
  for (const auto& record : written) EXPECT_EQ(record["marked_speed"], 0) << record.dump();
}

TEST_F(RecordHelper, CppAppendsAndReportsBadInput) {
  hetscale::record::Run run{"heat", "500*M^2", "M", 2000, 2e9, 4.0, false, "", ""};
  hetscale::record::write(run, {{0, "n1", 1.0, 40, 3.5, 0.5, 4.0}});
  hetscale::record::write(run, {{0, "n1", 1.0, 40, 3.6, 0.4, 4.0}});
  const auto records = lines();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[1]["ranks"][0]["compute_seconds"], 3.6);
  EXPECT_EQ(records[1]["verified"], false);
  run.work = 0;
  try {
    hetscale::record::write(run, {{0, "n1", 1.0, 40, 3.5, 0.5, 4.0}});
    FAIL() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EINVAL);
  }
  run.work = 2e9;
  for (const double figure : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    try {
      hetscale::record::write(run, {{0, "n1", 1.0, 40, 3.5, 0.5, 4.0}, {1, "n2", 1.0, 40, 3.5, 0.5, figure}});
      FAIL() << "no error for a rank's wall time " << figure;
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), EINVAL);
    }
  }
  EXPECT_EQ(lines().size(), 2U);
}

// libhetscale_record (the Fortran and Python modules' way in) writes exactly what the C
// helper writes for the same figures: hosts as blank- or NUL-padded fields, one array a figure.
TEST_F(RecordHelper, LibraryWritesWhatTheHeaderWrites) {
  ASSERT_EQ(write_record_from_c(), 0);
  const char hosts[] = "n1   n\"2\0\0";  // two fields of 5: blank-padded, NUL-padded
  const double weights[] = {0.75, 0.25}, speeds[] = {30.0, 10.0}, compute[] = {1.5, 1.4},
               communication[] = {0.25, 0.5}, walls[] = {2.0, 2.0};
  ASSERT_EQ(hetscale_record_append("heat", "500*M^2", "M", 1000.0, 5e8, 2.5, 1, "2026-11-21T06:10:00Z", "", 2,
                                   hosts, 5, weights, speeds, compute, communication, walls),
            0);
  std::ifstream in(file_);
  std::string from_header, from_library;
  std::getline(in, from_header);
  std::getline(in, from_library);
  EXPECT_EQ(from_library, from_header);
  EXPECT_EQ(hetscale::run_record_from_json(nlohmann::json::parse(from_library)).ranks.at(1).host, "n\"2");

  // Without marked speeds every rank has 0; bad figures are the C helper's EINVAL.
  ASSERT_EQ(hetscale_record_append("heat", "500*M^2", "M", 1000.0, 5e8, 2.5, 0, nullptr, nullptr, 1, "n1", 2,
                                   weights, nullptr, compute, communication, walls),
            0);
  EXPECT_EQ(lines().at(2)["ranks"][0]["marked_speed"], 0.0);
  EXPECT_EQ(hetscale_record_append("heat", "500*M^2", "M", 1000.0, -1.0, 2.5, 0, nullptr, nullptr, 1, "n1", 2,
                                   weights, nullptr, compute, communication, walls),
            EINVAL);
  EXPECT_EQ(hetscale_record_append("heat", "500*M^2", "M", 1000.0, 5e8, 2.5, 0, nullptr, nullptr, 0, "", 1,
                                   weights, nullptr, compute, communication, walls),
            EINVAL);
  const double infinite[] = {1.5, std::numeric_limits<double>::infinity()};
  EXPECT_EQ(hetscale_record_append("heat", "500*M^2", "M", 1000.0, 5e8, 2.5, 0, nullptr, nullptr, 2, hosts, 5,
                                   weights, speeds, infinite, communication, walls),
            EINVAL);
  EXPECT_EQ(lines().size(), 3U);
  ::unsetenv("HETSCALE_RECORD");  // outside a study nothing is checked or written
  EXPECT_EQ(hetscale_record_append("heat", "500*M^2", "M", 1000.0, -1.0, 2.5, 0, nullptr, nullptr, 0, "", 1,
                                   weights, nullptr, compute, communication, walls),
            0);
  ::setenv("HETSCALE_WEIGHT", "0.125", 1);
  EXPECT_EQ(hetscale_record_weight(3, 4), 0.125);
}

TEST_F(RecordHelper, NothingIsWrittenOutsideAStudy) {
  ::unsetenv("HETSCALE_RECORD");
  EXPECT_EQ(write_record_from_c(), 0);
  EXPECT_FALSE(fs::exists(file_));
}

TEST_F(RecordHelper, WeightComesFromThePluginOrIsEqual) {
  EXPECT_DOUBLE_EQ(hetscale::record::weight(0, 4), 0.25);
  ::setenv("HETSCALE_WEIGHT", "0.62500000000000000", 1);
  EXPECT_DOUBLE_EQ(hetscale::record::weight(0, 4), 0.625);
  ::setenv("HETSCALE_WEIGHT", "lots", 1);
  EXPECT_DOUBLE_EQ(hetscale::record::weight(0, 4), 0.25);
}

}  // namespace
