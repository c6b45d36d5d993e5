#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "hetscale/site/partition_file.hpp"

namespace hetscale::cli::testing {
namespace {

std::string fixture(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/cli/" + name;
}

TEST(Equalize, TwoNodesByHandAndThePartitionFile) {
  // Speeds 1 and 1, k = 0 and 1, 1 s each at step 1 (X = 2): t1 = t2 + sqrt(t2), t1 + t2 = 2,
  // so sqrt(t2) = (sqrt(17) - 1) / 4 and the shares are t1 / 2, t2 / 2.
  const auto dir = std::filesystem::path(::testing::TempDir()) / "equalize-partitions";
  std::filesystem::remove_all(dir);
  const auto r = run_cli({"equalize", "--input", fixture("two-nodes.csv"), "--seconds", "1",
                          "--partitions", dir.string(), "--site", "testbed", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const double root = (std::sqrt(17.0) - 1) / 4;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j[1]["equalized_weight"].get<double>(), root * root / 2, 1e-12);
  EXPECT_NEAR(j[0]["equalized_weight"].get<double>(), 1 - root * root / 2, 1e-12);
  EXPECT_DOUBLE_EQ(j[0]["proportional_weight"].get<double>(), 0.5);
  // Step 2 stops short of equalization: t + sigma of the steady node stays below the other's.
  EXPECT_LT(j[0]["t_plus_sigma_step2"].get<double>(), j[1]["t_plus_sigma_step2"].get<double>());

  const auto file = dir / "n[1-2].toml";
  ASSERT_TRUE(std::filesystem::exists(file)) << r.err;
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const auto partition = parse_partition(text.str(), file.string());
  EXPECT_EQ(partition.site, "testbed");
  ASSERT_EQ(partition.nodes.size(), 2u);
  // What is written is step 2 by case: here equal speeds, and equalizing all the way would
  // lengthen the modelled tau, so only part of the equalizing move is taken.
  EXPECT_EQ(j[0]["case"], "equal-speeds");
  EXPECT_EQ(partition.nodes[0].weight, j[0]["step2_weight"].get<double>());
  EXPECT_GT(j[0]["step2_weight"].get<double>(), 0.5);
  EXPECT_LT(j[0]["step2_weight"].get<double>(), j[0]["equalized_weight"].get<double>());
  EXPECT_LT(j[0]["modelled_tau_step2"].get<double>(), j[0]["modelled_tau_step1"].get<double>());
  EXPECT_GT(j[0]["modelled_tau_equalized"].get<double>(), j[0]["modelled_tau_step1"].get<double>());
}

TEST(Equalize, SlowSteadyComputerMuchSlowerMovesWorkToTheFastOne) {
  // The paper's example: t = 100 s at step 1, sigma_T 10 s on the slow node and 60 s on the
  // fast one (k = 1 and 6), speeds 1 and 8.
  const auto dir = std::filesystem::path(::testing::TempDir()) / "equalize-far";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto out = dir / "p.toml";
  auto r = run_cli({"equalize", "--input", fixture("slow-steady-fast-unsteady.csv"), "--seconds",
                    "100", "-o", out.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j[0]["case"], "slow-steady-far");
  EXPECT_NEAR(j[0]["modelled_tau_step1"].get<double>(), 124.27, 0.01);
  EXPECT_NEAR(j[0]["modelled_tau_equalized"].get<double>(), 149, 1.5);
  EXPECT_NEAR(j[0]["modelled_tau_step2"].get<double>(), 112, 1.5);
  // Equalizing gives the slow node more than its 1/9; step 2 gives it less.
  EXPECT_GT(j[0]["equalized_weight"].get<double>(), 1.0 / 9);
  EXPECT_LT(j[0]["step2_weight"].get<double>(), 1.0 / 9);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const auto partition = parse_partition(text.str(), out.string());
  ASSERT_EQ(partition.nodes.size(), 2u);
  EXPECT_EQ(partition.nodes[0].weight, j[0]["step2_weight"].get<double>());

  r = run_cli({"equalize", "--input", fixture("slow-steady-fast-unsteady.csv"), "--seconds",
               "100"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("case: slow-steady-far: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("modelled tau (s): step 1 124.267"), std::string::npos) << r.out;
  r = run_cli({"equalize", "--input", fixture("slow-steady-fast-unsteady.csv"), "--seconds",
               "100", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(",case,modelled_tau_step1,modelled_tau_equalized,modelled_tau_step2"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",slow-steady-far,"), std::string::npos) << r.out;

  // --method exact would lengthen the modelled tau: step 1 is written instead, and said so.
  r = run_cli({"equalize", "--input", fixture("slow-steady-fast-unsteady.csv"), "--seconds",
               "100", "--method", "exact"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("note: the exact partition would lengthen the modelled tau; step 1 is kept"),
            std::string::npos)
      << r.out;
  // --method optimum: the least modelled tau, here the same as step 2 (two computers).
  r = run_cli({"equalize", "--input", fixture("slow-steady-fast-unsteady.csv"), "--seconds",
               "100", "--method", "optimum", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto o = nlohmann::json::parse(r.out);
  EXPECT_NEAR(o[0]["step2_weight"].get<double>(), j[0]["step2_weight"].get<double>(), 1e-4);
}

TEST(Equalize, TemporalHeterogeneityNeedsACorrelationTime) {
  auto r = run_cli({"equalize", "--input", fixture("two-nodes-th.csv"), "--seconds", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale equalize: --correlation-time: needed with a 'th' column (E[L^2]/E[L] of the "
            "availability intervals, in seconds) (see --help)\n");
  // th = 0.5 with a correlation time of 4 s is k = 1: the same answer as the case above.
  r = run_cli({"equalize", "--input", fixture("two-nodes-th.csv"), "--seconds", "1",
               "--correlation-time", "4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const double root = (std::sqrt(17.0) - 1) / 4;
  EXPECT_NEAR(nlohmann::json::parse(r.out)[1]["equalized_weight"].get<double>(), root * root / 2,
              1e-12);
}

TEST(Equalize, BadInput) {
  auto r = run_cli({"equalize", "--input", fixture("both-spreads.csv"), "--seconds", "1"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale equalize: " + fixture("both-spreads.csv") +
                       ":2:1: give exactly one of the columns 'variation' and 'th'\n");
  r = run_cli({"equalize", "--input", fixture("two-nodes.csv")});
  EXPECT_EQ(r.code, 2);
}

TEST(Equalize, OneSourceOfNodes) {
  auto r = run_cli({"equalize", "--seconds", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale equalize: give either --input FILE or --db URI (with --experiment and "
            "--set) (see --help)\n");
  r = run_cli({"equalize", "--input", fixture("two-nodes.csv"), "--db", "postgresql://unused",
               "--seconds", "1"});
  EXPECT_EQ(r.code, 2);
  r = run_cli({"equalize", "--db", "postgresql://unused", "--set", "0", "--seconds", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale equalize: --db needs --experiment NAME and --set K (see --help)\n");
}

TEST(Equalize, LinearisedForComparison) {
  const auto r = run_cli({"equalize", "--input", fixture("two-nodes.csv"), "--seconds", "100",
                          "--method", "linearised"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("step 2 (linearised)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace hetscale::cli::testing
