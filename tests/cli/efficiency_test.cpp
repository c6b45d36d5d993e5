#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

TEST(Efficiency, MatrixMultiplicationByHand) {
  // W = 2 N^3 = 2e9 flop in 10 s on 400 Mflops: E_s = 2e9 / (10 * 4e8) = 0.5.
  const auto r = run_cli(
      {"efficiency", "--workload", "mm", "--speed", "400", "--param", "N=1000", "--seconds", "10"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "E_s = 0.5  (W = 2e+09 operations, T = 10 s, S = W/T = 200 Mflops, C = 400 Mflops)\n");
}

TEST(Efficiency, GaussianEliminationByHandAsJson) {
  // W(100) = 2/3 1e6 - 1/2 1e4 - (3 + 1/6) 100 + 3 = 661353 exactly.
  const auto r = run_cli({"efficiency", "--workload", "ge", "--speed", "100", "--param", "N=100",
                          "--seconds", "0.01", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_NEAR(j[0]["work"].get<double>(), 661353.0, 1e-6);
  EXPECT_NEAR(j[0]["speed_efficiency"].get<double>(), 0.661353, 1e-9);
  EXPECT_EQ(j[0]["unit"], "Mflops");
}

TEST(Efficiency, UnitsScaleTheMarkedSpeed) {
  const auto r = run_cli({"efficiency", "--workload", "2*N^3", "--speed", "4e8", "--unit", "flops",
                          "--param", "N=1000", "--seconds", "10", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "workload,work,seconds,achieved_speed,marked_speed,unit,speed_efficiency\n"
            "2*N^3,2000000000,10,200000000,400000000,flops,0.5\n");
}

TEST(Efficiency, BadUsageIsExitTwoWithOneLine) {
  auto r = run_cli(
      {"efficiency", "--workload", "2*N^", "--speed", "1", "--param", "N=1", "--seconds", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("hetscale efficiency: --workload '2*N^': column 5:"), std::string::npos)
      << r.err;

  r = run_cli(
      {"efficiency", "--workload", "mm", "--speed", "1", "--param", "N=abc", "--seconds", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale efficiency: --param: 'abc' is not a number (see --help)\n");

  r = run_cli(
      {"efficiency", "--workload", "mm", "--speed", "1", "--param", "M=3", "--seconds", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale efficiency: --param: the workload 'mm' has no parameter 'M' (see --help)\n");

  r = run_cli(
      {"efficiency", "--workload", "mm", "--speed", "-1", "--param", "N=3", "--seconds", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  r = run_cli(
      {"efficiency", "--workload", "N-10", "--speed", "1", "--param", "N=3", "--seconds", "1"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(
      r.err,
      "hetscale efficiency: the workload 'N-10' gives W = -7 for these parameters; it must be a "
      "positive, finite amount of work\n");
}

TEST(Efficiency, HelpIsExitZero) {
  const auto r = run_cli({"efficiency", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--workload"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--seconds"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace hetscale::cli::testing
