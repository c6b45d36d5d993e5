// The task times' directory on a file system that never answers (a FUSE mount the user
// serves, a hung NFS server): the step still ends, within the plugin's bound, with its own
// exit status, and its nodes stay up. The file system is the test's own
// (stall_fs.c, Debian's fuse3): creating or writing a file in its `stall` directory is never
// answered, and a process waiting there cannot be killed until the file system goes.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "plugin_support.hpp"

extern char** environ;

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Whether `pid` sees a mount at `where`.
bool mounted(pid_t pid, const fs::path& where) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/mountinfo");
  for (std::string line; std::getline(in, line);)
    if (line.find(" " + where.string() + " ") != std::string::npos) return true;
  return false;
}

// The test's FUSE file system at `mnt` as slurmstepd sees it, for the length of the test:
// ended (and with it every call waiting on it) in the destructor, also when the test fails.
// On a cluster of another Slurm release the daemons run in the mount namespace of the
// cluster's holder, inside the view of its Debian root (scripts/lib/slurm-leg.sh), which a
// mount on the host does not reach: there the file system is mounted in that namespace,
// under the view, where the same path leads. (A mount on the host under the repository
// would also stop the unprivileged srun: its wrapper's non-recursive bind of the
// repository, in a user namespace, may not uncover what that mount hides.)
class StallFs {
 public:
  StallFs(const Testbed& tb, fs::path mnt) : mnt_(std::move(mnt)) {
    const std::string program = HETSCALE_STALL_FS;
    if (program.empty()) throw std::runtime_error("no stall_fs: install fuse3 and libfuse3-dev (scripts/install-deps.sh)");
    if (::access("/dev/fuse", R_OK | W_OK) != 0) throw std::runtime_error("/dev/fuse is not usable here");
    fs::create_directories(mnt_);
    where_ = mnt_;
    std::vector<std::string> argv{program, mnt_.string()};
    if (!fixture_release(tb).empty()) {
      const std::string holder = read_text(tb.dir / "pid" / "holder.pid");
      where_ = tb.dir / "leg" / "view" / "root" / mnt_.relative_path();
      argv = {"nsenter", "--target", holder.substr(0, holder.find_first_of(" \n")), "--mount", "--", program,
              where_.string()};
    }
    std::vector<char*> args;
    for (std::string& arg : argv) args.push_back(arg.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    for (int i = 0; i < 500 && pid_ > 0 && !mounted(pid_, where_); ++i) std::this_thread::sleep_for(10ms);
    if (pid_ <= 0 || !mounted(pid_, where_))
      throw std::runtime_error("the stall file system did not mount on " + where_.string());
  }
  ~StallFs() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);  // its loop ends and unmounts; the kernel fails what waits on it
      for (int i = 0; i < 200 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) std::this_thread::sleep_for(10ms);
      if (::waitpid(pid_, nullptr, WNOHANG) == 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
      }
    }
    ::umount2(mnt_.c_str(), MNT_DETACH);
  }
  StallFs(const StallFs&) = delete;
  StallFs& operator=(const StallFs&) = delete;

 private:
  fs::path mnt_;
  fs::path where_;  // the mount point as the file system's own process sees it
  pid_t pid_ = -1;
};

// The node's state as sinfo gives it ("idle", "drained", "mixed+drain", ...).
// The node's state as sinfo gives it; sinfo must answer with one, else the checks that no
// node drained would pass on an empty answer.
std::string node_state(const Testbed& tb, const std::string& node) {
  const auto r = run_command({"sinfo", "-h", "-N", "-n", node, "-o", "%T"}, 30s, {"SLURM_CONF=" + tb.slurm_conf.string()});
  EXPECT_TRUE(r.ok()) << "sinfo -n " << node << ": " << r.describe();
  EXPECT_NE(r.out.find_first_not_of(" \n"), std::string::npos) << "sinfo gave no state of " << node;
  return r.out;
}

// Sanity bound only: the step waits the plugin's 5 s bound for the stalled file, plus srun.
constexpr auto kStepBound = 30s;

TEST(PluginTaskTimesStall, AStepTimedOnAFileSystemThatNeverAnswersEndsWithinItsBoundAndItsNodesStayUp) {
  const Testbed tb = Testbed::from_env();
  const fs::path base = fs::path(HETSCALE_BINARY_DIR) / "testbed" / "plugin-files" / "stall-fs";
  ::umount2((base / "mnt").c_str(), MNT_DETACH);  // a run that died before its clean-up
  const fs::path dir = fresh_dir("stall-fs");
  const StallFs stall(tb, dir / "mnt");
  const fs::path times = dir / "mnt" / "stall";

  // The job's user runs the step (the unprivileged test user, as a user of a centre), with
  // the task times' directory on the stalled file system.
  const auto begin = std::chrono::steady_clock::now();
  const auto r = run_command({"runuser", "-u", "hetscale-test", "--", "srun", "--chdir=/tmp", "-w", "n1,n2", "-N2",
                              "-n2", "sh", "-c", "exit 3"},
                             kStepBound, {"SLURM_CONF=" + tb.slurm_conf.string(), "HETSCALE_TASK_TIMES_DIR=" + times.string()});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_FALSE(r.timed_out) << "the step did not end within " << kStepBound.count() << " s: " << r.describe();
  EXPECT_EQ(r.exit_code, 3) << r.describe();
  EXPECT_LT(seconds, 20.0);
  // The plugin gave up on the file and said so in slurmd's log, not on the user's terminal.
  for (const std::string node : {"n1", "n2"}) {
    SCOPED_TRACE(node);
    const std::string log = read_text(tb.dir / "log" / ("slurmd-" + node + ".log"));
    EXPECT_NE(log.find("hetscale: task times in " + (times / (node + ".tasks")).string() +
                       ": the file system did not answer within 5000 ms (the step runs untimed)"),
              std::string::npos);
    EXPECT_EQ(node_state(tb, node).find("drain"), std::string::npos) << node_state(tb, node);
  }
  EXPECT_TRUE(hetscale_lines(r.err).empty()) << r.err;

  // The nodes take the next step at once, the writers still waiting on the file system.
  const auto next = run_command({"srun", "-w", "n1,n2", "-N2", "-n2", "true"}, kStepBound,
                                {"SLURM_CONF=" + tb.slurm_conf.string()});
  EXPECT_TRUE(next.ok()) << next.describe();
  for (const std::string node : {"n1", "n2"}) EXPECT_EQ(node_state(tb, node).find("drain"), std::string::npos);
}

}  // namespace
}  // namespace hetscale::test
