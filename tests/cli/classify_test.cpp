#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hetscale/site/node_record.hpp"

namespace hetscale::cli::testing {
namespace {

std::string topology(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/classifier/" + name;
}

// A benchmark that cannot run still gives a valid record, excluded, with the reason.
TEST(Classify, ABenchmarkThatCannotRunGivesAnExcludedRecord) {
  const auto r = run_cli({"classify", "--topology", topology("dual-xeon-2gpu.xml"), "--host",
                          "gpu01", "--benchmark", "kernel:nope:10"});
  ASSERT_EQ(r.code, 0) << r.err;
  const NodeRecord record = node_record_from_json(nlohmann::json::parse(r.out));
  EXPECT_EQ(record.state, NodeState::excluded);
  EXPECT_EQ(record.host, "gpu01");
  EXPECT_EQ(record.fingerprint, "c5f4a394b35d777b");
  EXPECT_EQ(record.topology_source, "xml:" + topology("dual-xeon-2gpu.xml"));
  EXPECT_EQ(r.err, "hetscale classify: gpu01 excluded: " + record.reason + "\n");
  EXPECT_TRUE(record.reason.starts_with("benchmark kernel:nope:10 failed: ")) << record.reason;
}

TEST(Classify, WritesToAFileNamedAfterTheHost) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto r = run_cli({"classify", "--synthetic", "pack:2 core:8 pu:2", "--host", "plan7",
                          "--benchmark", "bogus", "--output", (dir / "hs-%n.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::ifstream in(dir / "hs-plan7.json");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  std::filesystem::remove(dir / "hs-plan7.json");
  const NodeRecord record = node_record_from_json(nlohmann::json::parse(line));
  EXPECT_EQ(record.fingerprint, "be85c6719ba85804");  // synthetic-pack2-core8-pu2.expected.json
  EXPECT_EQ(record.hardware.pus, 32u);
}

TEST(Classify, TopologyAndSyntheticExcludeEachOther) {
  const auto r = run_cli(
      {"classify", "--topology", topology("vm-epyc-2pu.xml"), "--synthetic", "pack:1 pu:1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
}

// --format table|json|csv prints the availability summary; the record goes to --output.
TEST(Classify, AvailabilitySummaryAsCsvAndTheRecordToTheFile) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto r = run_cli({"classify", "--synthetic", "pack:1 core:2 pu:2", "--host", "plan8",
                          "--benchmark", "bogus", "--availability", "1", "--format", "csv",
                          "--output", (dir / "hs-%n.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  // A node that cannot be benchmarked has no availability: its row says so with empty cells.
  EXPECT_EQ(r.out,
            "host,time,state,a,sigma_a,th,correlation_seconds,windows,window_seconds,"
            "period_seconds,reference_speed,reference,speed_unit\n"
            "plan8," + node_record_from_json(nlohmann::json::parse([&] {
              std::ifstream in(dir / "hs-plan8.json");
              std::string line;
              std::getline(in, line);
              return line;
            }())).time +
                ",excluded,,,,,,,,,,\n");
  std::filesystem::remove(dir / "hs-plan8.json");
}

TEST(Classify, AvailabilityOptionsAreChecked) {
  auto r = run_cli({"classify", "--synthetic", "pack:1 pu:1", "--format", "csv"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--format csv prints the availability: it needs --availability"),
            std::string::npos)
      << r.err;
  r = run_cli({"classify", "--synthetic", "pack:1 pu:1", "--availability", "0.05", "--window",
               "0.1"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--availability must be at least one window (0.1 s) long"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace hetscale::cli::testing
