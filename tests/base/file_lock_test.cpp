// The exclusive lock: a lock file created whole by link(2), naming its holder, that works
// where flock does not (Lustre without `flock`: ENOSYS), a stale one broken, a live one
// (a process of this host, a Slurm job elsewhere) respected.
#include "hetscale/base/file_lock.hpp"

#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

class FileLock : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hetscale-lock-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = dir_ / "study.lock";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string refusal(const std::function<void()>& take) const {
    try {
      take();
    } catch (const Error& e) {
      return e.what();
    }
    return "taken";
  }
  void write_lock(const std::string& text) const { std::ofstream(path_) << text; }

  fs::path dir_;
  fs::path path_;
};

// A file system without flock (Lustre mounted without `flock`) answers ENOSYS.
int flock_not_implemented(int, int) {
  errno = ENOSYS;
  return -1;
}

TEST_F(FileLock, ASecondHolderIsRefusedNamingTheFirstUntilItLetsGo) {
  std::optional<ExclusiveFileLock> first;
  first.emplace(path_, "a study step");
  EXPECT_EQ(fs::status(path_).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(refusal([&] { ExclusiveFileLock second(path_, "a study step"); }),
            "a study step is already running (process " + std::to_string(::getpid()) + ", lock " + path_.string() +
                ")");
  first.reset();
  EXPECT_FALSE(fs::exists(path_));  // the lock file exists while the lock is held
  EXPECT_NO_THROW(ExclusiveFileLock(path_, "a study step"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 0);  // no file left
}

TEST_F(FileLock, TheLockFileNamesItsHolder) {
  FileLockOptions options;
  options.job_id = 4242;
  const ExclusiveFileLock lock(path_, "a study step", options);
  std::ifstream in(path_);
  std::stringstream text;
  text << in.rdbuf();
  const LockHolder holder = parse_lock_holder(text.str());
  EXPECT_EQ(holder.pid, ::getpid());
  EXPECT_EQ(holder.host, this_host_name());
  EXPECT_TRUE(holder.started.has_value());
  EXPECT_EQ(holder.job_id, 4242U);
}

// Where flock fails with ENOSYS the lock is the lock file alone, and still excludes.
TEST_F(FileLock, WorksWhereFlockIsNotImplemented) {
  FileLockOptions options;
  options.flock = flock_not_implemented;
  std::optional<ExclusiveFileLock> first;
  first.emplace(path_, "a study step", options);
  EXPECT_EQ(refusal([&] { ExclusiveFileLock second(path_, "a study step", options); }),
            "a study step is already running (process " + std::to_string(::getpid()) + ", lock " + path_.string() +
                ")");
  first.reset();
  EXPECT_NO_THROW(ExclusiveFileLock(path_, "a study step", options));
}

// A process of this host that held the lock and died without letting go: its lock is
// broken and taken, and the taker can say whose it was.
TEST_F(FileLock, AStaleLockOfAProcessThatEndedIsTaken) {
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(dead, &status, 0), dead);
  write_lock(std::to_string(dead) + "\nhost " + this_host_name() + "\n");
  std::optional<ExclusiveFileLock> lock;
  lock.emplace(path_, "a study step");
  ASSERT_TRUE(lock->broke_stale().has_value());
  EXPECT_EQ(lock->broke_stale()->pid, dead);
  lock.reset();
  // A pid that now names a process started at another time than the holder is stale too.
  write_lock("1\nhost " + this_host_name() + "\nstarted 123456789\n");
  EXPECT_EQ(refusal([&] { ExclusiveFileLock again(path_, "a study step"); }), "taken");
}

// A holder on another host in a Slurm job: refused while the job runs, taken once it has
// ended; with no job to ask about, it is never broken, and the message says what to do.
TEST_F(FileLock, AHolderOnAnotherHostIsJudgedByItsJob) {
  HolderState job = HolderState::alive;
  FileLockOptions options;
  options.job_check = [&job](std::uint64_t id) { return id == 77 ? job : HolderState::unknown; };
  write_lock("4242\nhost elsewhere-node\nstarted 99\njob 77\n");
  EXPECT_EQ(refusal([&] { ExclusiveFileLock lock(path_, "a study step", options); }),
            "a study step is already running (process 4242 on host elsewhere-node, Slurm job 77, lock " +
                path_.string() + ")");
  job = HolderState::unknown;  // Slurm could not be asked
  EXPECT_EQ(refusal([&] { ExclusiveFileLock lock(path_, "a study step", options); }),
            "a study step is already running (process 4242 on host elsewhere-node, Slurm job 77, lock " +
                path_.string() + "); if it is not, remove " + path_.string());
  job = HolderState::gone;
  EXPECT_EQ(refusal([&] { ExclusiveFileLock lock(path_, "a study step", options); }), "taken");
  write_lock("4242\nhost elsewhere-node\n");  // not in a job
  EXPECT_EQ(refusal([&] { ExclusiveFileLock lock(path_, "a study step", options); }),
            "a study step is already running (process 4242 on host elsewhere-node, lock " + path_.string() +
                "); if it is not, remove " + path_.string());
}

// A lock file of a hetscale that knew only flock (its pid alone): held while its flock is.
TEST_F(FileLock, ALockFileOfFlockAloneIsHeldWhileItsFlockIs) {
  write_lock("4242\n");
  const int holder = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(holder, 0);
  ASSERT_EQ(::flock(holder, LOCK_EX | LOCK_NB), 0);
  EXPECT_EQ(refusal([&] { ExclusiveFileLock lock(path_, "a study step"); }),
            "a study step is already running (process 4242, lock " + path_.string() + ")");
  ::close(holder);
  EXPECT_EQ(refusal([&] { ExclusiveFileLock lock(path_, "a study step"); }), "taken");
}

// Process B judged the old lock file stale; process A broke it first and made its own.
// B then moves A's new lock file aside (taking it for the stale one) and, before B can
// put it back, process C takes the lock. A must not believe it holds the lock: it checks
// after taking it that the lock file is still the one it made, and finds C's. The
// interleaving is driven through the flock stand-in, which A calls right after making
// its lock file.
TEST_F(FileLock, AHolderWhoseLockFileWasMovedAsideMeanwhileDoesNotHoldIt) {
  const fs::path aside = dir_ / "moved-aside-by-b";
  bool interleaved = false;
  FileLockOptions options;
  options.flock = [&](int fd, int operation) {
    if (!interleaved) {
      interleaved = true;
      EXPECT_EQ(::rename(path_.c_str(), aside.c_str()), 0);                        // B
      write_lock(std::to_string(::getpid()) + "\nhost " + this_host_name() + "\n");  // C, alive
    }
    return ::flock(fd, operation);
  };
  EXPECT_EQ(refusal([&] { ExclusiveFileLock a(path_, "a study step", options); }),
            "a study step is already running (process " + std::to_string(::getpid()) + ", lock " + path_.string() +
                ")");
  EXPECT_TRUE(interleaved);
  // C's lock file is untouched.
  std::ifstream in(path_);
  std::string pid;
  std::getline(in, pid);
  EXPECT_EQ(pid, std::to_string(::getpid()));
}

}  // namespace
}  // namespace hetscale
