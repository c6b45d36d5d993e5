// Weights the plugin injects into real job steps (docs/admin.md): they sum to 1 and follow
// the marked speeds x CPUs of the site table, for several task layouts; a request from
// the environment; a partition FILE; and a step that did not ask gets nothing.
#include <gtest/gtest.h>

#include <numeric>

#include "plugin_support.hpp"

namespace hetscale::test {
namespace {

// The extra cluster of these tests: 3 nodes of 2, 2 and 4 CPUs (speeds 1, 1, 0.5).
ExtraCluster multi_cpu_cluster() {
  return ExtraCluster("plugin-multi", multi_cpu_layout(), "default=off cache=/var/cache/hetscale");
}

double sum_of(const StepEnv& step, const std::string& name) {
  double sum = 0;
  for (const auto& [rank, task] : step) sum += task.number(name);
  return sum;
}

// Every HETSCALE_* variable of every rank against the site table's figures.
void expect_marked_weights(const StepEnv& step, const std::vector<TestbedNode>& nodes, unsigned cpus_per_task,
                           const std::filesystem::path& site) {
  const std::map<int, double> speeds = expected_rank_speeds(step, nodes, cpus_per_task);
  const double system = std::accumulate(speeds.begin(), speeds.end(), 0.0,
                                        [](double s, const auto& kv) { return s + kv.second; });
  EXPECT_NEAR(sum_of(step, "HETSCALE_WEIGHT"), 1.0, 1e-12);
  for (const auto& [rank, task] : step) {
    SCOPED_TRACE("rank " + std::to_string(rank) + " on " + task.node());
    EXPECT_NEAR(task.number("HETSCALE_WEIGHT"), speeds.at(rank) / system, 1e-12);
    EXPECT_NEAR(task.number("HETSCALE_MARKED_SPEED"), speeds.at(rank), 1e-12);
    EXPECT_NEAR(task.number("HETSCALE_SYSTEM_SPEED"), system, 1e-12);
    EXPECT_EQ(task.at("HETSCALE_GROUP"), node_named(nodes, task.node()).group);
    EXPECT_EQ(task.at("HETSCALE_SITE"), site.string());
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "marked");
    EXPECT_EQ(task.hetscale_count(), 7U) << "only the seven variables of docs/admin.md";
    // Every node read the same table: one digest for the whole step.
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_DIGEST").size(), 64U);
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_DIGEST"), step.begin()->second.at("HETSCALE_WEIGHTS_DIGEST"));
  }
  EXPECT_NEAR(sum_of(step, "HETSCALE_MARKED_SPEED"), step.begin()->second.number("HETSCALE_SYSTEM_SPEED"), 1e-12);
}

TEST(PluginWeights, EveryTestbedNodeGetsItsMarkedShare) {
  const Testbed tb = Testbed::from_env();
  const std::string n = std::to_string(tb.nodes.size());
  const auto r = srun_print_env(tb.slurm_conf, {"-N" + n, "-n" + n, "--hetscale-weights=marked"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), tb.nodes.size()) << r.out;
  EXPECT_EQ(tasks_per_node(step).size(), tb.nodes.size()) << "one task per node";
  expect_marked_weights(step, tb.nodes, 1, tb.site_table());
  // The layout's speeds differ, so the shares must too: 1.0 vs 0.5 per CPU.
  const TaskEnv& fast = step.at(0);
  const TaskEnv& slow = std::prev(step.end())->second;
  EXPECT_NEAR(fast.number("HETSCALE_WEIGHT") / slow.number("HETSCALE_WEIGHT"),
              node_named(tb.nodes, fast.node()).speed / node_named(tb.nodes, slow.node()).speed, 1e-12);
}

TEST(PluginWeights, ThreeNodesSixTasksFollowSpeedTimesCpus) {
  const ExtraCluster cluster = multi_cpu_cluster();
  const auto r = srun_print_env(cluster.slurm_conf(), {"-N3", "-n6", "--ntasks-per-node=2", "--hetscale-weights=marked"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 6U) << r.out;
  EXPECT_EQ(tasks_per_node(step), (std::map<std::string, unsigned>{{"p1", 2}, {"p2", 2}, {"p3", 2}}));
  expect_marked_weights(step, cluster.nodes(), 1, cluster.site_table());
  // p1 (speed 1.0) : p3 (speed 0.5), one CPU per task: 1.0 / (4 x 1.0 + 2 x 0.5) = 0.2.
  for (const auto& [rank, task] : step)
    EXPECT_NEAR(task.number("HETSCALE_WEIGHT"), task.node() == "p3" ? 0.1 : 0.2, 1e-12) << task.node();
}

TEST(PluginWeights, CpusPerTaskMultiplyTheRankSpeed) {
  const ExtraCluster cluster = multi_cpu_cluster();
  const auto r = srun_print_env(cluster.slurm_conf(),
                                {"-w", "p1,p3", "-n3", "--cpus-per-task=2", "--distribution=block",
                                 "--hetscale-weights=marked"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 3U) << r.out;
  EXPECT_EQ(tasks_per_node(step), (std::map<std::string, unsigned>{{"p1", 1}, {"p3", 2}}));
  for (const auto& [rank, task] : step) EXPECT_EQ(task.at("SLURM_CPUS_PER_TASK"), "2");
  expect_marked_weights(step, cluster.nodes(), 2, cluster.site_table());
  // p1: 2 CPUs x 1.0 = 2; p3: 2 ranks x 2 CPUs x 0.5 = 2 in all: C = 4.
  EXPECT_NEAR(step.at(0).number("HETSCALE_SYSTEM_SPEED"), 4.0, 1e-12);
}

TEST(PluginWeights, UnevenTasksPerNodeOnAHeterogeneousStep) {
  const ExtraCluster cluster = multi_cpu_cluster();
  const auto r = srun_print_env(cluster.slurm_conf(),
                                {"-w", "p1,p3", "-n6", "--distribution=block", "--hetscale-weights=marked"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 6U) << r.out;
  EXPECT_EQ(tasks_per_node(step), (std::map<std::string, unsigned>{{"p1", 2}, {"p3", 4}}));
  expect_marked_weights(step, cluster.nodes(), 1, cluster.site_table());
  // C = 2 x 1.0 + 4 x 0.5 = 4: a p1 rank gets 0.25, a p3 rank 0.125.
  for (const auto& [rank, task] : step)
    EXPECT_NEAR(task.number("HETSCALE_WEIGHT"), task.node() == "p1" ? 0.25 : 0.125, 1e-12) << task.node();
}

TEST(PluginWeights, RequestFromTheEnvironment) {
  const Testbed tb = Testbed::from_env();
  const auto r = srun_print_env(tb.slurm_conf, {"-w", "n2,n4", "-N2", "-n2"}, {"HETSCALE_WEIGHTS=marked"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 2U) << r.out;
  for (const auto& [rank, task] : step) {
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "marked");
    EXPECT_NEAR(task.number("HETSCALE_WEIGHT"), task.node() == "n2" ? 2.0 / 3 : 1.0 / 3, 1e-12);
  }
}

TEST(PluginWeights, CommandLineOffWinsOverTheEnvironment) {
  const Testbed tb = Testbed::from_env();
  const auto r = srun_print_env(tb.slurm_conf, {"-N2", "-n2", "--hetscale-weights=off"}, {"HETSCALE_WEIGHTS=marked"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 2U) << r.out;
  for (const auto& [rank, task] : step) EXPECT_FALSE(task.has("HETSCALE_WEIGHT")) << r.out;
}

TEST(PluginWeights, PartitionFileByNodeGivesItsWeights) {
  const Testbed tb = Testbed::from_env();
  const std::filesystem::path dir = fresh_dir("by-node");
  const std::filesystem::path file = dir / "part.toml";
  write_text(file, "[partition]\nby = \"node\"\nsite = \"testbed\"\n\n"
                   "[[node]]\nname = \"n1\"\nweight = 3\n\n[[node]]\nname = \"n4\"\nweight = 1\n");
  const auto r = srun_print_env(tb.slurm_conf, {"-w", "n1,n4", "-N2", "-n2", "--hetscale-weights=" + file.string()});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 2U) << r.out;
  for (const auto& [rank, task] : step) {
    SCOPED_TRACE(task.node());
    EXPECT_EQ(task.at("HETSCALE_WEIGHTS_SOURCE"), "file");
    EXPECT_NEAR(task.number("HETSCALE_WEIGHT"), task.node() == "n1" ? 0.75 : 0.25, 1e-12);
    // Speeds stay the site table's marked figures (docs/partition-file.md).
    EXPECT_NEAR(task.number("HETSCALE_MARKED_SPEED"), node_named(tb.nodes, task.node()).speed, 1e-12);
    EXPECT_NEAR(task.number("HETSCALE_SYSTEM_SPEED"), 1.5, 1e-12);
  }
}

TEST(PluginWeights, AStepThatDoesNotAskIsUntouched) {
  const Testbed tb = Testbed::from_env();
  const auto r = srun_print_env(tb.slurm_conf, {"-N3", "-n3"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const StepEnv step = parse_labelled_env(r.out);
  ASSERT_EQ(step.size(), 3U) << "every task printed SLURMD_NODENAME: " << r.out;
  for (const auto& [rank, task] : step) EXPECT_EQ(task.hetscale_count(), 0U) << r.out;
  EXPECT_TRUE(hetscale_lines(r.err).empty()) << r.err;
}

}  // namespace
}  // namespace hetscale::test
