#include "hetscale/site/run_record.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

RunRecord sample() {
  RunRecord r;
  r.experiment = "exp1";
  r.code = "mm";
  r.workload = "mm";
  r.parameters = {{"N", 1200}};
  r.work = 2.0 * 1200 * 1200 * 1200;
  r.wall_seconds = 1.5;
  r.marked_speed = 3000;
  r.speed_unit = "Mflops";
  r.weights_source = "marked";
  r.ranks = {{0, "n1", 0.75, 2000, 1.0, 0.4, 1.5}, {1, "n2", 0.25, 1000, 0.9, 0.5, 1.5}};
  r.slurm.job_id = 42;
  r.slurm.step_id = 0;
  r.slurm.node_list = "n[1-2]";
  r.machine_set = 1;
  r.repetition = 2;
  r.start_time = "2026-11-21T06:10:00.123Z";
  r.end_time = "2026-11-21T06:10:01.623Z";
  r.verified = true;
  r.fingerprint = {{"software", {{"hetscale", "0.1.0"}}}, {"hardware", nlohmann::json::object()}};
  return r;
}

TEST(RunRecordJson, HasEveryContractKey) {
  const nlohmann::json j = to_json(sample());
  EXPECT_EQ(j.at("schema"), 1);
  EXPECT_EQ(j.at("experiment"), "exp1");
  EXPECT_EQ(j.at("code"), "mm");
  EXPECT_EQ(j.at("workload"), "mm");
  EXPECT_EQ(j.at("parameters").at("N"), 1200.0);
  EXPECT_DOUBLE_EQ(j.at("work").get<double>(), 2.0 * 1200 * 1200 * 1200);
  EXPECT_DOUBLE_EQ(j.at("wall_seconds").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j.at("marked_speed").get<double>(), 3000);
  EXPECT_EQ(j.at("speed_unit"), "Mflops");
  EXPECT_EQ(j.at("weights_source"), "marked");
  ASSERT_EQ(j.at("ranks").size(), 2u);
  const auto& r1 = j.at("ranks")[1];
  EXPECT_EQ(r1.at("rank"), 1);
  EXPECT_EQ(r1.at("host"), "n2");
  EXPECT_DOUBLE_EQ(r1.at("weight").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(r1.at("marked_speed").get<double>(), 1000);
  EXPECT_DOUBLE_EQ(r1.at("compute_seconds").get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(r1.at("communication_seconds").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r1.at("wall_seconds").get<double>(), 1.5);
  EXPECT_EQ(j.at("slurm").at("job_id"), 42);
  EXPECT_TRUE(j.at("slurm").at("array_job_id").is_null());
  EXPECT_TRUE(j.at("slurm").at("array_task_id").is_null());
  EXPECT_EQ(j.at("slurm").at("step_id"), 0);
  EXPECT_EQ(j.at("slurm").at("node_list"), "n[1-2]");
  EXPECT_EQ(j.at("machine_set"), 1);
  EXPECT_EQ(j.at("repetition"), 2);
  EXPECT_EQ(j.at("start_time"), "2026-11-21T06:10:00.123Z");
  EXPECT_EQ(j.at("end_time"), "2026-11-21T06:10:01.623Z");
  EXPECT_EQ(j.at("verified"), true);
  EXPECT_EQ(j.at("fingerprint").at("software").at("hetscale"), "0.1.0");
  EXPECT_EQ(j.size(), 18u);  // a new key needs docs/run-record.md and the collector
}

TEST(RunRecordJson, AbsentOptionalsAreNull) {
  RunRecord r;
  const nlohmann::json j = to_json(r);
  EXPECT_TRUE(j.at("machine_set").is_null());
  EXPECT_TRUE(j.at("slurm").at("job_id").is_null());
  EXPECT_TRUE(j.at("ranks").is_array());
  EXPECT_TRUE(j.at("parameters").is_object());
}

TEST(RunEngine, IsSlurmWhenTheRecordNamesNone) {
  RunRecord r = sample();
  EXPECT_EQ(run_engine(r), "slurm");
  r.engine = "simgrid";
  EXPECT_EQ(run_engine(r), "simgrid");
  r.engine = "mpirun";
  EXPECT_EQ(run_engine(r), "mpirun");
}

class RunRecordFile : public ::testing::Test {
 protected:
  std::filesystem::path file = std::filesystem::temp_directory_path() /
                               ("hetscale_run_record_" + std::to_string(::getpid()) + ".jsonl");
  void TearDown() override { std::filesystem::remove(file); }

  std::vector<std::string> lines() const {
    std::ifstream in(file);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
};

TEST_F(RunRecordFile, AppendsOneLinePerRecord) {
  append_run_record(file, sample());
  append_run_record(file, sample());
  const auto got = lines();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(got[1]), to_json(sample()));
}

TEST_F(RunRecordFile, ConcurrentWritersNeverInterleave) {
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([this] {
      for (int i = 0; i < 25; ++i) append_run_record(file, sample());
    });
  }
  for (auto& w : writers) w.join();
  const auto got = lines();
  ASSERT_EQ(got.size(), 100u);
  for (const auto& line : got) EXPECT_EQ(nlohmann::json::parse(line).at("code"), "mm");
}

TEST_F(RunRecordFile, UnwritablePathIsAnError) {
  try {
    append_run_record("/nonexistent-dir/x.jsonl", sample());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open /nonexistent-dir/x.jsonl"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hetscale
