// A plugin built for another Slurm release, named by the snippet's `optional` line
// (docs/admin.md, "required or optional"): Slurm refuses to load it, and then every step
// that did not ask runs as if there were no plugin, while one that asks fails at once with
// a message that says why, never hangs and never runs unweighted. The foreign build is
// HETSCALE_TEST_FOREIGN_PLUGIN, else (on a cluster of another release than this
// machine's) the plugin of this build tree; scripts/test-slurm-releases.sh runs the test
// both ways for every release.
#include <gtest/gtest.h>

#include <cstdlib>

#include "plugin_support.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kRanMarker = "the-task-ran";

std::filesystem::path foreign_plugin(const Testbed& tb) {
  if (const char* named = std::getenv("HETSCALE_TEST_FOREIGN_PLUGIN"); named && *named) return named;
  if (!fixture_release(tb).empty()) return HETSCALE_HOST_SPANK_SO;
  return {};
}

CommandResult run(const Testbed& tb, std::vector<std::string> argv, std::vector<std::string> env = {}) {
  env.push_back("SLURM_CONF=" + tb.slurm_conf.string());
  return run_command(argv, 60s, env);
}

TEST(PluginAcrossReleases, AForeignBuildRunsStepsThatDoNotAskAndFailsThoseThatDo) {
  const Testbed tb = Testbed::from_env();
  const std::filesystem::path foreign = foreign_plugin(tb);
  ASSERT_FALSE(foreign.empty()) << "no plugin of another Slurm release: set HETSCALE_TEST_FOREIGN_PLUGIN "
                                   "(scripts/test-slurm-releases.sh does; scripts/test.sh leaves this test out of "
                                   "this machine's own integration run)";
  ASSERT_TRUE(std::filesystem::exists(foreign)) << foreign;
  ASSERT_NE(foreign, fixture_plugin(tb)) << "the foreign plugin is the cluster's own";
  const std::filesystem::path plugstack = tb.dir / "plugstack.conf";
  const FileOverride line(plugstack, "optional " + foreign.string() + " site=" + tb.site_table().string() +
                                         " default=marked\n");

  // Slurm does not load it: srun has no --hetscale-weights.
  const auto help = run(tb, {"srun", "--help"});
  ASSERT_TRUE(help.ok()) << help.describe();
  EXPECT_EQ(help.out.find("--hetscale-weights"), std::string::npos) << "the foreign build was loaded";

  // Steps and jobs that do not ask run, as root and as an unprivileged user, and get nothing.
  const auto plain = srun_print_env(tb.slurm_conf, {"-N2", "-n2"});
  ASSERT_TRUE(plain.ok()) << plain.describe();
  const StepEnv step = parse_labelled_env(plain.out);
  ASSERT_EQ(step.size(), 2U) << plain.out;
  for (const auto& [rank, task] : step) EXPECT_EQ(task.hetscale_count(), 0U) << plain.out;
  const auto user = run(tb, {"runuser", "-u", "hetscale-test", "--", "srun", "--chdir=/tmp", "-N1", "echo", kRanMarker});
  EXPECT_TRUE(user.ok()) << user.describe();
  EXPECT_NE(user.out.find(kRanMarker), std::string::npos) << user.describe();
  const auto batch = run(tb, {"sbatch", "--wait", "-o", "/dev/null", "--wrap", "srun true"});
  EXPECT_TRUE(batch.ok()) << batch.describe();

  // A step or job that asks on the command line is refused before anything runs.
  const auto asks = run(tb, {"srun", "-N1", "--hetscale-weights=marked", "echo", kRanMarker});
  EXPECT_FALSE(asks.timed_out) << asks.describe();
  EXPECT_NE(asks.exit_code, 0) << asks.describe();
  EXPECT_EQ(asks.out.find(kRanMarker), std::string::npos) << "the task ran: " << asks.describe();
  EXPECT_NE(asks.err.find("unrecognized option '--hetscale-weights=marked'"), std::string::npos) << asks.err;
  const auto sbatch = run(tb, {"sbatch", "--hetscale-weights=marked", "-o", "/dev/null", "--wrap", "true"});
  EXPECT_NE(sbatch.exit_code, 0) << sbatch.describe();
  EXPECT_EQ(sbatch.out.find("Submitted batch job"), std::string::npos) << sbatch.describe();

  // A kernel step that asks through the environment fails with hetscale's message: the
  // plugin that would have weighed it did not run.
  // (Two ranks through PMIx; one, an MPI singleton, on a Slurm without it.)
  std::vector<std::string> mm_step{"srun", "--mpi=pmix", "-N2", "-n2", HETSCALE_MM, "-N", "64"};
  if (!tb.has_pmix()) mm_step = {"srun", "-N1", "-n1", HETSCALE_MM, "-N", "64"};
  const auto mm = run(tb, mm_step, {"HETSCALE_WEIGHTS=marked"});
  EXPECT_FALSE(mm.timed_out) << mm.describe();
  EXPECT_NE(mm.exit_code, 0) << mm.describe();
  EXPECT_NE(mm.err.find("hetscale: weights: the step asked for weights (HETSCALE_WEIGHTS=marked)"), std::string::npos)
      << mm.describe();
}

}  // namespace
}  // namespace hetscale::test
