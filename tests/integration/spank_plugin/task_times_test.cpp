// The plugin's task times under real Slurm: `hetscale record step` around a step of a
// program that knows nothing of hetscale gets every task's own start and exit from
// slurmstepd, on every node, with weights off and with weights on.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "plugin_support.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Each rank sleeps its own time: 0.2, 0.5, 0.8 and 1.1 s.
const std::string kSleeper =
    "case $SLURM_PROCID in 0) s=0.2;; 1) s=0.5;; 2) s=0.8;; *) s=1.1;; esac; sleep $s; "
    "[ \"$SLURM_PROCID\" != \"$FAIL_RANK\" ] || exit 3";
constexpr double kSleep[] = {0.2, 0.5, 0.8, 1.1};

nlohmann::json only_record(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  EXPECT_TRUE(std::getline(in, line)) << "no record in " << file;
  std::string more;
  EXPECT_FALSE(std::getline(in, more)) << "a second record: " << more;
  return nlohmann::json::parse(line);
}

CommandResult record_step(const Testbed& tb, const fs::path& record, const std::string& weights,
                          const std::string& fail_rank, const std::string& distribution = "block") {
  std::vector<std::string> argv{HETSCALE_EXECUTABLE, "record", "step", "--code", "sleeper", "--workload", "1000*N",
                                "--param", "N=1", "--weights", weights, "--nodes", "n[1-2]", "--tasks-per-node", "2",
                                "--", "srun", "-w", "n1,n2", "-N2", "-n4", "--overcommit",
                                "--distribution=" + distribution};
  if (weights != "off") argv.push_back("--hetscale-weights=" + weights);
  argv.insert(argv.end(), {"sh", "-c", kSleeper});
  return run_command(argv, 60s,
                     {"SLURM_CONF=" + tb.slurm_conf.string(), "HETSCALE_RECORD=" + record.string(),
                      "HETSCALE_EXPERIMENT=task-times", "FAIL_RANK=" + fail_rank});
}

// What both tests check: every rank's time is its task's own, every node's from its first
// start to its last exit, inside the step's own, and the directory is gone.
void expect_task_times(const nlohmann::json& rec, const fs::path& dir) {
  EXPECT_EQ(rec.at("timed_by"), "step");
  ASSERT_EQ(rec.value("ranks_timed_by", ""), "spank") << rec.dump();
  const nlohmann::json& ranks = rec.at("ranks");
  ASSERT_EQ(ranks.size(), 4U);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("rank " + std::to_string(i));
    const double wall = ranks[i].at("wall_seconds").get<double>();
    EXPECT_GE(wall, kSleep[i]);
    // Sanity bound only (a loaded machine): a task's time is its own, not the step's.
    EXPECT_LT(wall, rec.at("wall_seconds").get<double>());
  }
  // Rank 3 slept 0.9 s longer than rank 0; the step's nominal figure would give both the same.
  EXPECT_GT(ranks[3].at("wall_seconds").get<double>() - ranks[0].at("wall_seconds").get<double>(), 0.6);
  const nlohmann::json& nodes = rec.at("node_times");
  ASSERT_EQ(nodes.size(), 2U) << rec.dump();
  for (std::size_t n = 0; n < 2; ++n) {
    const nlohmann::json& node = nodes[n];
    SCOPED_TRACE(node.dump());
    EXPECT_EQ(node.at("host"), n == 0 ? "n1" : "n2");
    EXPECT_EQ(node.at("tasks"), 2);
    // srun places ranks 0-1 on n1 and 2-3 on n2: a node lasts as long as its slower task.
    EXPECT_GE(node.at("wall_seconds").get<double>(), kSleep[2 * n + 1]);
    EXPECT_GE(node.at("wall_seconds").get<double>(), ranks[2 * n + 1].at("wall_seconds").get<double>() - 1e-9);
    // ISO 8601 UTC of one length: in order as text.
    EXPECT_LE(rec.at("start_time").get<std::string>(), node.at("start_time").get<std::string>());
    EXPECT_LE(node.at("start_time").get<std::string>(), node.at("end_time").get<std::string>());
    EXPECT_LE(node.at("end_time").get<std::string>(), rec.at("end_time").get<std::string>());
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename().string().rfind(".hetscale-task-times", 0), std::string::npos) << entry.path();
}

TEST(PluginTaskTimes, AStepWithWeightsOffHasEveryTasksOwnTime) {
  const Testbed tb = Testbed::from_env();
  const fs::path dir = fresh_dir("task-times-off");
  const auto r = record_step(tb, dir / "records.jsonl", "off", "none");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out.find("nominal"), std::string::npos) << r.out;
  const nlohmann::json rec = only_record(dir / "records.jsonl");
  EXPECT_EQ(rec.at("exit_status"), 0);
  EXPECT_EQ(rec.at("weights_source"), "");
  expect_task_times(rec, dir);
}

TEST(PluginTaskTimes, AFailedStepWithWeightsIsTimedAndRecordedAsFailed) {
  const Testbed tb = Testbed::from_env();
  const fs::path dir = fresh_dir("task-times-marked");
  const auto r = record_step(tb, dir / "records.jsonl", "marked", "3");
  EXPECT_NE(r.exit_code, 0) << r.describe();
  const nlohmann::json rec = only_record(dir / "records.jsonl");
  EXPECT_NE(rec.at("exit_status"), 0);
  EXPECT_FALSE(rec.at("verified").get<bool>());
  EXPECT_EQ(rec.at("weights_source"), "marked");
  expect_task_times(rec, dir);
}

// srun --distribution=cyclic puts ranks 0 and 2 on n1, 1 and 3 on n2, where the record's
// plan (--nodes n[1-2] --tasks-per-node 2) says n1, n1, n2, n2: every rank's time and host
// are the ones of the node that timed it.
TEST(PluginTaskTimes, ACyclicStepHasEachRanksTimeOnItsOwnHost) {
  const Testbed tb = Testbed::from_env();
  const fs::path dir = fresh_dir("task-times-cyclic");
  const auto r = record_step(tb, dir / "records.jsonl", "off", "none", "cyclic");
  ASSERT_TRUE(r.ok()) << r.describe();
  const nlohmann::json rec = only_record(dir / "records.jsonl");
  ASSERT_EQ(rec.value("ranks_timed_by", ""), "spank") << rec.dump();
  const nlohmann::json& ranks = rec.at("ranks");
  ASSERT_EQ(ranks.size(), 4U);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("rank " + std::to_string(i));
    EXPECT_EQ(ranks[i].at("host"), i % 2 == 0 ? "n1" : "n2");
    EXPECT_GE(ranks[i].at("wall_seconds").get<double>(), kSleep[i]);
  }
  const nlohmann::json& nodes = rec.at("node_times");
  ASSERT_EQ(nodes.size(), 2U) << rec.dump();
  // n1 ran ranks 0 and 2 (0.2 and 0.8 s), n2 ranks 1 and 3 (0.5 and 1.1 s).
  EXPECT_EQ(nodes[0].at("host"), "n1");
  EXPECT_GE(nodes[0].at("wall_seconds").get<double>(), kSleep[2]);
  EXPECT_EQ(nodes[1].at("host"), "n2");
  EXPECT_GE(nodes[1].at("wall_seconds").get<double>(), kSleep[3]);
}

}  // namespace
}  // namespace hetscale::test
