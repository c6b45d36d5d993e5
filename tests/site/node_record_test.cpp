#include "hetscale/site/node_record.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace hetscale {
namespace {

using ::testing::ElementsAre;

const std::string dir = std::string(HETSCALE_FIXTURES_DIR) + "/node-records/";

NodeRecordBatch read_fixture(const std::string& name) {
  std::ifstream in(dir + name);
  EXPECT_TRUE(in) << name;
  NodeRecordBatch batch;
  read_node_records(in, name, batch);
  return batch;
}

nlohmann::json first_good_record() {
  std::ifstream in(dir + "good.jsonl");
  std::string line;
  std::getline(in, line);
  return nlohmann::json::parse(line);
}

std::string error_of(const nlohmann::json& object) {
  try {
    node_record_from_json(object);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(NodeRecord, RoundTripsThroughJson) {
  const NodeRecord r = node_record_from_json(first_good_record());
  EXPECT_EQ(r.host, "n1");
  EXPECT_EQ(r.hardware.caches.size(), 3u);
  EXPECT_EQ(r.hardware.caches[2], (CacheLevel{3, 33554432, 1}));
  EXPECT_DOUBLE_EQ(r.marked_speed, 1000);
  EXPECT_EQ(node_record_from_json(to_json(r)).hardware, r.hardware);
  EXPECT_EQ(to_json(node_record_from_json(to_json(r))), to_json(r));
}

// A record of a hetscale before the added hardware keys loads, and what it had is
// written back unchanged; what it lacks is written as unknown.
TEST(NodeRecord, OldRecordsLoadAndKeepWhatTheyHad) {
  const nlohmann::json old = first_good_record();
  const nlohmann::json again = to_json(node_record_from_json(old));
  for (const auto& [key, value] : old.items()) {
    if (key == "hardware") continue;
    EXPECT_EQ(again[key], value) << key;
  }
  for (const auto& [key, value] : old["hardware"].items())
    EXPECT_EQ(again["hardware"][key], value) << key;
  EXPECT_EQ(again["hardware"]["architecture"], nullptr);
  EXPECT_EQ(again["hardware"]["cpu_kinds"], nlohmann::json::array());
  EXPECT_EQ(again["hardware"]["memory"], nlohmann::json::array());
  EXPECT_FALSE(again["hardware"].contains("allowed_pus"));
}

// Written by the hetscale before accelerators were objects, from
// tests/fixtures/classifier/dual-xeon-2gpu.xml (the README of node-records/).
TEST(NodeRecord, OldAcceleratorStringsReadAsKindAndModel) {
  NodeRecordBatch batch = read_fixture("old-gpu-node.jsonl");
  ASSERT_TRUE(batch.errors.empty()) << batch.errors.front();
  ASSERT_EQ(batch.records.size(), 1u);
  const NodeRecord& r = batch.records[0].record;
  ASSERT_EQ(r.hardware.accelerators.size(), 2u);
  EXPECT_EQ(r.hardware.accelerators[0].kind, "gpu");
  EXPECT_EQ(r.hardware.accelerators[0].model, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(r.hardware.accelerators[0].pci_id, "");
  EXPECT_FALSE(r.hardware.clock_mhz);  // written as 0: unknown
}

TEST(NodeRecord, UnknownIsNullAndOldZerosAreUnknownToo) {
  nlohmann::json j = first_good_record();
  j["hardware"]["memory_bytes"] = nullptr;
  j["hardware"]["clock_mhz"] = 0;
  j["hardware"]["cpu_vendor"] = nullptr;
  j["hardware"]["cpu_model"] = "";
  const NodeRecord r = node_record_from_json(j);
  EXPECT_FALSE(r.hardware.memory_bytes);
  EXPECT_FALSE(r.hardware.clock_mhz);
  const nlohmann::json written = to_json(r)["hardware"];
  for (const char* key : {"memory_bytes", "clock_mhz", "cpu_vendor", "cpu_model"})
    EXPECT_EQ(written[key], nullptr) << key;
}

nlohmann::json hybrid_record() {
  nlohmann::json j = first_good_record();
  j["hardware"]["architecture"] = "x86_64";
  j["hardware"]["cpu_kinds"] = {{{"cpus", {1}},
                                 {"pus", 1},
                                 {"cores", 1},
                                 {"efficiency", 0},
                                 {"core_type", "IntelAtom"},
                                 {"frequency_max_mhz", 3900},
                                 {"frequency_base_mhz", nullptr}},
                                {{"cpus", {0}},
                                 {"pus", 1},
                                 {"cores", 1},
                                 {"efficiency", 1},
                                 {"core_type", nullptr},
                                 {"frequency_max_mhz", nullptr},
                                 {"frequency_base_mhz", 1900}}};
  j["hardware"]["memory"] = {{{"numa", 0}, {"kind", "DRAM"}, {"bytes", 25276514304}},
                             {{"numa", 1}, {"kind", "HBM"}, {"bytes", nullptr}}};
  j["hardware"]["caches"].push_back(
      {{"level", 1}, {"size_bytes", 1073741824}, {"count", 1}, {"memory_side", true}});
  j["hardware"]["accelerators"] = {{{"kind", "gpu"},
                                    {"vendor", "NVIDIA"},
                                    {"model", nullptr},
                                    {"memory_bytes", 17071734784},
                                    {"pci_bus_id", "0000:3b:00.0"},
                                    {"pci_id", "10de:15f9"},
                                    {"numa", {0}}}};
  j["hardware"]["allowed_pus"] = {{"count", 1}, {"of", 2}};
  j["hardware"]["offline_pus"] = {{"count", 0}, {"of", 2}};
  j["cpu_kind_speeds"] = {{{"kind", 0},
                           {"cpus", {1}},
                           {"processors", 1},
                           {"marked_speed", 400},
                           {"repetitions", 5},
                           {"cv", 0.01},
                           {"duration_seconds", 0.5}},
                          {{"kind", 1},
                           {"cpus", {0}},
                           {"processors", 1},
                           {"marked_speed", 900},
                           {"repetitions", 5},
                           {"cv", 0.02},
                           {"duration_seconds", 0.5}}};
  return j;
}

TEST(NodeRecord, HardwareKeysAndKindSpeedsRoundTrip) {
  const NodeRecord r = node_record_from_json(hybrid_record());
  ASSERT_EQ(r.hardware.cpu_kinds.size(), 2u);
  EXPECT_EQ(r.hardware.cpu_kinds[0].core_type, "IntelAtom");
  EXPECT_FALSE(r.hardware.cpu_kinds[1].frequency_max_mhz);
  EXPECT_EQ(r.hardware.memory[1], (MemoryTier{1, std::nullopt, "HBM"}));
  EXPECT_TRUE(r.hardware.caches.back().memory_side);
  EXPECT_EQ(r.hardware.accelerators[0].pci_id, "10de:15f9");
  EXPECT_EQ(r.hardware.allowed_pus, (PartOf{1, 2}));
  ASSERT_EQ(r.kind_speeds.size(), 2u);
  EXPECT_DOUBLE_EQ(r.kind_speeds[1].marked_speed, 900);
  nlohmann::json expected = hybrid_record();
  EXPECT_EQ(to_json(r), expected);
}

TEST(NodeRecord, BadHardwareKeysNameTheField) {
  nlohmann::json j = hybrid_record();
  j["hardware"]["allowed_pus"]["count"] = 3;
  EXPECT_EQ(error_of(j), "field 'hardware.allowed_pus.count' must not be more than 'of'");
  j = hybrid_record();
  j["hardware"]["cpu_kinds"][1]["pus"] = 4;
  EXPECT_EQ(error_of(j), "field 'hardware.cpu_kinds[1].pus' must be the number of 'cpus'");
  j = hybrid_record();
  j["hardware"]["memory"][0]["kind"] = "";
  EXPECT_EQ(error_of(j), "field 'hardware.memory[0].kind' must not be empty");
  j = hybrid_record();
  j["hardware"]["accelerators"][0]["model"] = 7;
  EXPECT_EQ(error_of(j), "field 'hardware.accelerators[0].model' must be a string or null");
  j = hybrid_record();
  j["hardware"]["accelerators"][0] = 7;
  EXPECT_EQ(error_of(j), "field 'hardware.accelerators[0]' must be an object");
  j = hybrid_record();
  j["cpu_kind_speeds"][1]["kind"] = 2;
  EXPECT_EQ(error_of(j), "field 'cpu_kind_speeds' names kind 2, but the node has 2 CPU kind(s)");
  j = hybrid_record();
  j["cpu_kind_speeds"][0]["marked_speed"] = 0;
  EXPECT_EQ(error_of(j), "field 'cpu_kind_speeds[0].marked_speed' must be a positive number");
}

TEST(NodeRecord, ReadsFilesAndNamesLineOfEachBadRecord) {
  NodeRecordBatch batch = read_fixture("corrupt.jsonl");
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_EQ(batch.records[0].record.host, "n6");
  EXPECT_EQ(batch.records[0].where.str(), "corrupt.jsonl:1");
  EXPECT_THAT(batch.errors,
              ElementsAre("corrupt.jsonl:2: invalid JSON at column 67",
                          "corrupt.jsonl:3: truncated record (the JSON object ends early)"));
}

TEST(NodeRecord, AnotherSchemaIsRejectedAndTheRestKept) {
  NodeRecordBatch batch = read_fixture("other-schema.jsonl");
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_EQ(batch.records[0].record.host, "n10");
  EXPECT_THAT(batch.errors,
              ElementsAre("other-schema.jsonl:1: schema 2 is not supported (this hetscale reads "
                          "node records of schema 1)"));
}

TEST(NodeRecord, ANumberBeyondADoubleIsALineError) {
  // nlohmann reports it as out_of_range, not as a parse error (found by fuzz/node_record).
  std::istringstream in("{\"schema\": 1e400}\n" + first_good_record().dump() + "\n");
  NodeRecordBatch batch;
  read_node_records(in, "huge.jsonl", batch);
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_THAT(batch.errors,
              ElementsAre("huge.jsonl:1: invalid JSON: number overflow parsing '1e400'"));
}

TEST(NodeRecord, ALineNestedTooDeeplyIsALineErrorWithItsColumn) {
  std::istringstream in(R"({"schema":)" + std::string(100000, '[') + "\n" + first_good_record().dump() + "\n");
  NodeRecordBatch batch;
  read_node_records(in, "deep.jsonl", batch);
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_THAT(batch.errors, ElementsAre("deep.jsonl:1:74: invalid JSON: nesting deeper than 64"));
}

TEST(NodeRecord, BlankLinesAreSkippedAndLinesStillCounted) {
  NodeRecordBatch batch = read_fixture("half.jsonl");
  ASSERT_EQ(batch.records.size(), 2u);
  EXPECT_EQ(batch.records[1].where.str(), "half.jsonl:3");
  EXPECT_TRUE(batch.errors.empty());
}

TEST(NodeRecord, ExcludedRecordNeedsAReasonButNoSpeed) {
  NodeRecordBatch batch = read_fixture("excluded.jsonl");
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_EQ(batch.records[0].record.state, NodeState::excluded);
  EXPECT_EQ(batch.records[0].record.reason, "benchmark failed: dgemm: cannot pin to CPU 0");
  nlohmann::json j = to_json(batch.records[0].record);
  j["reason"] = "";
  EXPECT_EQ(error_of(j), "field 'reason' must say why the node is excluded");
}

TEST(NodeRecord, BindingIsOptionalAndChecked) {
  nlohmann::json j = first_good_record();
  EXPECT_EQ(node_record_from_json(j).binding, "pinned");
  j.erase("binding");  // a record of a hetscale before the key: still schema 1
  j.erase("binding_reason");
  EXPECT_EQ(node_record_from_json(j).binding, "");
  j["binding"] = "loose";
  EXPECT_EQ(error_of(j), "field 'binding' must be \"pinned\" or \"unpinned\", not \"loose\"");
  j["binding"] = "unpinned";
  j["binding_reason"] = 3;
  EXPECT_EQ(error_of(j), "field 'binding_reason' must be a string");
}

TEST(NodeRecord, FieldErrorsNameTheField) {
  nlohmann::json j = first_good_record();
  j.erase("host");
  EXPECT_EQ(error_of(j), "missing field 'host'");
  j = first_good_record();
  j["marked_speed"] = 0;
  EXPECT_EQ(error_of(j), "field 'marked_speed' must be a positive number for a node in state ok");
  j = first_good_record();
  j["marked_speed"] = "fast";
  EXPECT_EQ(error_of(j), "field 'marked_speed' must be a number");
  j = first_good_record();
  j["hardware"]["caches"][1]["size_bytes"] = -1;
  EXPECT_EQ(error_of(j), "field 'hardware.caches[1].size_bytes' must be a non-negative integer");
  j = first_good_record();
  j["state"] = "degraded";
  EXPECT_EQ(error_of(j), "field 'state' must be \"ok\" or \"excluded\", not \"degraded\"");
  j = first_good_record();
  j["time"] = "yesterday";
  EXPECT_EQ(
      error_of(j),
      "field 'time' must be an ISO 8601 UTC time like 2026-11-21T06:10:00Z, not \"yesterday\"");
  for (const char* bad : {"2026-11-21 06:10:00Z", "2026-11-21T06:10:00", "2026-11-21T06:10:00.Z",
                          "2026-11-21T06:10:0xZ"}) {
    j = first_good_record();
    j["time"] = bad;
    EXPECT_NE(error_of(j), "no error") << bad;
  }
  j["time"] = "2026-11-21T06:10:00.125Z";
  EXPECT_EQ(error_of(j), "no error");
  EXPECT_EQ(error_of(nlohmann::json::array()), "a node record must be a JSON object");
}

TEST(NodeRecord, ReadsADirectoryInNameOrderAndReportsUnreadablePaths) {
  NodeRecordBatch batch;
  read_node_record_path(dir, batch);
  // corrupt, duplicates, excluded, good, half, old-gpu-node, other-schema (.toml and .md
  // files are skipped).
  ASSERT_EQ(batch.records.size(), 1u + 2u + 1u + 3u + 2u + 1u + 1u);
  EXPECT_EQ(batch.records.front().where.str(), dir + "corrupt.jsonl:1");
  EXPECT_EQ(batch.records.back().where.str(), dir + "other-schema.jsonl:2");
  EXPECT_EQ(batch.errors.size(), 3u);
  read_node_record_path(dir + "missing.jsonl", batch);
  EXPECT_EQ(batch.errors.back(), dir + "missing.jsonl: cannot read: No such file or directory");
}

TEST(NodeRecord, TimesCompareWithAndWithoutFraction) {
  EXPECT_EQ(compare_record_times("2026-11-21T06:00:00Z", "2026-11-21T06:00:00.5Z"), -1);
  EXPECT_EQ(compare_record_times("2026-11-21T06:00:01Z", "2026-11-21T06:00:00.9Z"), 1);
  EXPECT_EQ(compare_record_times("2026-11-21T06:00:00.50Z", "2026-11-21T06:00:00.5Z"), 0);
}

nlohmann::json with_availability() {
  nlohmann::json r = first_good_record();
  r["availability"] = {{"period_seconds", 0.3}, {"window_seconds", 0.1},
                       {"reference_speed", 2000}, {"reference", "given"},
                       {"mean", 0.75},          {"sd", 0.25},
                       {"th", 1.0 / 3},         {"correlation_seconds", nullptr},
                       {"series", {1.0, 0.5, 0.75}}};
  return r;
}

TEST(NodeRecord, AvailabilityIsOptionalAndRoundTrips) {
  EXPECT_FALSE(node_record_from_json(first_good_record()).availability.has_value());
  const NodeRecord r = node_record_from_json(with_availability());
  ASSERT_TRUE(r.availability.has_value());
  EXPECT_EQ(r.availability->series, (std::vector<double>{1.0, 0.5, 0.75}));
  EXPECT_FALSE(r.availability->correlation_seconds.has_value());
  EXPECT_EQ(to_json(r)["availability"], with_availability()["availability"]);
}

TEST(NodeRecord, BadAvailabilityNamesTheField) {
  nlohmann::json r = with_availability();
  r["availability"]["reference"] = "guessed";
  EXPECT_EQ(error_of(r),
            "field 'availability.reference' must be \"measured\" or \"given\", not \"guessed\"");
  r = with_availability();
  r["availability"]["series"] = nlohmann::json::array();
  EXPECT_EQ(error_of(r), "field 'availability.series' must not be empty");
  r = with_availability();
  r["availability"]["window_seconds"] = 0;
  EXPECT_EQ(error_of(r), "field 'availability.window_seconds' must be positive");
  r = with_availability();
  r["availability"].erase("th");
  EXPECT_EQ(error_of(r), "missing field 'th'");
}

}  // namespace
}  // namespace hetscale
