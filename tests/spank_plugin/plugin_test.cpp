// The plugin's hooks driven through FakeSlurm, one step at a time, as slurmstepd would:
// configure -> on_option -> prepare_step -> task_init per task.
#include "plugin.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/partition_file.hpp"

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
    plugin.configure(args);
    return plugin;
  }

  // Runs task_init for one task and returns the HETSCALE_WEIGHT it got.
  double weight_of(Plugin& plugin, const std::string& node, std::uint64_t rank) {
    slurm.task(node, rank);
    EXPECT_EQ(plugin.task_init(slurm), 0) << (slurm.errors.empty() ? "" : slurm.errors.back());
    return std::stod(slurm.env.at("HETSCALE_WEIGHT"));
  }

  // Weights of every task of a block-distributed step, as slurmstepd computes them: on
  // each node a plugin of its own (from `fresh`), prepared there, then the node's tasks.
  std::vector<double> all_weights(const std::function<Plugin()>& fresh,
                                  std::vector<std::pair<std::string, int>> layout) {
    std::vector<double> out;
    std::uint64_t rank = 0;
    for (auto& [node, tasks] : layout) {
      Plugin plugin = fresh();
      slurm.on_node(node);
      EXPECT_EQ(plugin.prepare_step(slurm), 0);
      for (int t = 0; t < tasks; ++t) out.push_back(weight_of(plugin, node, rank++));
    }
    return out;
  }

  // A plugin configured with `args` whose job asked with --hetscale-weights=`option`.
  std::function<Plugin()> asking(std::vector<std::string> args, std::string option) {
    return [this, args, option] {
      Plugin plugin = make(args);
      EXPECT_EQ(plugin.on_option(option.c_str()), std::nullopt);
      return plugin;
    };
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
  slurm.step("n[1-3]", {"n1", "n2", "n3"}, "2(x3)");
  std::vector<double> w = all_weights(asking({}, "marked"), {{"n1", 2}, {"n2", 2}, {"n3", 2}});
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
  slurm.step("n[1-2]", {"n1", "n2"}, "1,2", 2);
  std::vector<double> w = all_weights(asking({}, "marked"), {{"n1", 1}, {"n2", 2}});
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
  slurm.on_node("n9");
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
  const std::string expected =
      "hetscale: config: unknown argument 'colour=blue' (keys: site, default, partitions, "
      "on_missing, cache)";
  Plugin quiet = make({"colour=blue"});
  EXPECT_EQ(quiet.check_request(slurm), 0);
  slurm.step("n1", {"n1"}, "1");
  EXPECT_EQ(quiet.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(quiet.task_init(slurm), 0);
  EXPECT_FALSE(slurm.env.contains("HETSCALE_WEIGHT"));
  EXPECT_TRUE(slurm.errors.empty()) << "nothing in the output of a step that did not ask";

  // slurmd logs it once, when it starts, for the admin.
  Plugin in_slurmd = make({"colour=blue"});
  in_slurmd.report_config(slurm);
  ASSERT_EQ(slurm.errors.size(), 1u);
  EXPECT_EQ(slurm.errors[0], expected +
                                 " (steps that ask for weights fail until it is fixed; other "
                                 "steps run as usual)");
  slurm.errors.clear();
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
  slurm.on_node("n2");
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

TEST_F(PluginTest, EqualizedSharesNearTheLargestDoubleSumToOne) {
  // 1e308 + 1e308 is infinite: every rank got HETSCALE_WEIGHT=0.
  std::filesystem::path dir = std::filesystem::path(HETSCALE_BINARY_DIR) / "plugin_test_huge";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "n[1-2].toml") << "[partition]\nby = \"node\"\n"
                                        "[[node]]\nname = \"n[1-2]\"\nweight = 1e308\n";
  ::chmod((dir / "n[1-2].toml").c_str(), 0644);
  slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
  std::vector<double> w =
      all_weights(asking({"partitions=" + dir.string()}, "equalized"), {{"n1", 1}, {"n2", 1}});
  EXPECT_DOUBLE_EQ(w[0], 0.5);
  EXPECT_DOUBLE_EQ(w[1], 0.5);
}

TEST_F(PluginTest, APlantedEqualizedPartitionIsIgnored) {
  std::filesystem::path dir = std::filesystem::path(HETSCALE_BINARY_DIR) / "plugin_test_planted";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "n[1-2].toml";
  std::ofstream(file) << "[partition]\nby = \"node\"\n"
                         "[[node]]\nname = \"n1\"\nweight = 0.9\n"
                         "[[node]]\nname = \"n2\"\nweight = 0.1\n";
  ASSERT_EQ(::chmod(file.c_str(), 0666), 0);  // anybody could have written it
  Plugin plugin = make({"partitions=" + dir.string()});
  ASSERT_EQ(plugin.on_option("equalized"), std::nullopt);
  slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), -1);  // it asked for equalized weights
  EXPECT_EQ(slurm.errors.back(), "hetscale: partition: equalized partition " + file.string() +
                                     " ignored: it is writable by its group or others (mode 0666)");
  EXPECT_FALSE(slurm.env.contains("HETSCALE_WEIGHT"));

  // The job's user's own file is believed (root's job: the site's, root's).
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  slurm.items[Item::job_uid] = ::geteuid();
  const std::filesystem::path own = equalized_partition_path(dir, std::vector<std::string>{"n1", "n2"}, ::geteuid());
  std::filesystem::create_directories(own.parent_path());
  if (own != file) std::filesystem::copy_file(file, own, std::filesystem::copy_options::overwrite_existing);
  Plugin trusted = make({"partitions=" + dir.string()});
  ASSERT_EQ(trusted.on_option("equalized"), std::nullopt);
  slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
  ASSERT_EQ(trusted.prepare_step(slurm), 0);
  EXPECT_DOUBLE_EQ(weight_of(trusted, "n1", 0), 0.9);
}

TEST_F(PluginTest, EveryTaskCarriesTheDigestOfWhatItsWeightsCameFrom) {
  // Each node reads the table on its own: during a rollout two nodes of one step can use
  // different versions, and their weights no longer sum to 1. The digest shows it.
  slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
  auto digest_on = [&](Plugin plugin, const std::string& node, std::uint64_t rank) {
    slurm.on_node(node);
    EXPECT_EQ(plugin.on_option("marked"), std::nullopt);
    EXPECT_EQ(plugin.prepare_step(slurm), 0);
    slurm.task(node, rank);
    EXPECT_EQ(plugin.task_init(slurm), 0);
    return slurm.env.at("HETSCALE_WEIGHTS_DIGEST");
  };
  const std::string n1 = digest_on(make({}), "n1", 0);
  const std::string n2 = digest_on(make({}), "n2", 1);
  EXPECT_EQ(n1.size(), 64u);
  EXPECT_EQ(n1, n2);
  SiteTableLoader newer = [](const std::filesystem::path&) {
    SiteTable table = test_table();
    table.nodes[1].marked_speed = 15.0;  // n2 re-measured
    table.index();
    return table;
  };
  EXPECT_NE(digest_on(make({}, newer), "n2", 1), n1);
  SiteTableLoader elsewhere = [](const std::filesystem::path&) {
    SiteTable table = test_table();
    table.nodes[2].marked_speed = 99.0;  // n3 is not in the step
    table.index();
    return table;
  };
  EXPECT_EQ(digest_on(make({}, elsewhere), "n2", 1), n1);
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

// With default=marked, a step that did not ask gets weights when it can and, when it
// cannot, runs without them: nothing in its output, one line in slurmd's log, and
// HETSCALE_WEIGHTS_SOURCE=unavailable in its tasks.
TEST_F(PluginTest, SiteDefaultNeverFailsAStepThatDidNotAsk) {
  struct Case {
    const char* what;
    SiteTableLoader loader;
    const char* list;
    std::vector<std::string> hosts;
    const char* reason;
  };
  std::vector<Case> cases = {
      {"broken table", broken_table, "n1", {"n1"},
       "hetscale: table: /etc/hetscale/site.toml:3:1: unknown key 'speed'"},
      {"absent table",
       [](const std::filesystem::path& path) -> SiteTable { return load_site_table(path); },
       "n1", {"n1"}, "hetscale: table: /nonexistent/site.toml: cannot read: No such file"},
      {"node missing", nullptr, "n[1,9]", {"n1", "n9"},
       "hetscale: weights: node n9 of the step is not in site table"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    slurm = FakeSlurm();
    Plugin plugin = make({"default=marked", "site=/nonexistent/site.toml"}, c.loader);
    slurm.step(c.list, c.hosts, "1(x" + std::to_string(c.hosts.size()) + ")");
    EXPECT_EQ(plugin.check_request(slurm), 0);
    EXPECT_EQ(plugin.load_site(slurm), 0);
    EXPECT_EQ(plugin.prepare_step(slurm), 0);
    slurm.task(c.hosts[0], 0);
    EXPECT_EQ(plugin.task_init(slurm), 0);
    EXPECT_TRUE(slurm.errors.empty()) << slurm.errors.front();
    ASSERT_EQ(slurm.infos.size(), 1u);
    EXPECT_EQ(slurm.infos[0].rfind(c.reason, 0), 0u) << slurm.infos[0];
    EXPECT_NE(slurm.infos[0].find(kUnavailableNote), std::string::npos) << slurm.infos[0];
    EXPECT_EQ(slurm.env.at("HETSCALE_WEIGHTS_SOURCE"), "unavailable");
    for (const char* name : {"HETSCALE_WEIGHT", "HETSCALE_MARKED_SPEED", "HETSCALE_GROUP"})
      EXPECT_FALSE(slurm.env.contains(name)) << name;
    EXPECT_EQ(plugin.failure_code(), 0);

    // The same step with the option given fails, with the reason in its output.
    slurm = FakeSlurm();
    Plugin asked = make({"default=marked", "site=/nonexistent/site.toml"}, c.loader);
    ASSERT_EQ(asked.on_option("marked"), std::nullopt);
    slurm.step(c.list, c.hosts, "1(x" + std::to_string(c.hosts.size()) + ")");
    EXPECT_EQ(asked.prepare_step(slurm), 0);
    slurm.task(c.hosts[0], 0);
    EXPECT_EQ(asked.task_init(slurm), -1);
    ASSERT_EQ(slurm.errors.size(), 1u);
    EXPECT_EQ(slurm.errors[0].rfind(c.reason, 0), 0u) << slurm.errors[0];
    EXPECT_EQ(asked.failure_code(), -1);
  }
}

TEST_F(PluginTest, SiteDefaultStepSurvivesARefusedSetenv) {
  Plugin plugin = make({"default=marked"});
  slurm.step("n1", {"n1"}, "1");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  slurm.refuse_setenv = true;
  EXPECT_EQ(plugin.task_init(slurm), 0);
  EXPECT_TRUE(slurm.errors.empty());
  ASSERT_EQ(slurm.infos.size(), 1u);
  EXPECT_EQ(slurm.infos[0].rfind("hetscale: env: cannot set HETSCALE_WEIGHT", 0), 0u);
}

// The node list from the environment must agree with Slurm's own counts, and no name in
// it may climb out of a directory.
TEST_F(PluginTest, StepLayoutIsCheckedAgainstSlurmsItems) {
  auto refusal = [&](const std::function<void()>& setup) {
    slurm = FakeSlurm();
    Plugin plugin = make({});
    EXPECT_EQ(plugin.on_option("marked"), std::nullopt);
    setup();
    EXPECT_EQ(plugin.prepare_step(slurm), 0);
    EXPECT_EQ(plugin.task_init(slurm), -1);
    return slurm.errors.empty() ? std::string() : slurm.errors.back();
  };
  EXPECT_EQ(refusal([&] {
              slurm.step("n[1-3]", {"n1", "n2", "n3"}, "1(x3)");
              slurm.items[Item::node_count] = 2;
            }),
            "hetscale: step: bad SLURM_STEP_NODELIST 'n[1-3]': column 3: too many hosts (more "
            "than 2)");
  EXPECT_EQ(refusal([&] {
              slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
              slurm.items[Item::node_count] = 3;
            }),
            "hetscale: step: nodes: the step environment says 2, Slurm says 3");
  EXPECT_EQ(refusal([&] {
              slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
              slurm.items[Item::total_task_count] = 5;
            }),
            "hetscale: step: tasks: the step environment says 2, Slurm says 5");
  EXPECT_EQ(refusal([&] {
              slurm.step("n[1-2]", {"n1", "n2"}, "1,3");
              slurm.items[Item::local_task_count] = 2;
            }),
            "hetscale: step: tasks on this node: the step environment says 1, Slurm says 2");
  EXPECT_EQ(refusal([&] { slurm.step("n..1", {"n..1"}, "1"); }),
            "hetscale: step: node name 'n..1' cannot be used in a path ('/' or '..')");
  EXPECT_EQ(refusal([&] { slurm.step("../etc/x", {"../etc/x"}, "1"); }),
            "hetscale: step: bad SLURM_STEP_NODELIST '../etc/x': column 3: invalid character "
            "'/' in host name");
  EXPECT_EQ(refusal([&] {
              slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
              slurm.items[Item::node_id] = 7;
            }),
            "hetscale: step: Slurm's node id 7 is outside the step's 2 nodes");
  // A deeply bracketed list is refused before anything is expanded.
  std::string deep = "n";
  for (int i = 0; i < 10000; ++i) deep += "[1]";
  EXPECT_EQ(refusal([&] { slurm.step(deep, {"n1"}, "1"); }),
            "hetscale: step: bad SLURM_STEP_NODELIST '" + deep.substr(0, 200) +
                "': column 26: more than 8 bracket groups in one host name");
}

// The step's environment is the job's to write: a line break in a node list cannot add a
// line to slurmd's log (a step that did not ask) or to the step's output (one that asked).
TEST_F(PluginTest, TheStepsStringsNeverForgeALogLine) {
  const std::string forged = "n1\n[2026-01-01T00:00:00.000] error: Node n2 drained";
  for (const bool ask : {false, true}) {
    SCOPED_TRACE(ask ? "asked" : "site default");
    slurm = FakeSlurm();
    Plugin plugin = make({"default=marked"});
    if (ask) {
      ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
    }
    slurm.step(forged, {"n1"}, "1");
    EXPECT_EQ(plugin.prepare_step(slurm), 0);
    const std::vector<std::string>& lines = ask ? slurm.errors : slurm.infos;
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].find('\n'), std::string::npos) << lines[0];
    EXPECT_THAT(lines[0], ::testing::HasSubstr("'n1\\n[2026-01-01T00:00:00.000] error: Node n2 drained'"));
  }
}

// This node's place in the step is found once, in prepare_step; the tasks only look it up.
TEST_F(PluginTest, ThisNodeIsFoundOncePerStep) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("marked"), std::nullopt);
  slurm.step("n[1-3]", {"n1", "n2", "n3"}, "1(x3)");
  slurm.on_node("n2");
  ASSERT_EQ(plugin.prepare_step(slurm), 0);
  slurm.items.erase(Item::node_id);
  slurm.env.erase("SLURMD_NODENAME");
  slurm.items[Item::task_global_id] = 1;
  ASSERT_EQ(plugin.task_init(slurm), 0) << slurm.errors.back();
  EXPECT_EQ(slurm.env.at("HETSCALE_GROUP"), "slow");
  EXPECT_DOUBLE_EQ(std::stod(slurm.env.at("HETSCALE_WEIGHT")), 10.0 / 70.0);
}

TEST_F(PluginTest, PartitionHostListsAreBoundedByTheStep) {
  Plugin plugin = make({});
  ASSERT_EQ(plugin.on_option("/p.toml"), std::nullopt);
  slurm.user_files["/p.toml"] =
      "[partition]\nby = \"node\"\n[[node]]\nname = \"n[1-1000000]x[1-1000000]\"\nweight = 1\n";
  slurm.step("n[1-2]", {"n1", "n2"}, "1(x2)");
  EXPECT_EQ(plugin.prepare_step(slurm), 0);
  slurm.task("n1", 0);
  EXPECT_EQ(plugin.task_init(slurm), -1);
  EXPECT_EQ(slurm.errors.back(),
            "hetscale: partition: /p.toml:4:11: bad host list: too many hosts (more than 2)");
}

TEST_F(PluginTest, TenThousandNodeTable) {
  SiteTable big;
  big.name = "big";
  big.groups = {{"g", 1.0, {}}};
  std::vector<std::string> hosts;
  std::vector<std::pair<std::string, int>> layout;
  for (int i = 0; i < 10000; ++i) {
    big.nodes.push_back({"c" + std::to_string(i), "g", 1, 1.0 + i % 3, NodeState::ok, {}});
    if (i % 100 == 0) {
      hosts.push_back("c" + std::to_string(i));
      layout.emplace_back(hosts.back(), 1);
    }
  }
  big.index();
  slurm.step(compress_hostlist(hosts), hosts, "1(x100)");
  std::vector<double> w = all_weights(
      [&] {
        Plugin plugin = make({}, [&](const std::filesystem::path&) { return big; });
        EXPECT_EQ(plugin.on_option("marked"), std::nullopt);
        return plugin;
      },
      layout);
  EXPECT_NEAR(sum(w), 1.0, 1e-12);
}

}  // namespace
}  // namespace hetscale::spank
