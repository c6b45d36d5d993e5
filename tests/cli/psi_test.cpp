#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

TEST(Psi, MatrixMultiplicationByHand) {
  // W = 2e9 on C = 100, W' = 2 * 1300^3 = 4.394e9 on C' = 200: psi = 200 * 2e9 / (100 * 4.394e9).
  const auto r = run_cli({"psi", "--workload", "mm", "--point", "100:1000", "--point", "200:1300",
                          "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_NEAR(j[0]["psi"].get<double>(), 4.0 / 4.394, 1e-12);
  EXPECT_EQ(j[0]["from_parameter"], "1000");
}

TEST(Psi, OneLinePerConsecutivePair) {
  // Ideal scaling: W doubles with C, so psi = 1 for each pair. For 2 N^3, N grows by 2^(1/3).
  const auto r = run_cli(
      {"psi", "--workload", "N", "--point", "10:100", "--point", "20:200", "--point", "40:300"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "psi(10, 20) = 1  (N: 100 -> 200, W: 100 -> 200)\n"
            "psi(20, 40) = 1.33333  (N: 200 -> 300, W: 200 -> 300)\n");
}

TEST(Psi, ConvolutionBuiltinAndNamedParameters) {
  // conv2d at N = 1024 (lg N = 10): 66*2^20*10 + 21*2^20 + 84*1024*10 = 714940416.
  const auto r = run_cli({"psi", "--workload", "conv2d", "--point", "1:N=1024", "--point",
                          "2:N=1024", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "from_speed,from_parameter,from_work,to_speed,to_parameter,to_work,psi\n"
            "1,N=1024,714940416,2,N=1024,714940416,2\n");
}

TEST(Psi, SeveralParametersNeedNames) {
  auto r = run_cli({"psi", "--workload", "N*M", "--point", "1:2", "--point", "2:3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(
      r.err,
      "hetscale psi: --point '1:2': the workload has 2 parameters; write SPEED:NAME=VALUE,... "
      "(see --help)\n");
  r = run_cli({"psi", "--workload", "N*M", "--point", "1:N=2,M=3", "--point", "2:N=3,M=4",
               "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(r.out)[0]["psi"].get<double>(), 2.0 * 6 / 12, 1e-12);
}

TEST(Psi, BadPoints) {
  auto r = run_cli({"psi", "--workload", "mm", "--point", "100:1000"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale psi: --point: give at least two points (C:N), one per system (see --help)\n");
  r = run_cli({"psi", "--workload", "mm", "--point", "100-1000", "--point", "1:2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale psi: --point: expected SPEED:PARAMETER, got '100-1000' (see --help)\n");
  r = run_cli({"psi", "--workload", "mm", "--point", "0:1000", "--point", "1:2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale psi: --point '0:1000': the marked speed must be positive (see --help)\n");
}

}  // namespace
}  // namespace hetscale::cli::testing
