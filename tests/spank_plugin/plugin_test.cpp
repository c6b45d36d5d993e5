// The plugin's hooks driven through FakeSlurm, one step at a time, as slurmstepd would:
// configure -> on_option -> prepare_step -> task_init per task.
#include "plugin.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "fake_slurm.hpp"

namespace hetscale::spank {
namespace {

SiteTable test_table() {
  SiteTable table;
  table.name = "test";
  table.source = "/etc/hetscale/site.toml";
  table.groups = {{"fast", 40.0, {}}, {"slow", 10.0, {}}};
  table.nodes = {{"n1", "fast", 4, 40.0, NodeState::ok, {}},
                 {"n2", "slow", 4, 10.0, NodeState::ok, {}},
                 {"n3", "slow", 4, 20.0, NodeState::ok, {}}};
  table.index();
  return table;
}

SiteTable broken_table(const std::filesystem::path&) {
  throw ConfigError({"/etc/hetscale/site.toml", 3, 1}, "unknown key 'speed'");
}

class PluginTest : public ::testing::Test {
 protected:
  FakeSlurm slurm;

  Plugin make(std::vector<std::string> args, SiteTableLoader loader = nullptr) {
    Plugin plugin(loader ? loader : [](const std::filesystem::path&) { return test_table(); });
    bool has_cache = std::any_of(args.begin(), args.end(),
                                 [](const std::string& a) { return a.rfind("cache=", 0) == 0; });
    if (!has_cache) args.push_back("cache=off");  // the table is in memory, not on disk
    plugin.configure(args, slurm);
    return plugin;
  }

  // Runs task_init for one task and returns the HETSCALE_WEIGHT it got.
  double weight_of(Plugin& plugin, const std::string& node, std::uint64_t rank) {
    slurm.task(node, rank);
    EXPECT_EQ(plugin.task_init(slurm), 0) << (slurm.errors.empty() ? "" : slurm.errors.back());
    return std::stod(slurm.env.at("HETSCALE_WEIGHT"));
  }

  // Weights of every task of a block-distributed step.
  std::vector<double> all_weights(Plugin& plugin, std::vector<std::pair<std::string, int>> layout) {
    std::vector<double> out;
    std::uint64_t rank = 0;
    for (auto& [node, tasks] : layout) {
      for (int t = 0; t < tasks; ++t) out.push_back(weight_of(plugin, node, rank++));
    }
    return out;
  }
};

double sum(const std::vector<double>& values) {
  double total = 0;
  for (double v : values) total += v;
  return total;
}

TEST_F(PluginTest, JobThatDidNotAskIsUntouchedEvenWithABrokenTable) {
  Plugin plugin = make({}, broken_table);
  slurm.step("n[1-3]", {"n1", "n2", "n3"}, "2(x3)");
  EXPECT_EQ(plugin.check_request(slurm), 0);
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), 0);
  for (const auto& [name, value] : slurm.env) EXPECT_NE(name.rfind("HETSCALE_", 0), 0u) << name;
  EXPECT_TRUE(slurm.errors.empty());
}

TEST_F(PluginTest, MarkedWeightsSumToOneAndFollowSpeeds) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n[1-3]", {"n1", "n2", "n3"}, "2(x3)");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  std::vector<double> w = all_weights(plugin, {{"n1", 2}, {"n2", 2}, {"n3", 2}});
  EXPECT_NEAR(sum(w), 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(w[0], 40.0 / 140.0);
  EXPECT_DOUBLE_EQ(w[3], 10.0 / 140.0);
  EXPECT_DOUBLE_EQ(w[5], 20.0 / 140.0);
  EXPECT_EQ(slurm.env.at("HETSCALE_MARKED_SPEED"), "20");
  EXPECT_EQ(slurm.env.at("HETSCALE_SYSTEM_SPEED"), "140");
  EXPECT_EQ(slurm.env.at("HETSCALE_GROUP"), "slow");
  EXPECT_EQ(slurm.env.at("HETSCALE_WEIGHTS_SOURCE"), "marked");
  EXPECT_EQ(slurm.env.at("HETSCALE_SITE"), "/etc/hetscale/site.toml");
  EXPECT_EQ(slurm.env.at("HETSCALE_WEIGHT"), "0.14285714285714285");
}

TEST_F(PluginTest, CpusPerTaskAndUnevenTasksPerNode) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n[1-2]", {"n1", "n2"}, "1,2", 2);
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  std::vector<double> w = all_weights(plugin, {{"n1", 1}, {"n2", 2}});
  EXPECT_NEAR(sum(w), 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(w[0], 80.0 / 120.0);
  EXPECT_EQ(slurm.env.at("HETSCALE_MARKED_SPEED"), "20");
}

TEST_F(PluginTest, SiteDefaultMarkedAppliesWithoutTheOption) {
  Plugin plugin = make({"default=marked"});
  slurm.step("n1", {"n1"}, "2");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  EXPECT_DOUBLE_EQ(weight_of(plugin, "n1", 1), 0.5);
  ASSERT_EQ(plugin.on_option("off"), std::nullopt);  // a job may still opt out
  EXPECT_FALSE(plugin.effective_request().wants_weights());
}

TEST_F(PluginTest, MissingNodeFailsTheTaskWithOneMessage) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n[1,9]", {"n1", "n9"}, "1(x2)");
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(),
            "hetscale: weights: node n9 of the step is not in site table /etc/hetscale/site.toml");
  EXPECT_EQ(slurm.errors.size(), 1u);  // once per node, not once per task
  slurm.task("n9", 1);
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.size(), 1u);
  EXPECT_FALSE(slurm.env.contains("HETSCALE_WEIGHT"));
}

TEST_F(PluginTest, MissingNodeWithOnMissingEqual) {
  Plugin plugin = make({"on_missing=equal"});
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n[1,9]", {"n1", "n9"}, "1(x2)");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  EXPECT_DOUBLE_EQ(weight_of(plugin, "n9", 1), 0.5);
  EXPECT_EQ(slurm.env.at("HETSCALE_WEIGHTS_SOURCE"), "equal");
  EXPECT_EQ(slurm.env.at("HETSCALE_GROUP"), "unknown");
}

TEST_F(PluginTest, MalformedTableFailsAJobThatAsked) {
  Plugin plugin = make({}, broken_table);
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n1", {"n1"}, "1");
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(),
            "hetscale: table: /etc/hetscale/site.toml:3:1: unknown key 'speed'");
}

TEST_F(PluginTest, BadOptionValueIsRefused) {
  Plugin plugin = make({});
  EXPECT_EQ(plugin.on_option("markd"),
            "hetscale: option: bad value 'markd' for --hetscale-weights (off, marked, equalized or "
            "a partition file path containing '/', e.g. ./part.toml)");
  EXPECT_NE(plugin.on_option(nullptr), std::nullopt);
}

TEST_F(PluginTest, BadPlugstackArgumentsOnlyHurtJobsThatAsk) {
  Plugin quiet = make({"colour=blue"});
  EXPECT_EQ(quiet.check_request(slurm), 0);
  slurm.step("n1", {"n1"}, "1");
  EXPECT_EQ(quiet.prepare_step(slurm), 0);
  ASSERT_EQ(slurm.errors.size(), 1u);  // logged for the admin, once per step
  slurm.task("n1", 0);
  EXPECT_EQ(quiet.task_init(slurm), 0);
  EXPECT_FALSE(slurm.env.contains("HETSCALE_WEIGHT"));

  const std::string expected =
      "hetscale: config: unknown argument 'colour=blue' (keys: site, default, partitions, "
      "on_missing, cache)";
  Plugin asking = make({"colour=blue"});
  ASSERT_EQ(asking.on_option("marked"), std::nullopt);
  EXPECT_EQ(asking.check_request(slurm), -1);
  EXPECT_EQ(slurm.errors.back(), expected);
  EXPECT_EQ(asking.prepare_step(slurm), 0);
  EXPECT_EQ(asking.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(), expected);
}

TEST_F(PluginTest, UserFileRelativeToTheStepDirectory) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("./part.toml"), std::nullopt);
  slurm.env["PWD"] = "/home/u/run";
  slurm.user_files["/home/u/run/./part.toml"] =
      "[partition]\nby = \"node\"\n[[node]]\nname = \"n1\"\nweight = 1\n"
      "[[node]]\nname = \"n2\"\nweight = 3\n";
  slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  EXPECT_DOUBLE_EQ(weight_of(plugin, "n2", 1), 0.75);
  EXPECT_EQ(slurm.env.at("HETSCALE_WEIGHTS_SOURCE"), "file");
  EXPECT_EQ(slurm.env.at("HETSCALE_MARKED_SPEED"), "10");
}

TEST_F(PluginTest, UnreadableUserFile) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("/home/u/none.toml"), std::nullopt);
  slurm.step("n1", {"n1"}, "1");
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(),
            "hetscale: partition: cannot read /home/u/none.toml: No such file or directory");
}

TEST_F(PluginTest, PartitionNotMatchingTheStep) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("/p.toml"), std::nullopt);
  slurm.user_files["/p.toml"] = "[partition]\nby = \"rank\"\n[[rank]]\nrank = 0\nweight = 1\n";
  slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(),
            "hetscale: partition: partition /p.toml does not list rank 1 of the step");
}

TEST_F(PluginTest, EqualizedPartitionFromTheSiteDirectory) {
  std::filesystem::path dir = std::filesystem::path(HETSCALE_BINARY_DIR) / "plugin_test_partitions";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "n[1-2].toml") << "[partition]\nby = \"node\"\nsite = \"test\"\n"
                                        "[[node]]\nname = \"n1\"\nweight = 0.2\n"
                                        "[[node]]\nname = \"n2\"\nweight = 0.8\n";
  Plugin plugin = make({"partitions=" + dir.string()});
  ASSERT_EQ(plugin.on_option("equalized"), std::nullopt);
  slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  EXPECT_DOUBLE_EQ(weight_of(plugin, "n1", 0), 0.2);
  EXPECT_EQ(slurm.env.at("HETSCALE_WEIGHTS_SOURCE"), "equalized");

  Plugin missing = make({"partitions=" + dir.string()});
  ASSERT_EQ(missing.on_option("equalized"), std::nullopt);
  slurm.step("n[1-3]", {"n1", "n2", "n3"}, "1(x3)");
  EXPECT_EQ(missing.prepare_step(slurm), 0);
  EXPECT_EQ(missing.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(),
            "hetscale: partition: no equalized partition for nodes n[1-3] (expected " +
                (dir / "n[1-3].toml").string() + ")");
}

TEST_F(PluginTest, BatchStepHandsTheRequestOnAndGetsNoWeights) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n[1-3]", {"n1", "n2", "n3"}, "1(x3)", 1, 0xfffffffb);
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), 0);
  EXPECT_EQ(slurm.env.at(kRequestEnv), "marked");
  EXPECT_FALSE(slurm.env.contains("HETSCALE_WEIGHT"));
}

TEST_F(PluginTest, RequestFromTheEnvironmentBecomesTheSlurmOption) {
  Plugin plugin = make({});
  slurm.env[kRequestEnv] = "marked";
  plugin.import_request_env(slurm);
  EXPECT_EQ(slurm.env.at(kSlurmOptionEnv), "marked");
  slurm.env[kSlurmOptionEnv] = "off";  // set by the user: kept
  plugin.import_request_env(slurm);
  EXPECT_EQ(slurm.env.at(kSlurmOptionEnv), "off");
  EXPECT_EQ(plugin.check_request(slurm), 0);
  EXPECT_FALSE(slurm.env.contains(kSlurmOptionEnv));  // not leaked into the tasks
}

TEST_F(PluginTest, AllocatorExportsAnExplicitRequestOnly) {
  Plugin plugin = make({"default=marked"});
  plugin.export_request(slurm);
  EXPECT_FALSE(slurm.env.contains(kRequestEnv));  // the site default is not a request
  ASSERT_EQ(plugin.on_option("./p.toml"), std::nullopt);
  plugin.export_request(slurm);
  EXPECT_EQ(slurm.env.at(kRequestEnv), "./p.toml");
}

TEST_F(PluginTest, RefusedSetenvFailsTheTask) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n1", {"n1"}, "1");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  slurm.refuse_setenv = true;
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(), "hetscale: env: cannot set HETSCALE_WEIGHT");
}

TEST_F(PluginTest, MissingStepEnvironment) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.items[Item::step_id] = 0;
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(), "hetscale: step: SLURM_STEP_NODELIST is not set");
}

TEST_F(PluginTest, UnexpectedExceptionsBecomeInternalErrors) {
  Plugin plugin =
      make({}, [](const std::filesystem::path&) -> SiteTable { throw std::runtime_error("boom"); });
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n1", {"n1"}, "1");
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(), "hetscale: internal: boom");
}

TEST_F(PluginTest, TenThousandNodeTable) {
  SiteTable big;
  big.name = "big";
  big.groups = {{"g", 1.0, {}}};
  std::vector<std::string> hosts;
  for (int i = 0; i < 10000; ++i) {
    big.nodes.push_back({"c" + std::to_string(i), "g", 1, 1.0 + i % 3, NodeState::ok, {}});
    if (i % 10 == 0) hosts.push_back("c" + std::to_string(i));
  }
  big.index();
  Plugin plugin = make({}, [&](const std::filesystem::path&) { return big; });
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("c-big", hosts, "1(x1000)");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  double total = 0;
  for (std::uint64_t r = 0; r < hosts.size(); ++r) total += weight_of(plugin, hosts[r], r);
  EXPECT_NEAR(total, 1.0, 1e-12);
}

}  // namespace
}  // namespace hetscale::spank
