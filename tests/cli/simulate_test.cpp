#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

std::string fixture(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/cli/" + name;
}

TEST(Simulate, ComparesPartitionsReproducibly) {
  const std::vector<std::string> args{"simulate",
                                      "--computers",
                                      fixture("computers.csv"),
                                      "--repetitions",
                                      "300",
                                      "--seed",
                                      "5",
                                      "--interval",
                                      "10",
                                      "--partition",
                                      "proportional",
                                      "--partition",
                                      "equalized",
                                      "--partition",
                                      "optimised",
                                      "--format",
                                      "json"};
  const auto first = run_cli(args);
  ASSERT_EQ(first.code, 0) << first.err;
  const auto j = nlohmann::json::parse(first.out);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["partition"], "proportional");
  EXPECT_EQ(j[0]["gain_vs_first"], 0.0);
  // Many nodes of mixed variability: equalization lowers tau, the optimiser does no worse.
  EXPECT_LT(j[1]["tau"].get<double>(), j[0]["tau"].get<double>());
  EXPECT_LE(j[2]["tau"].get<double>(), j[1]["tau"].get<double>() * (1 + 1e-12));
  EXPECT_LT(j[1]["degree"].get<double>(), 1e-6);
  EXPECT_EQ(run_cli(args).out, first.out);  // same seed, same figures
}

TEST(Simulate, ATypoInTheHeaderIsAnErrorWithItsPlace) {
  const auto r = run_cli({"simulate", "--computers", fixture("computers-typo.csv")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale simulate: " + fixture("computers-typo.csv") +
                       ":1:16: unknown column 'availabilty' (known: name, max_power, availability, "
                       "availability_sd, work)\n");
}

TEST(Simulate, UnknownPartitionIsBadUsage) {
  const auto r =
      run_cli({"simulate", "--computers", fixture("computers.csv"), "--partition", "best"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(
      r.err,
      "hetscale simulate: --partition: unknown partition 'best' (given, proportional, equalized, "
      "linearised, step2, optimum, optimised) (see --help)\n");
}

}  // namespace
}  // namespace hetscale::cli::testing
