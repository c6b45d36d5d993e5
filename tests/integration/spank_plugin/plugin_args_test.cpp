// The plugstack arguments that change what jobs get, on a cluster of the test's own (the
// shared testbed's plugstack is fixed at `default=off` and `on_missing=fail`).
#include <gtest/gtest.h>

#include "plugin_support.hpp"

namespace hetscale::test {
namespace {

TEST(PluginArgs, DefaultMarkedWeighsAStepThatDoesNotAsk) {
  const ExtraCluster cluster("plugin-default", multi_cpu_layout(), "default=marked cache=/var/cache/hetscale");
  const auto r = srun_print_env(cluster.slurm_conf(), {"-N3", "-n3"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 3U) << r.out;
  for (const auto& [rank, task] : step) {
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "marked");
    // C = 1.0 + 1.0 + 0.5 (one CPU per task).
    EXPECT_NEAR(task.number("HETSCALE_WEIGHT"), task.node() == "p3" ? 0.2 : 0.4, 1e-12) << task.node();
  }
  // A job opts out.
  const auto off = srun_print_env(cluster.slurm_conf(), {"-N3", "-n3", "--hetscale-weights=off"});
  ASSERT_TRUE(off.ok()) << off.describe();
  const StepEnv unweighted = parse_labelled_env(off.out);
  ASSERT_EQ(unweighted.size(), 3U) << off.out;
  for (const auto& [rank, task] : unweighted) EXPECT_EQ(task.hetscale_count(), 0U) << off.out;
}

TEST(PluginArgs, OnMissingEqualFallsBackToSharesByCpus) {
  const ExtraCluster cluster("plugin-equal", multi_cpu_layout(), "default=off on_missing=equal cache=/var/cache/hetscale");
  // The cluster's own table, without p3.
  write_text(cluster.site_table(), site_table_without(cluster.site_table(), "p3"));

  const auto r = srun_print_env(cluster.slurm_conf(),
                                {"-w", "p1,p3", "-n3", "--distribution=block", "--hetscale-weights=marked"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 3U) << r.out;
  EXPECT_EQ(tasks_per_node(step), (std::map<std::string, unsigned>{{"p1", 2}, {"p3", 1}}));
  for (const auto& [rank, task] : step) {
    SCOPED_TRACE(task.node());
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "equal");
    EXPECT_EQ(task.at("HETSCALE_GROUP"), task.node() == "p3" ? "unknown" : "fast");
    EXPECT_NEAR(task.number("HETSCALE_WEIGHT"), 1.0 / 3, 1e-12) << "one CPU each";
  }
}

}  // namespace
}  // namespace hetscale::test
