// The local cluster: every node is its own host, `up` is idempotent, `status` reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "hetscale/site/site_table.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> names(const Testbed& tb) {
  std::vector<std::string> out;
  for (const auto& n : tb.nodes) out.push_back(n.name);
  return out;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Cluster, OneTaskPerNodeSeesEachNodesOwnHostName) {
  const Testbed tb = Testbed::from_env();
  ASSERT_GE(tb.nodes.size(), 2U);
  const std::string n = std::to_string(tb.nodes.size());
  const auto r = run_command({"srun", "-N" + n, "-n" + n, "--ntasks-per-node=1", "hostname"}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(sorted(split_lines(r.out)), sorted(names(tb)));
}

TEST(Cluster, SinfoListsEveryLayoutNodeAndScontrolExpandsThem) {
  const Testbed tb = Testbed::from_env();
  const auto list = run_command({"sinfo", "-h", "-p", "testbed", "-o", "%N"}, 30s);
  ASSERT_TRUE(list.ok()) << list.describe();
  const auto lines = split_lines(list.out);
  ASSERT_EQ(lines.size(), 1U) << list.out;
  const auto hosts = run_command({"scontrol", "show", "hostnames", lines[0]}, 30s);
  ASSERT_TRUE(hosts.ok()) << hosts.describe();
  EXPECT_EQ(split_lines(hosts.out), names(tb));
}

TEST(Cluster, UpOnARunningClusterSaysSoAndChangesNothing) {
  const Testbed tb = Testbed::from_env();
  const std::string ctld_pid = read_file(tb.dir / "pid" / "slurmctld.pid");
  ASSERT_FALSE(ctld_pid.empty());
  const std::string conf = read_file(tb.slurm_conf);
  const auto r = run_command(
      {HETSCALE_SOURCE_DIR "/scripts/cluster.sh", "up", "--run-dir", tb.dir.string()}, 30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_NE(r.out.find("already running"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(tb.dir / "pid" / "slurmctld.pid"), ctld_pid);
  EXPECT_EQ(read_file(tb.slurm_conf), conf);
}

TEST(Cluster, StatusShowsEveryNodeIdleWithItsQuota) {
  const Testbed tb = Testbed::from_env();
  const auto r = run_command(
      {HETSCALE_SOURCE_DIR "/scripts/cluster.sh", "status", "--run-dir", tb.dir.string()}, 30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  for (const auto& node : tb.nodes) {
    bool found = false;
    for (const auto& line : split_lines(r.out)) {
      std::istringstream words(line);
      std::string name, state, group, cpus, speed, quota;
      words >> name >> state >> group >> cpus >> speed >> quota;
      if (name != node.name) continue;
      found = true;
      EXPECT_EQ(state, "idle") << line;
      EXPECT_EQ(group, node.group) << line;
      EXPECT_NE(quota.find("us/"), std::string::npos) << "no CPU quota on " << line;
    }
    EXPECT_TRUE(found) << node.name << " missing from:\n" << r.out;
  }
}

TEST(Cluster, EnvFileAndSiteTableDescribeTheLayout) {
  const Testbed tb = Testbed::from_env();
  const std::string env = read_file(tb.dir / "env");
  EXPECT_NE(env.find("export SLURM_CONF=" + tb.slurm_conf.string() + "\n"), std::string::npos)
      << env;
  const SiteTable site = load_site_table(tb.site_table());
  ASSERT_EQ(site.nodes.size(), tb.nodes.size());
  for (const auto& node : tb.nodes) {
    const Node* entry = site.find_node(node.name);
    ASSERT_NE(entry, nullptr) << node.name << " not in " << tb.site_table();
    EXPECT_EQ(entry->group, node.group);
    EXPECT_EQ(entry->processors, node.cpus);
  }
}

}  // namespace
}  // namespace hetscale::test
