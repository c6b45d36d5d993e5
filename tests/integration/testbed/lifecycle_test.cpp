// `down` stops exactly what `up` started, also when the cluster is half-started (a daemon
// died) or its run directory was deleted by a later `rm -rf` (a killed test run). Uses a
// second, one-node cluster of its own next to the fixture's, with accounting (MariaDB and
// slurmdbd) as by default.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <thread>

#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

const std::string kScript = HETSCALE_SOURCE_DIR "/scripts/cluster.sh";

class Lifecycle : public ::testing::Test {
 protected:
  void SetUp() override {
    // Short: unix socket paths under the run dir are limited (cluster.sh allows 70 chars).
    dir_ =
        std::filesystem::path(HETSCALE_BINARY_DIR) / "testbed" /
        ("lc-" + std::to_string(::testing::UnitTest::GetInstance()->current_test_info()->line()));
    std::filesystem::create_directories(dir_.parent_path());
    layout_ = dir_.parent_path() / (dir_.filename().string() + ".layout");
    std::ofstream(layout_) << "# one small node\nm1 group=tiny cpus=1 speed=0.25\n";
    run_command({kScript, "down", "--run-dir", dir_.string()}, 60s);
  }
  void TearDown() override {
    run_command({kScript, "down", "--run-dir", dir_.string()}, 60s);
    std::filesystem::remove_all(dir_);
    std::filesystem::remove(layout_);
  }

  CommandResult cluster(const std::string& verb) {
    std::vector<std::string> argv{kScript, verb, "--run-dir", dir_.string()};
    if (verb == "up") argv.insert(argv.end(), {"--layout", layout_.string()});
    return run_command(argv, 60s, {"SLURM_CONF=" + (dir_ / "slurm.conf").string()});
  }

  // The PIDs the cluster's PID files name.
  std::vector<pid_t> recorded_pids() const {
    std::vector<pid_t> pids;
    for (const auto& entry : std::filesystem::directory_iterator(dir_ / "pid")) {
      std::ifstream in(entry.path());
      pid_t pid = 0;
      if (in >> pid) pids.push_back(pid);
    }
    return pids;
  }

  static bool alive(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, comm, state;
    return stat >> pid_field >> comm >> state && state != "Z";
  }

  std::filesystem::path dir_;
  std::filesystem::path layout_;
};

TEST_F(Lifecycle, DownCleansAHalfStartedCluster) {
  const auto up = cluster("up");
  ASSERT_TRUE(up.ok()) << up.describe();
  const auto pids = recorded_pids();
  ASSERT_EQ(pids.size(), 6U) << "munged, mariadbd, slurmdbd, slurmctld, the layout's slurmd and the twin node's";
  // Half-started: slurmctld is gone, the node, the accounting daemons and munged still run.
  std::ifstream ctld(dir_ / "pid" / "slurmctld.pid");
  pid_t ctld_pid = 0;
  ASSERT_TRUE(ctld >> ctld_pid);
  ASSERT_EQ(kill(ctld_pid, SIGKILL), 0);

  const auto down = cluster("down");
  ASSERT_TRUE(down.ok()) << down.describe();
  std::this_thread::sleep_for(200ms);  // let init reap the zombies
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << "pid " << pid << " survived down";
  const auto status = cluster("status");
  EXPECT_EQ(status.exit_code, 3) << status.describe();
  EXPECT_NE(status.out.find("not running"), std::string::npos) << status.out;
}

TEST_F(Lifecycle, DownStopsAClusterWhoseRunDirectoryWasDeleted) {
  const auto up = cluster("up");
  ASSERT_TRUE(up.ok()) << up.describe();
  const auto pids = recorded_pids();
  ASSERT_EQ(pids.size(), 6U) << "munged, mariadbd, slurmdbd, slurmctld, two slurmd";
  std::filesystem::remove_all(dir_);  // what `rm -rf build/...` does after a killed run

  const auto down = cluster("down");
  ASSERT_TRUE(down.ok()) << down.describe();
  std::this_thread::sleep_for(200ms);
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << "pid " << pid << " survived down";
}

TEST_F(Lifecycle, DownCleansAClusterWhoseDatabaseServerWasKilled) {
  const auto up = cluster("up");
  ASSERT_TRUE(up.ok()) << up.describe();
  const auto pids = recorded_pids();
  ASSERT_EQ(pids.size(), 6U) << "munged, mariadbd, slurmdbd, slurmctld, two slurmd";
  std::ifstream db(dir_ / "pid" / "mariadbd.pid");
  pid_t db_pid = 0;
  ASSERT_TRUE(db >> db_pid);
  ASSERT_EQ(kill(db_pid, SIGKILL), 0);

  const auto down = cluster("down");
  ASSERT_TRUE(down.ok()) << down.describe();
  std::this_thread::sleep_for(200ms);
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << "pid " << pid << " survived down";
  // And the next `up` starts afresh on the same run dir.
  const auto again = cluster("up");
  EXPECT_TRUE(again.ok()) << again.describe();
  EXPECT_EQ(recorded_pids().size(), 6U);
}

TEST_F(Lifecycle, UpWithAccountingNoneStartsNoDatabaseNorSlurmdbd) {
  const auto up = run_command({kScript, "up", "--run-dir", dir_.string(), "--layout",
                               layout_.string(), "--accounting", "none"},
                              60s);
  ASSERT_TRUE(up.ok()) << up.describe();
  EXPECT_EQ(recorded_pids().size(), 4U) << "munged, slurmctld, the layout's slurmd and the twin node's";
  EXPECT_FALSE(std::filesystem::exists(dir_ / "slurmdbd.conf"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "mariadb"));
}

TEST_F(Lifecycle, UpRejectsAnUnknownAccountingMode) {
  const auto up = run_command({kScript, "up", "--run-dir", dir_.string(), "--layout",
                               layout_.string(), "--accounting", "mysql"},
                              60s);
  EXPECT_EQ(up.exit_code, 1) << up.describe();
  EXPECT_NE(up.err.find("--accounting must be slurmdbd or none, got 'mysql'"), std::string::npos)
      << up.err;
}

TEST_F(Lifecycle, UpRejectsABadLayoutNamingFileAndLine) {
  std::ofstream(layout_) << "m1 group=tiny\nm2 group=tiny speed=fast\n";
  const auto up = cluster("up");
  EXPECT_EQ(up.exit_code, 1) << up.describe();
  EXPECT_NE(up.err.find(layout_.string() + ":2: speed must be a positive number, got 'fast'"),
            std::string::npos)
      << up.err;
}

TEST_F(Lifecycle, UpRejectsAMissingPluginBeforeStartingAnything) {
  const auto up = run_command({kScript, "up", "--run-dir", dir_.string(), "--layout",
                               layout_.string(), "--plugin", "/nonexistent/hetscale.so"},
                              60s);
  EXPECT_EQ(up.exit_code, 1) << up.describe();
  EXPECT_NE(up.err.find("plugin '/nonexistent/hetscale.so' not found"), std::string::npos)
      << up.err;
  EXPECT_EQ(cluster("status").exit_code, 3);
}

}  // namespace
}  // namespace hetscale::test
