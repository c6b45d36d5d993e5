// A bundled kernel and the plugin together: hetscale-mm under srun --mpi=pmix with
// --hetscale-weights=marked records exactly the weights the plugin injected.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "plugin_support.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

TEST(PluginKernel, MmRecordsTheInjectedWeights) {
  const Testbed tb = Testbed::from_env();
  ASSERT_TRUE(tb.has_pmix()) << "this Slurm has no mpi/pmix plugin (Debian's 26.05): the roots' Open MPI starts "
                                "ranks under srun only through PMIx; scripts/test-slurm-releases.sh leaves this test "
                                "out on such a release";
  const std::vector<std::string> step{"-w", "n2,n5", "-N2", "-n2", "--hetscale-weights=marked"};
  // What the plugin injects into this node set, task by task.
  const auto env = srun_print_env(tb.slurm_conf, step);
  ASSERT_TRUE(env.ok()) << env.describe();
  const StepEnv injected = parse_labelled_env(env.out);
  ASSERT_EQ(injected.size(), 2U) << env.out;

  const std::filesystem::path record = fresh_dir("kernel") / "mm.jsonl";
  std::vector<std::string> argv{"srun", "--mpi=pmix"};
  argv.insert(argv.end(), step.begin(), step.end());
  argv.insert(argv.end(), {HETSCALE_MM, "-N", "64", "--record", record.string()});
  const auto r = run_command(argv, 90s, {"SLURM_CONF=" + tb.slurm_conf.string()});
  ASSERT_TRUE(r.ok()) << r.describe();

  std::ifstream in(record);
  std::string line;
  ASSERT_TRUE(std::getline(in, line)) << "no record in " << record;
  const nlohmann::json rec = nlohmann::json::parse(line);
  EXPECT_EQ(rec.at("weights_source"), "marked") << line;
  EXPECT_TRUE(rec.at("verified").get<bool>()) << line;
  EXPECT_DOUBLE_EQ(rec.at("marked_speed").get<double>(), injected.at(0).number("HETSCALE_SYSTEM_SPEED"));
  // One digest for the step: what its weights came from.
  EXPECT_EQ(rec.at("weights_digest"), injected.at(0).at("HETSCALE_WEIGHTS_DIGEST")) << line;
  ASSERT_EQ(rec.at("ranks").size(), 2U) << line;
  for (const nlohmann::json& rank : rec.at("ranks")) {
    const TaskEnv& task = injected.at(rank.at("rank").get<int>());
    SCOPED_TRACE(task.node());
    EXPECT_EQ(rank.at("host"), task.node());
    // The kernel read the 17-digit text back: the same double.
    EXPECT_EQ(rank.at("weight").get<double>(), task.number("HETSCALE_WEIGHT"));
    EXPECT_EQ(rank.at("marked_speed").get<double>(), task.number("HETSCALE_MARKED_SPEED"));
  }
}

}  // namespace
}  // namespace hetscale::test
