// What the kernels write (to_json, docs/run-record.md) the collector reads back unchanged, on
// the fast path and on the reference path.
#include <gtest/gtest.h>

#include "../../site/src/run_record_fast.hpp"
#include "hetscale/site/run_record.hpp"

namespace hetscale {
namespace {

RunRecord sample() {
  RunRecord r;
  r.experiment = "mm-study";
  r.code = "mm";
  r.workload = "2*N^3";
  r.parameters = {{"N", 1200}};
  r.work = 2.0 * 1200 * 1200 * 1200;
  r.wall_seconds = 1.0 / 3;
  r.marked_speed = 40.58;
  r.speed_unit = "Mflops";
  r.weights_source = "marked";
  r.ranks = {{0, "n1", 0.25, 10.145, 0.3, 0.02, 1.0 / 3}, {1, "n2", 0.75, 30.435, 0.31, 0.01, 0.33}};
  r.slurm.job_id = 77;
  r.slurm.step_id = 3;
  r.slurm.node_list = "n[1-2]";
  r.machine_set = 1;
  r.repetition = 2;
  r.start_time = "2026-11-21T06:10:00.123Z";
  r.end_time = "2026-11-21T06:10:00.456Z";
  r.verified = true;
  r.fingerprint = {{"software", {{"hetscale", "0.1.0"}}}, {"hardware", {{"cpus", 2}}}};
  return r;
}

void expect_equal(const RunRecord& a, const RunRecord& b) {
  EXPECT_EQ(to_json(a), to_json(b));  // every field, doubles compared exactly
}

TEST(RunRecordRoundTrip, ReferenceReaderReadsWhatToJsonWrites) {
  const RunRecord written = sample();
  expect_equal(run_record_from_json(nlohmann::json::parse(to_json(written).dump())), written);
}

TEST(RunRecordRoundTrip, FastReaderReadsWhatToJsonWrites) {
  const RunRecord written = sample();
  const auto read = fast::run_record_from_text(to_json(written).dump());
  ASSERT_TRUE(read.has_value());
  expect_equal(*read, written);
}

TEST(RunRecordRoundTrip, NullSlurmIdsAndMachineSet) {
  RunRecord written = sample();
  written.slurm = {};
  written.machine_set.reset();
  const auto read = fast::run_record_from_text(to_json(written).dump());
  ASSERT_TRUE(read.has_value());
  expect_equal(*read, written);
}

// A step timed from outside with the SPANK plugin's task times: the reference reader
// reads them back; the fast reader leaves such a record to it.
TEST(RunRecordRoundTrip, NodeTimesAndRanksTimedBy) {
  RunRecord written = sample();
  written.timed_by = "step";
  written.exit_status = 0;
  written.ranks_timed_by = "spank";
  written.node_times = {{"n1", 1, "2026-11-21T06:10:00.123Z", "2026-11-21T06:10:00.456Z", 0.333},
                        {"n2", 1, "2026-11-21T06:10:00.124Z", "2026-11-21T06:10:00.455Z", 1.0 / 3}};
  const nlohmann::json j = to_json(written);
  EXPECT_EQ(j.at("node_times").size(), 2U);
  EXPECT_EQ(j.at("node_times")[1].at("host"), "n2");
  expect_equal(run_record_from_json(nlohmann::json::parse(j.dump())), written);
  EXPECT_FALSE(fast::run_record_from_text(j.dump()).has_value());
  EXPECT_FALSE(to_json(sample()).contains("node_times"));
  EXPECT_FALSE(to_json(sample()).contains("ranks_timed_by"));
}

TEST(RunRecordRoundTrip, EngineAndPlatformHash) {
  RunRecord written = sample();
  written.engine = "simgrid";
  written.platform_hash = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";
  const nlohmann::json j = to_json(written);
  EXPECT_EQ(j.at("engine"), "simgrid");
  expect_equal(run_record_from_json(nlohmann::json::parse(j.dump())), written);
  const auto read = fast::run_record_from_text(j.dump());
  ASSERT_TRUE(read.has_value());
  expect_equal(*read, written);
  EXPECT_FALSE(to_json(sample()).contains("engine"));  // absent unless set: a Slurm run
}

TEST(RunRecordRoundTrip, SlurmClusterIsWrittenOnlyWhenKnown) {
  EXPECT_FALSE(to_json(sample()).at("slurm").contains("cluster"));
  RunRecord written = sample();
  written.slurm.cluster = "hetscale";
  const nlohmann::json j = to_json(written);
  EXPECT_EQ(j.at("slurm").at("cluster"), "hetscale");
  expect_equal(run_record_from_json(nlohmann::json::parse(j.dump())), written);
  const auto read = fast::run_record_from_text(j.dump());
  ASSERT_TRUE(read.has_value());
  expect_equal(*read, written);
  EXPECT_EQ(read->slurm.cluster, "hetscale");
}

TEST(RunRecordRoundTrip, FastReaderLeavesAnEmptyClusterToTheReferenceReader) {
  nlohmann::json j = to_json(sample());
  j["slurm"]["cluster"] = "";
  EXPECT_FALSE(fast::run_record_from_text(j.dump()).has_value());
  j["slurm"]["cluster"] = nullptr;
  const auto read = fast::run_record_from_text(j.dump());
  ASSERT_TRUE(read.has_value());
  EXPECT_FALSE(read->slurm.cluster.has_value());
}

}  // namespace
}  // namespace hetscale
