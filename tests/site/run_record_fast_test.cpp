// The fast reader must accept only what the reference reader accepts, with the same result.
#include "../../site/src/run_record_fast.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/base/json_depth.hpp"

namespace hetscale {
namespace {

using nlohmann::json;

json valid() {
  return json::parse(R"({
    "schema": 1, "experiment": "mm-study", "code": "mm", "workload": "2*N^3",
    "parameters": {"N": 1200, "B": 0.5}, "work": 3.456e9, "wall_seconds": 2.5,
    "marked_speed": 40.58, "speed_unit": "Mflops", "weights_source": "marked",
    "ranks": [
      {"rank": 0, "host": "n1", "weight": 0.5, "marked_speed": 20.29,
       "compute_seconds": 2.0, "communication_seconds": 0.4, "wall_seconds": 2.5},
      {"rank": 1, "host": "n2", "weight": 0.5, "wall_seconds": 2.49}],
    "slurm": {"job_id": 17, "array_job_id": null, "array_task_id": 1, "step_id": 0,
              "node_list": "n[1-2]"},
    "machine_set": 3, "repetition": 2,
    "start_time": "2026-11-21T06:10:00.123Z", "end_time": null,
    "verified": true, "fingerprint": {"software": {"hetscale": "0.1.0", "n": [1, 2.5]}}})");
}

void expect_same(const RunRecord& a, const RunRecord& b) {
  EXPECT_EQ(a.experiment, b.experiment);
  EXPECT_EQ(a.code, b.code);
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.parameters, b.parameters);
  EXPECT_EQ(a.work, b.work);
  EXPECT_EQ(a.wall_seconds, b.wall_seconds);
  EXPECT_EQ(a.marked_speed, b.marked_speed);
  EXPECT_EQ(a.speed_unit, b.speed_unit);
  EXPECT_EQ(a.weights_source, b.weights_source);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (std::size_t i = 0; i < a.ranks.size(); ++i) {
    EXPECT_EQ(a.ranks[i].rank, b.ranks[i].rank);
    EXPECT_EQ(a.ranks[i].host, b.ranks[i].host);
    EXPECT_EQ(a.ranks[i].weight, b.ranks[i].weight);
    EXPECT_EQ(a.ranks[i].marked_speed, b.ranks[i].marked_speed);
    EXPECT_EQ(a.ranks[i].compute_seconds, b.ranks[i].compute_seconds);
    EXPECT_EQ(a.ranks[i].communication_seconds, b.ranks[i].communication_seconds);
    EXPECT_EQ(a.ranks[i].wall_seconds, b.ranks[i].wall_seconds);
  }
  EXPECT_EQ(a.slurm.job_id, b.slurm.job_id);
  EXPECT_EQ(a.slurm.array_job_id, b.slurm.array_job_id);
  EXPECT_EQ(a.slurm.array_task_id, b.slurm.array_task_id);
  EXPECT_EQ(a.slurm.step_id, b.slurm.step_id);
  EXPECT_EQ(a.slurm.node_list, b.slurm.node_list);
  EXPECT_EQ(a.machine_set, b.machine_set);
  EXPECT_EQ(a.timed_by, b.timed_by);
  EXPECT_EQ(a.exit_status, b.exit_status);
  EXPECT_EQ(a.repetition, b.repetition);
  EXPECT_EQ(a.start_time, b.start_time);
  EXPECT_EQ(a.end_time, b.end_time);
  EXPECT_EQ(a.verified, b.verified);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_EQ(a.engine, b.engine);
  EXPECT_EQ(a.platform_hash, b.platform_hash);
}

TEST(FastRunRecord, GivesWhatTheReferenceReaderGives) {
  const std::string text = valid().dump();
  const std::optional<RunRecord> fast = fast::run_record_from_text(text);
  ASSERT_TRUE(fast.has_value());
  expect_same(*fast, run_record_from_json(json::parse(text)));
  EXPECT_EQ(fast->parameters.at("B"), 0.5);
  EXPECT_FALSE(fast->slurm.array_job_id.has_value());
}

TEST(FastRunRecord, AcceptsAbsentOptionalFields) {
  json j = valid();
  for (const char* key :
       {"experiment", "marked_speed", "speed_unit", "weights_source", "slurm", "machine_set",
        "repetition", "start_time", "end_time", "verified", "fingerprint"}) {
    j.erase(key);
  }
  const std::optional<RunRecord> fast = fast::run_record_from_text(j.dump());
  ASSERT_TRUE(fast.has_value());
  expect_same(*fast, run_record_from_json(j));
}

TEST(FastRunRecord, ReadsTheEngineKeys) {
  json j = valid();
  j["engine"] = "simgrid";
  j["platform_hash"] = "00ff9a";
  const std::optional<RunRecord> fast = fast::run_record_from_text(j.dump());
  ASSERT_TRUE(fast.has_value());
  expect_same(*fast, run_record_from_json(j));
  EXPECT_EQ(fast->engine, "simgrid");
  EXPECT_EQ(fast->platform_hash, "00ff9a");
  j["engine"] = nullptr;
  j["platform_hash"] = nullptr;
  const std::optional<RunRecord> nulls = fast::run_record_from_text(j.dump());
  ASSERT_TRUE(nulls.has_value());
  EXPECT_FALSE(nulls->engine.has_value());
  expect_same(*nulls, run_record_from_json(j));
}

TEST(FastRunRecord, ReadsWhoTimedTheRunAndItsExitStatus) {
  json j = valid();
  j["timed_by"] = "step";
  j["exit_status"] = 3;
  const std::optional<RunRecord> fast = fast::run_record_from_text(j.dump());
  ASSERT_TRUE(fast.has_value());
  expect_same(*fast, run_record_from_json(j));
  EXPECT_EQ(fast->timed_by, "step");
  EXPECT_EQ(fast->exit_status, 3);
  for (const json& bad : {json("someone"), json(1)}) {
    j["timed_by"] = bad;
    EXPECT_FALSE(fast::run_record_from_text(j.dump()).has_value()) << bad;
  }
  j["timed_by"] = "program";
  for (const json& bad : {json(256), json(-1), json(1.5), json("0")}) {
    j["exit_status"] = bad;
    EXPECT_FALSE(fast::run_record_from_text(j.dump()).has_value()) << bad;
  }
}

// Every record the reference reader refuses, the fast one declines.
TEST(FastRunRecord, DeclinesEveryInvalidRecord) {
  const std::vector<std::function<void(json&)>> spoils = {
      [](json& j) { j.erase("wall_seconds"); },
      [](json& j) { j.erase("schema"); },
      [](json& j) { j["schema"] = 2; },
      [](json& j) { j["schema"] = 1.0; },
      [](json& j) { j["wall_seconds"] = -1.0; },
      [](json& j) { j["wall_seconds"] = 0; },
      [](json& j) { j["work"] = "3e9"; },
      [](json& j) { j["code"] = ""; },
      [](json& j) { j["code"] = std::string("a\0b", 3); },
      [](json& j) { j["ranks"] = json::array(); },
      [](json& j) { j["ranks"][1]["rank"] = 0; },
      [](json& j) { j["ranks"][1].erase("host"); },
      [](json& j) { j["ranks"][0]["host"] = ""; },
      [](json& j) { j["ranks"][0]["weight"] = -0.1; },
      [](json& j) { j["ranks"][0]["compute_seconds"] = -0.1; },
      [](json& j) { j["ranks"][0]["extra"] = 1; },
      [](json& j) { j["parameters"]["N"] = "x"; },
      [](json& j) { j["parameters"][""] = 1; },
      [](json& j) { j["parameters"] = json::array(); },
      [](json& j) { j["slurm"]["job_id"] = -1; },
      [](json& j) { j["slurm"]["job_id"] = 1.5; },
      [](json& j) { j["slurm"]["jobid"] = 1; },
      [](json& j) { j["slurm"] = "17"; },
      [](json& j) { j["machine_set"] = -1; },
      [](json& j) { j["machine_set"] = 3000000000LL; },
      [](json& j) { j["repetition"] = "0"; },
      [](json& j) { j["start_time"] = "2026-11-21 06:10:00"; },
      [](json& j) { j["verified"] = 1; },
      [](json& j) { j["fingerprint"] = "x"; },
      [](json& j) { j["fingerprint"]["os"] = std::string("a\0b", 3); },
      [](json& j) { j["unknown"] = 1; },
      [](json& j) { j["engine"] = "docker"; },
      [](json& j) { j["engine"] = 1; },
      [](json& j) { j["platform_hash"] = ""; },
      [](json& j) { j["platform_hash"] = "sha:12"; },
  };
  for (std::size_t i = 0; i < spoils.size(); ++i) {
    json j = valid();
    spoils[i](j);
    EXPECT_THROW(run_record_from_json(j), Error) << "case " << i;
    EXPECT_FALSE(fast::run_record_from_text(j.dump()).has_value()) << "case " << i;
  }
}

TEST(FastRunRecord, DeclinesWhatItCannotBeSureOf) {
  EXPECT_FALSE(fast::run_record_from_text("not json").has_value());
  EXPECT_FALSE(fast::run_record_from_text("[1]").has_value());
  std::string twice = valid().dump();
  twice.insert(1, R"("code":"first",)");  // a duplicate key: nlohmann keeps the last one
  EXPECT_FALSE(fast::run_record_from_text(twice).has_value());
  std::string huge = valid().dump();
  huge.replace(huge.find("3456000000.0"), 12, "1e400");
  EXPECT_FALSE(fast::run_record_from_text(huge).has_value());
}

// The fast reader has no nesting check of its own: its parser stops at a depth below the
// limit, so whatever it takes is nested no deeper than kMaxJsonNesting, and a record close
// to the limit is left to the reference path, which refuses what is beyond.
TEST(FastRunRecord, TakesNothingNestedBeyondTheLimit) {
  bool took_any = false;
  for (std::size_t depth = 1; depth <= kMaxJsonNesting + 8; ++depth) {
    json j = valid();
    json inner = 1;
    for (std::size_t i = 0; i < depth; ++i) inner = json{{"a", inner}};
    j["fingerprint"] = inner;
    const std::string text = j.dump();
    if (!fast::run_record_from_text(text)) continue;
    took_any = true;
    EXPECT_FALSE(json_nesting_beyond(text, kMaxJsonNesting).has_value()) << "depth " << depth;
  }
  EXPECT_TRUE(took_any);
  json shallow = valid();
  shallow["fingerprint"] = json{{"a", json{{"b", json{{"c", 1}}}}}};
  EXPECT_TRUE(fast::run_record_from_text(shallow.dump()).has_value());
}

// The fingerprint is stored as nlohmann writes it: the fast reader's value must dump to the
// very text the reference reader's does, whatever the kind of each value.
TEST(FastRunRecord, AFingerprintDumpsAsTheReferenceReadersDoes) {
  json j = valid();
  j["fingerprint"] = "FINGERPRINT";
  std::string with = j.dump();
  const std::string fingerprint =
      R"({"n":[0,7,-3,18446744073709551615,-9223372036854775808,1.5,1e2,-0.0,2.5e-300],)"
      R"("b":[true,false,null],"s":"caf\u00e9 \"q\" \\ \t","o":{"z":{},"a":[]},"a":{"b":1},"a":{"c":2}})";
  with.replace(with.find("\"FINGERPRINT\""), 13, fingerprint);
  const std::optional<RunRecord> fast = fast::run_record_from_text(with);
  ASSERT_TRUE(fast.has_value()) << with;
  EXPECT_EQ(fast->fingerprint.dump(), run_record_from_json(json::parse(with)).fingerprint.dump());
}

}  // namespace
}  // namespace hetscale
