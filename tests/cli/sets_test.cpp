#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

// site-configs/three-group-head.toml: server hpc-0 (4 x 42.15), 63 ok blades (1 x 20.29,
// hpc-17b 20.11, hpc-33 degraded), v210 hpc-[65-72] (2 x 36.72). Fastest first: server, v210,
// blade.
TEST(Sets, StopPolicyOnTheThreeGroupExample) {
  const auto r =
      run_cli({"sets", "--site", site_config("three-group-head.toml"), "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  // Marked speeds are sums of doubles: compare them numerically, everything else exactly.
  const std::vector<std::string> expected{"set,nodes,server,blade,v210,marked_speed,unit,members",
                                          "0,2,1,0,1,242.04,Mflops,\"hpc-[0,65]\"",
                                          "1,4,1,1,2,335.77,Mflops,\"hpc-[0-1,65-66]\"",
                                          "2,8,1,3,4,523.23,Mflops,\"hpc-[0-3,65-68]\"",
                                          "3,16,1,7,8,898.15,Mflops,\"hpc-[0-7,65-72]\""};
  // Splits on commas outside quotes (the members column is quoted).
  const auto fields = [](const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted)
        out.emplace_back();
      else
        out.back() += c;
    }
    return out;
  };
  std::istringstream lines(r.out);
  std::string line;
  for (std::size_t row = 0; row < expected.size(); ++row) {
    ASSERT_TRUE(std::getline(lines, line)) << r.out;
    const auto got = fields(line);
    const auto want = fields(expected[row]);
    ASSERT_EQ(got.size(), want.size()) << line;
    for (std::size_t k = 0; k < want.size(); ++k) {
      if (row > 0 && k == 5)
        EXPECT_NEAR(std::stod(got[k]), std::stod(want[k]), 1e-9) << line;
      else
        EXPECT_EQ(got[k], want[k]) << line;
    }
  }
  EXPECT_FALSE(std::getline(lines, line)) << "more sets than expected";
}

TEST(Sets, FillPolicyKeepsDoublingFromTheBlades) {
  const auto r = run_cli({"sets", "--site", site_config("three-group-head.toml"), "--policy",
                          "fill", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 6u);
  EXPECT_EQ(j[5]["nodes"], 64);
  EXPECT_EQ(j[5]["groups"]["server"], 1);
  EXPECT_EQ(j[5]["groups"]["v210"], 8);
  EXPECT_EQ(j[5]["groups"]["blade"], 55);
  EXPECT_NEAR(j[5]["marked_speed"].get<double>(), 4 * 42.15 + 8 * 2 * 36.72 + 55 * 20.29, 1e-9);
  EXPECT_EQ(j[0]["member_list"], nlohmann::json::array({"hpc-0", "hpc-65"}));
}

TEST(Sets, StartAndMax) {
  const auto r = run_cli({"sets", "--site", site_config("modern-mixed.toml"), "--start", "4",
                          "--max", "64", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // 4, 8, 16: the four fat nodes are all in set 2 (16 nodes), so set 3 cannot get its fat share.
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["groups"],
            (nlohmann::json{{"rome", 1}, {"icelake", 1}, {"genoa", 1}, {"fat", 1}}));
  EXPECT_EQ(j[2]["groups"],
            (nlohmann::json{{"rome", 4}, {"icelake", 4}, {"genoa", 4}, {"fat", 4}}));
  EXPECT_EQ(j[2]["unit"], "Gflops");
}

TEST(Sets, BadSiteTableIsExitOneNamingTheFile) {
  const std::string path = ::testing::TempDir() + "/bad-site.toml";
  std::ofstream(path) << "[site]\nname = \"x\"\n\n[[group]]\nname = \"a\"\nmarked_speed = -3\n";
  const auto r = run_cli({"sets", "--site", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("hetscale sets: " + path + ":6:", 0), 0u) << r.err;
}

TEST(Sets, UnknownPolicyIsBadUsage) {
  const auto r = run_cli({"sets", "--site", site_config("modern-mixed.toml"), "--policy", "grow"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Sets, NoSubcommandIsBadUsage) {
  const auto r = run_cli({});
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace hetscale::cli::testing
