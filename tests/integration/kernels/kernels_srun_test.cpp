// The bundled kernels on the local heterogeneous cluster, launched by srun --mpi=pmix:
// correct answers on 1 to 4 nodes, Slurm ids in the run record, clean failure on bad
// arguments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

std::string kernel(const std::string& name) { return std::string(HETSCALE_KERNEL_DIR) + "/hetscale-" + name; }

TEST(KernelsSrun, EveryKernelIsCorrectOnOneToFourNodes) {
  const Testbed tb = Testbed::from_env();
  const std::size_t most = std::min<std::size_t>(4, tb.nodes.size());
  for (const char* name : {"mm", "ge", "conv2d", "lu"}) {
    for (std::size_t ranks = 1; ranks <= most; ++ranks) {
      for (const char* n : {"3", "70"}) {  // N < ranks possible; conv2d's identity check at 70
        const std::string r = std::to_string(ranks);
        const auto result = run_command({"srun", "--mpi=pmix", "-N" + r, "-n" + r, "--ntasks-per-node=1",
                                         kernel(name), "-N", n, "--weights", "equal"},
                                        90s);
        ASSERT_TRUE(result.ok()) << name << " on " << r << " nodes, N=" << n << ": " << result.describe();
        EXPECT_NE(result.out.find("verified"), std::string::npos) << result.out;
      }
    }
  }
}

// lu at a size with several blocks per rank and several sub-panels per panel, with equal
// weights, uneven ones, and the SPANK plugin's marked weights (HETSCALE_WEIGHT per task).
TEST(KernelsSrun, LuIsCorrectOnOneToThreeNodesWithAndWithoutWeights) {
  const Testbed tb = Testbed::from_env();
  const std::size_t most = std::min<std::size_t>(3, tb.nodes.size());
  const std::vector<std::string> uneven{"1", "3,1", "1,4,2"};
  for (std::size_t ranks = 1; ranks <= most; ++ranks) {
    const std::string r = std::to_string(ranks);
    const std::vector<std::vector<std::string>> choices{
        {kernel("lu"), "-N", "300", "--weights", "equal"},
        {kernel("lu"), "-N", "300", "--weights", uneven[ranks - 1]},
        {"--hetscale-weights=marked", kernel("lu"), "-N", "300"}};
    for (const auto& choice : choices) {
      std::vector<std::string> argv{"srun", "--mpi=pmix", "-N" + r, "-n" + r, "--ntasks-per-node=1"};
      argv.insert(argv.end(), choice.begin(), choice.end());
      const auto result = run_command(argv, 90s);
      ASSERT_TRUE(result.ok()) << "lu on " << r << " nodes, " << choice.back() << ": " << result.describe();
      EXPECT_NE(result.out.find("hetscale-lu: N=300 ranks=" + r), std::string::npos) << result.out;
      EXPECT_NE(result.out.find(" verified ("), std::string::npos) << result.out;
      if (choice.front() != kernel("lu")) {
        EXPECT_NE(result.out.find("weights=marked"), std::string::npos) << result.out;
      }
    }
  }
}

TEST(KernelsSrun, RecordCarriesSlurmIdsAndOneHostPerRank) {
  const Testbed tb = Testbed::from_env();
  const std::filesystem::path record = tb.dir / "kernels-srun-record.jsonl";
  std::filesystem::remove(record);
  const auto result = run_command({"srun", "--mpi=pmix", "-N2", "-n2", "--ntasks-per-node=1", kernel("ge"), "-N",
                                   "40", "--weights", "2,1", "--record", record.string(), "--experiment", "srun"},
                                  90s);
  ASSERT_TRUE(result.ok()) << result.describe();
  std::ifstream in(record);
  std::string line;
  ASSERT_TRUE(std::getline(in, line)) << "no record in " << record;
  const nlohmann::json r = nlohmann::json::parse(line);
  EXPECT_EQ(r.at("experiment"), "srun");
  EXPECT_EQ(r.at("code"), "ge");
  EXPECT_TRUE(r.at("verified").get<bool>());
  EXPECT_TRUE(r.at("slurm").at("job_id").is_number_integer()) << line;
  EXPECT_TRUE(r.at("slurm").at("step_id").is_number_integer()) << line;
  EXPECT_FALSE(r.at("slurm").at("node_list").get<std::string>().empty()) << line;
  ASSERT_EQ(r.at("ranks").size(), 2u);
  std::set<std::string> hosts;
  for (const auto& rank : r.at("ranks")) hosts.insert(rank.at("host").get<std::string>());
  EXPECT_EQ(hosts.size(), 2u) << "each rank on its own node: " << line;
  EXPECT_NEAR(r.at("ranks")[0].at("weight").get<double>(), 2.0 / 3.0, 1e-12);
  std::filesystem::remove(record);
}

TEST(KernelsSrun, BadArgumentsFailOnEveryRankWithoutHanging) {
  const Testbed tb = Testbed::from_env();
  for (const char* name : {"mm", "ge", "conv2d", "lu"}) {
    const auto result = run_command(
        {"srun", "--mpi=pmix", "-N2", "-n2", "--ntasks-per-node=1", kernel(name), "-N", "8", "--weights", "1,-1"},
        60s);
    EXPECT_FALSE(result.timed_out) << result.describe();
    EXPECT_FALSE(result.ok()) << result.describe();
    EXPECT_NE((result.out + result.err).find("--weights: weight 2 is '-1'"), std::string::npos) << result.describe();
  }
}

}  // namespace
}  // namespace hetscale::test
