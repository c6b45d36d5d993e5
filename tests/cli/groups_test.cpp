#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

std::string records(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/node-records/" + name;
}

TEST(Groups, SummaryTableAndProblemsOnStderr) {
  const auto r = run_cli({"groups", records("good.jsonl"), records("half.jsonl"),
                          records("corrupt.jsonl"), records("excluded.jsonl"), "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "group,marked_speed,unit,nodes,ok,degraded,excluded,min_speed,max_speed,fingerprint,"
            "cpu_model,hardware,kind_speeds,hosts\n"
            "amd-epyc-1,1000,Mflops,5,4,0,1,995,1010,6b1f0c2d9e8a7f31,AMD EPYC,"
            "\"1x2c AMD EPYC, 24 GB memory\",,\"n[1-3,6,11]\"\n"
            "amd-epyc-2,502.5,Mflops,2,2,0,0,500,505,6b1f0c2d9e8a7f31,AMD EPYC,"
            "\"1x2c AMD EPYC, 24 GB memory\",,n[4-5]\n");
  EXPECT_EQ(r.err, "hetscale groups: skipped " + records("corrupt.jsonl") +
                       ":2: invalid JSON at column 67\n"
                       "hetscale groups: skipped " +
                       records("corrupt.jsonl") +
                       ":3: truncated record (the JSON object ends early)\n"
                       "hetscale groups: excluded n11 (group amd-epyc-1): benchmark failed: "
                       "dgemm: cannot pin to CPU 0\n");
}

TEST(Groups, WritesTheSiteTable) {
  const auto path = std::filesystem::temp_directory_path() / "hetscale-groups-test-site.toml";
  const auto r = run_cli({"groups", records("good.jsonl"), records("half.jsonl"), "-o",
                          path.string(), "--site-name", "testbed", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  EXPECT_EQ(
      text.str(),
      "[site]\nname = \"testbed\"\nspeed_unit = \"Mflops\"\nbenchmark = \"dgemm\"\n\n"
      "[[group]]\nname = \"amd-epyc-1\"\nmarked_speed = 1000.0\n"
      "fingerprint = \"6b1f0c2d9e8a7f31\"\nhardware = \"1x2c AMD EPYC, 24 GB memory\"\n\n"
      "[[group]]\nname = \"amd-epyc-2\"\nmarked_speed = 502.5\n"
      "fingerprint = \"6b1f0c2d9e8a7f31\"\nhardware = \"1x2c AMD EPYC, 24 GB memory\"\n\n"
      "[[node]]\nname = \"n[1-3]\"\ngroup = \"amd-epyc-1\"\nprocessors = 1\nstate = \"ok\"\n\n"
      "[[node]]\nname = \"n[4-5]\"\ngroup = \"amd-epyc-2\"\nprocessors = 1\nstate = \"ok\"\n");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["site"], "testbed");
  EXPECT_EQ(j["groups"].size(), 2u);
  EXPECT_EQ(j["groups"][1]["hosts"], "n[4-5]");
}

TEST(Groups, DegradedThresholdAndStrict) {
  // duplicates.jsonl: n1 again (older, 700) and n2 again (newer, 1005).
  auto r = run_cli({"groups", records("good.jsonl"), records("duplicates.jsonl"), "--strict",
                    "--degraded-threshold", "0.001", "--format", "json"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("hetscale groups: degraded n3 (group amd-epyc): 0.5% below the group "
                       "median 1000\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("hetscale groups: --strict: 0 record(s) skipped, 2 warning(s)\n"),
            std::string::npos)
      << r.err;
  r = run_cli({"groups", records("good.jsonl"), "--degraded-threshold", "1.5"});
  EXPECT_EQ(r.code, 2);
}

TEST(Groups, NothingMeasuredFails) {
  const auto r = run_cli({"groups", records("excluded.jsonl")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale groups: no node record has a measured speed: nothing to group\n");
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kTestbedLayout = HETSCALE_SOURCE_DIR "/site-configs/testbed-layout.txt";

TEST(GroupsDeclared, WritesTheSiteTableOfTheDeclaredSpeeds) {
  const auto path = std::filesystem::temp_directory_path() / "hetscale-groups-declared-site.toml";
  const auto r = run_cli({"groups", "--declared", kTestbedLayout, "--site-name", "testbed", "-o",
                          path.string(), "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "group,marked_speed,unit,nodes,processors,hosts\n"
            "head,1,speed-factor,1,1,n1\n"
            "full,1,speed-factor,2,2,n[2-3]\n"
            "half,0.5,speed-factor,2,2,n[4-5]\n");
  const std::string text = read_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(
      text,
      "[site]\nname = \"testbed\"\nspeed_unit = \"speed-factor\"\nbenchmark = \"declared\"\n\n"
      "[[group]]\nname = \"head\"\nmarked_speed = 1.0\n\n"
      "[[group]]\nname = \"full\"\nmarked_speed = 1.0\n\n"
      "[[group]]\nname = \"half\"\nmarked_speed = 0.5\n\n"
      "[[node]]\nname = \"n1\"\ngroup = \"head\"\nprocessors = 1\nstate = \"ok\"\n\n"
      "[[node]]\nname = \"n[2-3]\"\ngroup = \"full\"\nprocessors = 1\nstate = \"ok\"\n\n"
      "[[node]]\nname = \"n[4-5]\"\ngroup = \"half\"\nprocessors = 1\nstate = \"ok\"\n");
}

TEST(GroupsDeclared, SpeedUnitToStdout) {
  const auto dir = std::filesystem::temp_directory_path() / "hetscale-groups-declared";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "nodes.txt") << "cn-01 group=blade cpus=32 speed=20.29\n";
  const auto r = run_cli(
      {"groups", "--declared", (dir / "nodes.txt").string(), "--speed-unit", "Mflops", "-o", "-"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "[site]\nname = \"site\"\nspeed_unit = \"Mflops\"\nbenchmark = \"declared\"\n\n"
            "[[group]]\nname = \"blade\"\nmarked_speed = 20.29\n\n"
            "[[node]]\nname = \"cn-01\"\ngroup = \"blade\"\nprocessors = 32\nstate = \"ok\"\n");
}

TEST(GroupsDeclared, ErrorNamesTheLineAndNoFileIsWritten) {
  const auto dir = std::filesystem::temp_directory_path() / "hetscale-groups-declared-bad";
  std::filesystem::create_directories(dir);
  const std::string layout = (dir / "nodes.txt").string();
  std::ofstream(layout) << "n1 group=a speed=2\nn2 group=a speed=3\n";
  const auto r = run_cli({"groups", "--declared", layout, "-o", (dir / "site.toml").string()});
  const bool written = std::filesystem::exists(dir / "site.toml");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale groups: " + layout +
                ":2:18: node 'n2' declares speed 3 but group 'a' has speed 2 (node 'n1' at " +
                layout + ":1:1): the nodes of a group declare one speed\n");
  EXPECT_FALSE(written);
}

TEST(GroupsDeclared, OptionsOfNodeRecordsDoNotApply) {
  EXPECT_EQ(run_cli({"groups", "--declared", kTestbedLayout, records("good.jsonl")}).code, 2);
  EXPECT_EQ(run_cli({"groups", "--declared", kTestbedLayout, "--strict"}).code, 2);
  EXPECT_EQ(run_cli({"groups", "--declared", kTestbedLayout, "--degraded-threshold", "0.2"}).code,
            2);
  EXPECT_EQ(run_cli({"groups", "--declared", kTestbedLayout, "--db", "postgresql://x"}).code, 2);
  EXPECT_EQ(run_cli({"groups", records("good.jsonl"), "--speed-unit", "Mflops"}).code, 2);
}

}  // namespace
}  // namespace hetscale::cli::testing
