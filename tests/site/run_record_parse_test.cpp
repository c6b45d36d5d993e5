#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/site/run_record.hpp"

namespace hetscale {
namespace {

using nlohmann::json;

// A valid record written as text, as a kernel would (to_json lives on another branch).
json valid() {
  return json::parse(R"({
    "schema": 1, "experiment": "mm-study", "code": "mm", "workload": "2*N^3",
    "parameters": {"N": 1200}, "work": 3.456e9, "wall_seconds": 2.5,
    "marked_speed": 40.58, "speed_unit": "Mflops", "weights_source": "marked",
    "ranks": [
      {"rank": 0, "host": "n1", "weight": 0.5, "marked_speed": 20.29,
       "compute_seconds": 2.0, "communication_seconds": 0.4, "wall_seconds": 2.5},
      {"rank": 1, "host": "n2", "weight": 0.5, "marked_speed": 20.29,
       "compute_seconds": 2.1, "communication_seconds": 0.3, "wall_seconds": 2.49}],
    "slurm": {"job_id": 17, "array_job_id": 16, "array_task_id": 1, "step_id": 0,
              "node_list": "n[1-2]"},
    "machine_set": 0, "repetition": 2,
    "start_time": "2026-11-21T06:10:00.123Z", "end_time": "2026-11-21T06:10:02.623+00:00",
    "verified": true, "fingerprint": {"software": {"hetscale": "0.1.0"}}})");
}

std::string error_of(const json& object) {
  try {
    run_record_from_json(object);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RunRecordFromJson, ReadsEveryField) {
  const RunRecord r = run_record_from_json(valid());
  EXPECT_EQ(r.experiment, "mm-study");
  EXPECT_EQ(r.code, "mm");
  EXPECT_EQ(r.workload, "2*N^3");
  EXPECT_EQ(r.parameters.at("N"), 1200);
  EXPECT_DOUBLE_EQ(r.work, 3.456e9);
  EXPECT_DOUBLE_EQ(r.wall_seconds, 2.5);
  EXPECT_DOUBLE_EQ(r.marked_speed, 40.58);
  EXPECT_EQ(r.speed_unit, "Mflops");
  EXPECT_EQ(r.weights_source, "marked");
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[1].rank, 1);
  EXPECT_EQ(r.ranks[1].host, "n2");
  EXPECT_DOUBLE_EQ(r.ranks[1].compute_seconds, 2.1);
  EXPECT_DOUBLE_EQ(r.ranks[1].communication_seconds, 0.3);
  EXPECT_DOUBLE_EQ(r.ranks[1].wall_seconds, 2.49);
  EXPECT_EQ(r.slurm.job_id, 17u);
  EXPECT_EQ(r.slurm.array_job_id, 16u);
  EXPECT_EQ(r.slurm.array_task_id, 1u);
  EXPECT_EQ(r.slurm.step_id, 0u);
  EXPECT_EQ(r.slurm.node_list, "n[1-2]");
  EXPECT_EQ(r.machine_set, 0);
  EXPECT_EQ(r.repetition, 2);
  EXPECT_EQ(r.start_time, "2026-11-21T06:10:00.123Z");
  EXPECT_EQ(r.end_time, "2026-11-21T06:10:02.623+00:00");
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.fingerprint["software"]["hetscale"], "0.1.0");
}

TEST(RunRecordFromJson, OptionalFieldsMayBeAbsentOrNull) {
  json j = valid();
  for (const char* key : {"experiment", "marked_speed", "speed_unit", "weights_source", "slurm",
                          "repetition", "start_time", "end_time", "verified", "fingerprint"}) {
    j.erase(key);
  }
  j["machine_set"] = nullptr;
  const RunRecord r = run_record_from_json(j);
  EXPECT_EQ(r.experiment, "");
  EXPECT_FALSE(r.machine_set.has_value());
  EXPECT_FALSE(r.slurm.job_id.has_value());
  EXPECT_EQ(r.repetition, 0);
}

TEST(RunRecordFromJson, NamesAMissingField) {
  json j = valid();
  j.erase("wall_seconds");
  EXPECT_EQ(error_of(j), "missing field 'wall_seconds'");
  j = valid();
  j["ranks"][1].erase("host");
  EXPECT_EQ(error_of(j), "missing field 'ranks[1].host'");
}

TEST(RunRecordFromJson, RefusesNegativeTimes) {
  json j = valid();
  j["wall_seconds"] = -1.0;
  EXPECT_EQ(error_of(j), "field 'wall_seconds' must be a positive number");
  j = valid();
  j["ranks"][1]["wall_seconds"] = -0.5;
  EXPECT_EQ(error_of(j), "field 'ranks[1].wall_seconds' must be a non-negative number");
  j = valid();
  j["ranks"][0]["compute_seconds"] = -0.5;
  EXPECT_EQ(error_of(j), "field 'ranks[0].compute_seconds' must be a non-negative number");
}

TEST(RunRecordFromJson, RefusesNumbersOutsideTheirRange) {
  // Up to DBL_MAX was accepted: sums over runs overflowed.
  json j = valid();
  j["work"] = 1e300;
  EXPECT_EQ(error_of(j), "field 'work' must be at most 1e+30, not 1e+300");
  j = valid();
  j["wall_seconds"] = 2e9;
  EXPECT_EQ(error_of(j), "field 'wall_seconds' must be at most 1e+09, not 2e+09");
  j = valid();
  j["marked_speed"] = 1.7e308;
  EXPECT_EQ(error_of(j), "field 'marked_speed' must be at most 1e+30, not 1.7e+308");
  j = valid();
  j["ranks"][1]["compute_seconds"] = 1e10;
  EXPECT_EQ(error_of(j), "field 'ranks[1].compute_seconds' must be at most 1e+09, not 1e+10");
  j = valid();
  j["ranks"][0]["weight"] = 1.5;
  EXPECT_EQ(error_of(j), "field 'ranks[0].weight' must be at most 1, not 1.5");
  j = valid();
  j["parameters"]["N"] = -1e20;
  EXPECT_EQ(error_of(j), "field 'parameters.N' must be at most 1e+15, not -1e+20");
}

TEST(RunRecordFromJson, WeightsDigestIsOptionalAndChecked) {
  json j = valid();
  EXPECT_FALSE(run_record_from_json(j).weights_digest.has_value());
  const std::string a(64, 'a'), b(64, '0');
  j["weights_digest"] = a;
  EXPECT_EQ(run_record_from_json(j).weights_digest, a);
  EXPECT_EQ(to_json(run_record_from_json(j))["weights_digest"], a);
  j["weights_digest"] = b + "," + a;  // ranks that read different versions
  EXPECT_EQ(run_record_from_json(j).weights_digest, b + "," + a);
  for (const std::string& bad : {std::string("abc"), a + ",", std::string(64, 'A'), a + ";" + b}) {
    j["weights_digest"] = bad;
    EXPECT_EQ(error_of(j),
              "field 'weights_digest' must be 64 lower-case hexadecimal digits, or several joined by ','")
        << bad;
  }
}

TEST(RunRecordFromJson, TimedByAndExitStatusAreOptionalAndChecked) {
  json j = valid();
  const RunRecord old = run_record_from_json(j);  // a record written before either key
  EXPECT_FALSE(old.timed_by.has_value());
  EXPECT_EQ(run_timed_by(old), "program");
  EXPECT_FALSE(old.exit_status.has_value());
  EXPECT_FALSE(run_failed(old));
  EXPECT_FALSE(to_json(old).contains("timed_by"));
  EXPECT_FALSE(to_json(old).contains("exit_status"));

  j["timed_by"] = "step";
  j["exit_status"] = 0;
  RunRecord r = run_record_from_json(j);
  EXPECT_EQ(run_timed_by(r), "step");
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_FALSE(run_failed(r));
  j["exit_status"] = 137;  // killed by SIGKILL
  r = run_record_from_json(j);
  EXPECT_TRUE(run_failed(r));
  EXPECT_EQ(to_json(r)["exit_status"], 137);
  EXPECT_EQ(to_json(r)["timed_by"], "step");

  j["exit_status"] = 256;
  EXPECT_EQ(error_of(j), "field 'exit_status' must be at most 255, not 256");
  j["exit_status"] = 0;
  j["timed_by"] = "wrapper";
  EXPECT_EQ(error_of(j), "field 'timed_by' must be program or step");
}

TEST(CombineWeightsDigests, OneWhenAllAgreeElseTheDistinctOnesSorted) {
  const std::string a(64, 'a'), b(64, 'b');
  EXPECT_EQ(combine_weights_digests(std::vector<std::string>{"", ""}), std::nullopt);
  EXPECT_EQ(combine_weights_digests(std::vector<std::string>{a, a, ""}), a);
  EXPECT_EQ(combine_weights_digests(std::vector<std::string>{b, a, b}), a + "," + b);
}

TEST(RunRecordFromJson, RefusesAnotherSchemaVersionFirst) {
  json j = valid();
  j["schema"] = 2;
  j["new_field"] = 1;
  EXPECT_EQ(error_of(j), "field 'schema' must be 1 (got 2)");
  j.erase("schema");
  EXPECT_EQ(error_of(j), "missing field 'schema'");
}

TEST(RunRecordFromJson, RefusesUnknownFields) {
  json j = valid();
  j["wall_secs"] = 1.0;
  EXPECT_EQ(error_of(j), "unknown field 'wall_secs'");
  j = valid();
  j["slurm"]["jobid"] = 1;
  EXPECT_EQ(error_of(j), "unknown field 'slurm.jobid'");
}

TEST(RunRecordFromJson, RefusesWrongTypes) {
  json j = valid();
  j["work"] = "3e9";
  EXPECT_EQ(error_of(j), "field 'work' must be a positive number");
  j = valid();
  j["parameters"]["N"] = "big";
  EXPECT_EQ(error_of(j), "field 'parameters.N' must be a number");
  j = valid();
  j["slurm"]["job_id"] = -3;
  EXPECT_EQ(error_of(j), "field 'slurm.job_id' must be a non-negative integer");
  j = valid();
  j["machine_set"] = 1.5;
  EXPECT_EQ(error_of(j), "field 'machine_set' must be a non-negative integer");
  j = valid();
  j["verified"] = "yes";
  EXPECT_EQ(error_of(j), "field 'verified' must be true or false");
  EXPECT_EQ(error_of(json::array()), "a run record must be a JSON object");
}

TEST(RunRecordFromJson, EngineAndPlatformHashAreOptional) {
  EXPECT_FALSE(run_record_from_json(valid()).engine.has_value());  // a Slurm run
  json j = valid();
  j["engine"] = "simgrid";
  j["platform_hash"] = "9f86d081884c7d65";
  const RunRecord r = run_record_from_json(j);
  EXPECT_EQ(r.engine, "simgrid");
  EXPECT_EQ(r.platform_hash, "9f86d081884c7d65");
  j["engine"] = "mpirun";
  EXPECT_EQ(run_record_from_json(j).engine, "mpirun");
  j["engine"] = "docker";
  EXPECT_EQ(error_of(j), "field 'engine' must be slurm, mpirun or simgrid");
  j["engine"] = "slurm";
  j["platform_hash"] = "not hex";
  EXPECT_EQ(error_of(j), "field 'platform_hash' must be hexadecimal digits");
}

TEST(RunRecordFromJson, SlurmClusterIsOptionalButNeverEmpty) {
  EXPECT_FALSE(run_record_from_json(valid()).slurm.cluster.has_value());
  json j = valid();
  j["slurm"]["cluster"] = "hetscale";
  EXPECT_EQ(run_record_from_json(j).slurm.cluster, "hetscale");
  j["slurm"]["cluster"] = nullptr;
  EXPECT_FALSE(run_record_from_json(j).slurm.cluster.has_value());
  j["slurm"]["cluster"] = "";
  EXPECT_EQ(error_of(j), "field 'slurm.cluster' must not be empty (leave it out when the cluster is not known)");
  j["slurm"]["cluster"] = 7;
  EXPECT_EQ(error_of(j), "field 'slurm.cluster' must be a string");
}

TEST(RunRecordFromJson, RefusesEmptyOrRepeatedRanks) {
  json j = valid();
  j["ranks"] = json::array();
  EXPECT_EQ(error_of(j), "field 'ranks' must be a non-empty array");
  j = valid();
  j["ranks"][1]["rank"] = 0;
  EXPECT_EQ(error_of(j), "field 'ranks[1].rank' repeats rank 0");
}

TEST(RunRecordFromJson, NodeTimesAreOneObjectPerNode) {
  json j = valid();
  j["ranks_timed_by"] = "spank";
  j["node_times"] = json::array({{{"host", "n1"}, {"tasks", 2}, {"start_time", "2026-11-21T06:10:00.123Z"},
                                  {"end_time", "2026-11-21T06:10:01.123Z"}, {"wall_seconds", 1.0}}});
  const RunRecord r = run_record_from_json(j);
  ASSERT_EQ(r.node_times.size(), 1U);
  EXPECT_EQ(r.node_times[0].tasks, 2);
  EXPECT_EQ(r.ranks_timed_by, "spank");
  j["ranks_timed_by"] = "program";
  EXPECT_EQ(error_of(j), "field 'ranks_timed_by' must be step or spank");
  j["ranks_timed_by"] = "spank";
  j["node_times"].push_back(j["node_times"][0]);
  EXPECT_EQ(error_of(j), "field 'node_times[1].host' repeats host n1");
  j["node_times"] = json::array();
  EXPECT_EQ(error_of(j), "field 'node_times' must be a non-empty array");
  j["node_times"] = json::array({{{"host", "n1"}, {"tasks", 0}, {"wall_seconds", 1.0}}});
  EXPECT_EQ(error_of(j), "field 'node_times[0].tasks' must be at least 1");
  j["node_times"] = json::array({{{"host", "n1"}, {"tasks", 1}, {"wall_seconds", -1.0}}});
  EXPECT_EQ(error_of(j), "field 'node_times[0].wall_seconds' must be a non-negative number");
  j["node_times"] = json::array({{{"host", "n1"}, {"tasks", 1}, {"wall_seconds", 1.0}, {"pid", 7}}});
  EXPECT_EQ(error_of(j), "unknown field 'node_times[0].pid'");
}

TEST(RunRecordFromJson, RefusesTimesWithoutZone) {
  json j = valid();
  j["start_time"] = "2026-11-21 06:10:00";
  EXPECT_EQ(error_of(j),
            "field 'start_time' must be an ISO 8601 time with a zone, e.g. 2026-11-21T06:10:00Z");
}

TEST(RunRecordFromJson, RefusesNulCharacters) {
  json j = valid();
  j["code"] = std::string("mm\0x", 4);
  EXPECT_EQ(error_of(j), "field 'code' must not contain a NUL character");
  j = valid();
  j["fingerprint"]["software"]["os"] = std::string("a\0b", 3);
  EXPECT_EQ(error_of(j), "field 'fingerprint' must not contain a NUL character");
  j = valid();
  j["fingerprint"]["software"]["os"] = "C:\\u0000 is text";  // an escaped backslash, not NUL
  EXPECT_EQ(error_of(j), "no error");
}

TEST(RunRecordFromJson, KeepsSqlLookingTextAsIs) {
  json j = valid();
  j["experiment"] = "x'); DROP TABLE hetscale.runs; --";
  EXPECT_EQ(run_record_from_json(j).experiment, "x'); DROP TABLE hetscale.runs; --");
}

}  // namespace
}  // namespace hetscale
