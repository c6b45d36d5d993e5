// The writer process of a user's file (user_file_appender.hpp): what it writes, that the
// caller never waits on it beyond a bound, that it keeps nothing of the caller's but its
// pipes, and that it has the caller's effective ids for good.
#include "user_file_appender.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "hetscale/base/regular_file.hpp"

namespace hetscale::spank {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Optional;

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

class UserFileAppenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-appender-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }

// Waits (up to 5 s) until `file` exists: the writer has set itself up and created it.
void wait_for(const fs::path& file) {
  for (int i = 0; i < 500 && !fs::exists(file); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(fs::exists(file)) << file;
}

// The line of /proc/PID/status that starts with `key` ("Uid:"), its fields.
std::string status_line(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  return "";
}

std::string words(const std::string& text) {
  std::istringstream in(text);
  std::string out, word;
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

TEST_F(UserFileAppenderTest, TheLinesArriveInANewFileFlushedBeforeFinishReturns) {
  const fs::path file = dir_ / "n1.tasks";
  UserFileAppender writer = UserFileAppender::start(file, 0);
  const pid_t pid = writer.pid();
  ASSERT_GT(pid, 0);
  EXPECT_EQ(writer.append("0 1 2 0\n"), std::nullopt);
  EXPECT_EQ(writer.append("1 1 3 256\n"), std::nullopt);
  EXPECT_EQ(writer.finish(5s), std::nullopt);
  EXPECT_EQ(read_regular_file(file, 1000), "0 1 2 0\n1 1 3 256\n");
  EXPECT_EQ(fs::status(file).permissions(), fs::perms(0644));
  writer.abandon();
  EXPECT_EQ(writer.pid(), -1);
  EXPECT_FALSE(alive(pid)) << "the writer was not reaped";
}

TEST_F(UserFileAppenderTest, AnExistingFileOrASymbolicLinkIsNeverWritten) {
  const fs::path file = dir_ / "n1.tasks";
  { std::ofstream(file) << "someone else's\n"; }
  UserFileAppender writer = UserFileAppender::start(file, 0);
  (void)writer.append("0 1 2 0\n");  // the writer may not have tried yet
  EXPECT_THAT(writer.finish(5s), Optional(HasSubstr("cannot create " + file.string() + ": File exists")));
  EXPECT_EQ(read_regular_file(file, 100), "someone else's\n");

  const fs::path target = dir_ / "target";
  fs::create_symlink(target, dir_ / "n2.tasks");
  UserFileAppender through_link = UserFileAppender::start(dir_ / "n2.tasks", 0);
  EXPECT_THAT(through_link.finish(5s), Optional(HasSubstr("File exists")));
  EXPECT_FALSE(fs::exists(target));
}

// A writer that makes no progress (stopped here; on a real system, waiting on a file system
// that does not answer) costs its caller nothing but the bound it gives finish().
TEST_F(UserFileAppenderTest, AStalledWriterNeverBlocksItsCaller) {
  const fs::path file = dir_ / "n1.tasks";
  UserFileAppender writer = UserFileAppender::start(file, 0);
  const pid_t pid = writer.pid();
  wait_for(file);
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  const std::string line(63, 'x');
  std::optional<std::string> refused;
  std::size_t handed = 0;
  const auto begin = std::chrono::steady_clock::now();
  while (!refused && handed < 100000) {
    refused = writer.append(line + "\n");
    if (!refused) ++handed;
  }
  EXPECT_THAT(refused, Optional(HasSubstr("pipe is full")));
  EXPECT_GE(handed * 64, 65536U);  // the pipe's own room, at least
  EXPECT_THAT(writer.finish(300ms), Optional(HasSubstr("did not answer within 300 ms")));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_LT(seconds, 3.0) << "sanity bound only: nothing here may wait for the writer";
  writer.abandon();  // SIGKILL ends even a stopped process
  for (int i = 0; i < 100 && alive(pid); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(alive(pid));
}

TEST_F(UserFileAppenderTest, SignalsButSigkillLeaveTheWriterAlone) {
  const fs::path file = dir_ / "n1.tasks";
  UserFileAppender writer = UserFileAppender::start(file, 0);
  wait_for(file);
  for (int signal : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGPIPE, SIGCONT}) ASSERT_EQ(::kill(writer.pid(), signal), 0);
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(alive(writer.pid()));
  EXPECT_EQ(writer.append("0 1 2 0\n"), std::nullopt);
  EXPECT_EQ(writer.finish(5s), std::nullopt);
  EXPECT_EQ(read_regular_file(file, 100), "0 1 2 0\n");
}

TEST_F(UserFileAppenderTest, TheWriterKeepsNoDescriptorOfItsCaller) {
  ASSERT_EQ(::geteuid(), 0U) << "reading another process's descriptors needs root (the tests run as root, as scripts/test.sh does)";
  // A descriptor the caller holds without close-on-exec, as slurmstepd holds its sockets.
  const fs::path marker = dir_ / "marker";
  const int held = ::open(marker.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(held, 0);
  const fs::path file = dir_ / "n1.tasks";
  UserFileAppender writer = UserFileAppender::start(file, 0);
  wait_for(file);
  std::vector<std::string> targets;
  for (const fs::directory_entry& fd : fs::directory_iterator("/proc/" + std::to_string(writer.pid()) + "/fd"))
    targets.push_back(fs::read_symlink(fd.path()).string());
  ::close(held);
  // 0, 1, 2 on /dev/null, its two pipes and the file: nothing else.
  EXPECT_EQ(targets.size(), 6U) << ::testing::PrintToString(targets);
  for (const std::string& target : targets) {
    EXPECT_TRUE(target == "/dev/null" || target == file.string() || target.rfind("pipe:", 0) == 0) << target;
  }
  EXPECT_EQ(writer.finish(5s), std::nullopt);
}

TEST_F(UserFileAppenderTest, TheWriterHasTheCallersEffectiveIdsForGood) {
  ASSERT_EQ(::geteuid(), 0U) << "changing ids needs root (the tests run as root, as scripts/test.sh does)";
  fs::permissions(dir_, fs::perms(0777));
  const fs::path locked = dir_ / "root-only";
  fs::create_directories(locked);
  fs::permissions(locked, fs::perms(0700));
  // As slurmstepd in slurm_spank_user_init: root's real and saved uid, the job user's
  // effective ids and groups.
  std::vector<gid_t> groups(static_cast<std::size_t>(::getgroups(0, nullptr)));
  ASSERT_GE(::getgroups(static_cast<int>(groups.size()), groups.data()), 0);
  const gid_t nogroup = kNogroup;
  ASSERT_EQ(::setgroups(1, &nogroup), 0);
  ASSERT_EQ(::setegid(kNogroup), 0);
  ASSERT_EQ(::seteuid(kNobody), 0);
  std::optional<UserFileAppender> writer;
  std::optional<UserFileAppender> refused;
  std::string error;
  try {
    writer = UserFileAppender::start(dir_ / "n1.tasks", 0);
    refused = UserFileAppender::start(locked / "n1.tasks", 0);
  } catch (const std::exception& e) {
    error = e.what();
  }
  ASSERT_EQ(::seteuid(0), 0);
  ASSERT_EQ(::setegid(0), 0);
  ASSERT_EQ(::setgroups(groups.size(), groups.data()), 0);
  ASSERT_EQ(error, "");

  wait_for(dir_ / "n1.tasks");
  const pid_t pid = writer->pid();
  EXPECT_EQ(words(status_line(pid, "Uid:")), "65534 65534 65534 65534");
  EXPECT_EQ(words(status_line(pid, "Gid:")), "65534 65534 65534 65534");
  EXPECT_EQ(words(status_line(pid, "Groups:")), "65534");
  // Not dumpable: its /proc entries stay root's, so the user cannot read its memory.
  struct stat proc {};
  ASSERT_EQ(::stat(("/proc/" + std::to_string(pid) + "/mem").c_str(), &proc), 0);
  EXPECT_EQ(proc.st_uid, 0U);
  EXPECT_EQ(writer->append("0 1 2 0\n"), std::nullopt);
  EXPECT_EQ(writer->finish(5s), std::nullopt);
  EXPECT_EQ(fs::status(dir_ / "n1.tasks").permissions(), fs::perms(0644));
  struct stat st {};
  ASSERT_EQ(::stat((dir_ / "n1.tasks").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, kNobody);
  EXPECT_EQ(st.st_gid, kNogroup);
  // Where the user may not write, neither may the writer (root could).
  EXPECT_THAT(refused->finish(5s), Optional(HasSubstr("Permission denied")));
  EXPECT_FALSE(fs::exists(locked / "n1.tasks"));
}

// Where close_range is missing, the writer closes slurmstepd's descriptors one by one up
// to the highest a process can hold: never more than the kernel's nr_open allows, even
// with an unlimited RLIMIT_NOFILE (not billions of calls).
TEST(HighestPossibleFd, BelowTheLimitAndTheKernelsNrOpen) {
  EXPECT_EQ(highest_possible_fd(RLIM_INFINITY, 1048576UL), 1048575U);
  EXPECT_EQ(highest_possible_fd(RLIM_INFINITY, std::nullopt), 1048575U);
  EXPECT_EQ(highest_possible_fd(1024, 1048576UL), 1023U);
  EXPECT_EQ(highest_possible_fd(RLIM_INFINITY - 1, 4096UL), 4095U);
  EXPECT_EQ(highest_possible_fd(0, 1048576UL), 0U);
  // This machine's nr_open reads, and bounds every limit set here.
  const auto nr_open = kernel_nr_open();
  ASSERT_TRUE(nr_open.has_value());
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_LE(limit.rlim_max, *nr_open);
}

}  // namespace
}  // namespace hetscale::spank
