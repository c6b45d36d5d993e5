// Classify every testbed node through Slurm and group the records: the speed factors the
// CPU quotas enforce must come out of the benchmark, and the groups must follow them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "hetscale/markspeed.hpp"
#include "hetscale/model/sample_statistics.hpp"
#include "hetscale/site/node_record.hpp"
#include "hetscale/site/site_table.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;
using markspeed::coefficient_of_variation;
using hetscale::median;

// A classify run and what the node's quota gave it: CPU time (user + system, from bash's
// `times`) over the wall time of the process is the share of a core it really got.
struct Classified {
  NodeRecord record;
  double cpu_share = 0;
  double speed_per_cpu_second() const { return record.marked_speed * record.processors / cpu_share; }
};

// "1m2.345s 0m0.067s" (the last such line: `times` prints the shell's, then its children's).
// sscanf, not <regex>: GCC 12's regex trips -Wmaybe-uninitialized in the ASan build.
double children_cpu_seconds(const std::string& err) {
  double seconds = -1;
  std::istringstream lines(err);
  for (std::string text; std::getline(lines, text);) {
    int user_min = 0, sys_min = 0;
    double user_s = 0, sys_s = 0;
    char end = 0;
    if (std::sscanf(text.c_str(), "%dm%lfs %dm%lfs%c", &user_min, &user_s, &sys_min, &sys_s, &end) == 4)
      seconds = 60 * user_min + user_s + 60 * sys_min + sys_s;
  }
  return seconds;
}

// "elapsed START END" (bash's $EPOCHREALTIME before and after), as END - START; -1 if absent.
double elapsed_seconds(const std::string& err) {
  std::istringstream lines(err);
  for (std::string text; std::getline(lines, text);) {
    double start = 0, end = 0;
    if (std::sscanf(text.c_str(), "elapsed %lf %lf", &start, &end) == 2) return end - start;
  }
  return -1;
}

Classified classify_on(const std::string& node, const std::string& seconds = "1") {
  const char* script =
      "s=$EPOCHREALTIME; \"$@\"; status=$?; e=$EPOCHREALTIME; times >&2; "
      "echo \"elapsed $s $e\" >&2; exit $status";
  const auto r = run_command({"srun", "-N1", "-n1", "-w", node, "bash", "-c", script, "classify",
                              HETSCALE_BIN, "classify", "--seconds", seconds, "--size", "2048"},
                             120s);
  if (!r.ok()) throw std::runtime_error("classify on " + node + ": " + r.describe());
  Classified out{node_record_from_json(nlohmann::json::parse(r.out))};
  const double cpu = children_cpu_seconds(r.err);
  const double wall = elapsed_seconds(r.err);
  if (cpu < 0 || wall <= 0)
    throw std::runtime_error("no CPU or wall time from the shell around classify: " + r.err);
  out.cpu_share = cpu / wall;
  const NodeRecord& record = out.record;
  std::printf("%s: %.1f %s per processor, %u processor(s), %d repetitions, CV %.2f%%, %.1f s; "
              "CPU share %.3f of a core, %.0f %s per CPU second\n",
              record.host.c_str(), record.marked_speed, record.speed_unit.c_str(),
              record.processors, record.repetitions, 100 * record.cv, record.duration_seconds,
              out.cpu_share, out.speed_per_cpu_second(), record.speed_unit.c_str());
  return out;
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Full-speed and slower nodes in turn (n1 n4 n2 n5 n3): the host's clock drifts over the
// minute the classification takes, and measuring the two kinds side by side keeps that
// drift out of their ratio.
std::vector<TestbedNode> alternating_speeds(const std::vector<TestbedNode>& nodes) {
  std::vector<TestbedNode> full, slower, order;
  for (const TestbedNode& node : nodes) (node.speed == 1.0 ? full : slower).push_back(node);
  for (std::size_t i = 0; i < std::max(full.size(), slower.size()); ++i) {
    if (i < full.size()) order.push_back(full[i]);
    if (i < slower.size()) order.push_back(slower[i]);
  }
  return order;
}

TEST(ClassifyCluster, SpeedsWithinASanityBoundOfTheQuotasAndGroupsFollowTheSpeeds) {
  const Testbed tb = Testbed::from_env();
  const auto dir = fresh_dir("hetscale-classify");
  // One node after the other, full and half speed in turn: every node then has the host's
  // spare capacity to itself, and the ratio compares nodes measured side by side in time.
  // (All nodes at once works too: AllNodesAtOnceInOneSrunLineWithinASanityBound.)
  std::map<std::string, Classified> runs;
  for (const TestbedNode& node : alternating_speeds(tb.nodes)) {
    const Classified run = classify_on(node.name);
    const NodeRecord& record = run.record;
    ASSERT_EQ(record.state, NodeState::ok) << record.reason;
    EXPECT_EQ(record.host, node.name);        // each slurmd has its own host name
    EXPECT_EQ(record.processors, node.cpus);  // Slurm's allocation, not the machine's CPUs
    std::ofstream(dir / (node.name + ".json")) << to_json(record).dump() << '\n';
    runs.emplace(node.name, run);
  }
  // All nodes run on this one machine: one fingerprint.
  for (const auto& [host, run] : runs)
    EXPECT_EQ(run.record.fingerprint, runs.begin()->second.record.fingerprint) << host;

  std::vector<double> full, full_share;
  for (const TestbedNode& node : tb.nodes) {
    if (node.speed != 1.0) continue;
    full.push_back(runs.at(node.name).record.marked_speed);
    full_share.push_back(runs.at(node.name).cpu_share);
  }
  ASSERT_FALSE(full.empty());
  const double full_speed = median(full);
  const double full_cpu_share = median(full_share);
  for (const TestbedNode& node : tb.nodes) {
    const double ratio = runs.at(node.name).record.marked_speed / full_speed;
    // The ratio = (CPU share the quota gave, relative to the full-speed nodes') x (the
    // rest: speed per CPU second and timing). The first is the testbed's quota at work,
    // the second the same hardware in the slices the quota leaves it.
    const double share_ratio = runs.at(node.name).cpu_share / full_cpu_share;
    std::printf("%s: speed factor %.2f, measured %.3f of the full-speed median "
                "= CPU share %.3f x speed per CPU second %.3f of the full-speed nodes'\n",
                node.name.c_str(), node.speed, ratio, share_ratio, ratio / share_ratio);
    // The target is 0.50 +/- 0.03 for a half-speed node. It is a timing figure,
    // so it is printed ("target") and the assertion is the bound beyond which the quota
    // or the measurement is broken: 0.08. Measured: 0.46-0.52, with the CPU share always
    // 0.500: the spread is the host's speed per CPU second (docs/admin-classify.md).
    std::printf("%s: target %.2f +/- 0.03\n", node.name.c_str(), node.speed);
    EXPECT_NEAR(ratio, node.speed, 0.08) << node.name;
  }

  const auto site = dir / "site.toml";
  const auto r = run_command(
      {HETSCALE_BIN, "groups", dir.string(), "-o", site.string(), "--site-name", "testbed"}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  std::printf("%s", r.out.c_str());
  const SiteTable table = load_site_table(site);
  ASSERT_EQ(table.nodes.size(), tb.nodes.size());
  for (const TestbedNode& a : tb.nodes) {
    for (const TestbedNode& b : tb.nodes) {
      const bool same_group = table.find_node(a.name)->group == table.find_node(b.name)->group;
      EXPECT_EQ(same_group, a.speed == b.speed) << a.name << " " << b.name;
    }
    EXPECT_EQ(table.find_node(a.name)->state, NodeState::ok) << a.name;
  }
  std::filesystem::remove_all(dir);
}

// The sysadmin's one srun line over every node. The testbed binds no CPUs (task/none),
// so classify runs its worker unpinned and says so; pinned to the first allowed CPU, as
// before, every node read about half a full-speed node's figure.
TEST(ClassifyCluster, AllNodesAtOnceInOneSrunLineWithinASanityBound) {
  const Testbed tb = Testbed::from_env();
  const auto r = run_command({"srun", "-N", std::to_string(tb.nodes.size()), "--ntasks-per-node=1",
                              HETSCALE_BIN, "classify", "--seconds", "1", "--size", "2048"},
                             180s);
  ASSERT_TRUE(r.ok()) << r.describe();
  std::map<std::string, NodeRecord> records;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    NodeRecord record = node_record_from_json(nlohmann::json::parse(line));
    EXPECT_EQ(record.state, NodeState::ok) << record.reason;
    EXPECT_EQ(record.binding, "unpinned") << record.host;
    EXPECT_EQ(record.processors, 1u) << record.host;
    EXPECT_THAT(record.binding_reason, ::testing::HasSubstr("Slurm bound no CPUs")) << record.host;
    records.emplace(record.host, std::move(record));
  }
  ASSERT_EQ(records.size(), tb.nodes.size());
  std::vector<double> full;
  for (const TestbedNode& node : tb.nodes)
    if (node.speed == 1.0) full.push_back(records.at(node.name).marked_speed);
  const double full_speed = median(full);
  for (const TestbedNode& node : tb.nodes) {
    const double ratio = records.at(node.name).marked_speed / full_speed;
    std::printf("all at once: %s: %.1f Mflops, speed factor %.2f, measured %.3f\n",
                node.name.c_str(), records.at(node.name).marked_speed, node.speed, ratio);
    // Five nodes busy at once on two shared host cores drift more than one at a time (one
    // run read 0.933 for a full-speed node); pinned to CPU 0 as before, the half-speed
    // nodes read 1.0. 0.15 tells the two apart.
    EXPECT_NEAR(ratio, node.speed, 0.15) << node.name;
  }
}

// "Idle": no job of an earlier test still running or completing on the cluster.
void wait_until_the_cluster_is_idle() {
  for (int attempt = 0; attempt < 120; ++attempt) {
    const auto r = run_command({"squeue", "-h", "-o", "%i %T %N"}, 30s);
    if (r.ok() && r.out.empty()) return;
    std::this_thread::sleep_for(500ms);
  }
  FAIL() << "jobs of earlier tests are still in the queue after 60 s";
}

// The same dgemm, one unpinned single-threaded worker, run on the host outside Slurm: the
// host's own speed at that moment, as a reference for the classify run beside it.
double host_reference_speed() {
  const auto r = run_command({HETSCALE_MARKSPEED_BIN, "dgemm", "--unpinned", "1", "--size",
                              "2048", "--repetitions", "5", "--format", "json"},
                             120s);
  if (!r.ok()) throw std::runtime_error("markspeed on the host: " + r.describe());
  return nlohmann::json::parse(r.out).at("sustained").get<double>();
}

// The target is a CV across runs of at most 2%. It is a timing figure, so, as
// for every performance target here, the test prints it ("target 2%") and asserts only
// a bound that separates the host's noise from a broken measurement (a quota not applied,
// a benchmark that does not settle). On a quiet machine the figure is 0.7-2.2%
// (docs/admin-classify.md); a CI machine shares its host, whose speed drifts.
//
// So each classify run is paired with a run of the same benchmark on the host, outside
// Slurm, just before it. What classify's spread may not exceed is 5%, or twice the host's
// own spread when the host is that noisy; and a spread the host shared (a slow drift:
// the ratio classify/host stays steady) is the host's, not classify's. A classifier that
// loses its quota now and then, or measures a different thing each run, fails all three.
TEST(ClassifyCluster, RepeatedRunsOnAnIdleNodeAgreeWithinASanityBound) {
  const Testbed tb = Testbed::from_env();
  const std::string node = tb.node_with_speed(1.0).name;
  wait_until_the_cluster_is_idle();
  // Five runs of about five repetitions each: a CV from three runs is itself too noisy
  // to compare with 2%.
  std::vector<double> speeds, host, ratios;
  for (int run = 0; run < 5; ++run) {
    host.push_back(host_reference_speed());
    speeds.push_back(classify_on(node, "4").record.marked_speed);
    ratios.push_back(speeds.back() / host.back());
    std::printf("  host outside Slurm: %.1f Mflops; classify / host %.4f\n", host.back(),
                ratios.back());
  }
  const double cv = coefficient_of_variation(speeds);
  const double cv_host = coefficient_of_variation(host);
  const double cv_ratio = coefficient_of_variation(ratios);
  std::printf("%s: %zu runs, CV across runs %.2f%% (target 2%%); the host outside Slurm %.2f%%; "
              "classify / host %.2f%%\n",
              node.c_str(), speeds.size(), 100 * cv, 100 * cv_host, 100 * cv_ratio);
  RecordProperty("cv_across_runs", std::to_string(cv));
  RecordProperty("cv_host", std::to_string(cv_host));
  RecordProperty("cv_ratio_to_host", std::to_string(cv_ratio));
  const double bound = std::max(0.05, 2 * cv_host);
  EXPECT_LE(std::min(cv, cv_ratio), bound)
      << "classify's spread is neither within " << 100 * bound
      << "% nor shared with the host (see the figures above)";
}

}  // namespace
}  // namespace hetscale::test
