#include "user_file_appender.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale::spank {
namespace {

// What the writer reports, one fixed-size message each (a pipe write of at most PIPE_BUF
// bytes arrives whole).
enum class ReportKind : std::int32_t { setup = 1, create, read, write, flush, flushed };
struct Report {
  ReportKind kind;
  std::int32_t error;  // errno of the failure, 0 for `flushed`
};

std::string describe(const Report& report, const std::string& file) {
  const std::string reason = std::strerror(report.error);
  switch (report.kind) {
    case ReportKind::setup: return "the writer cannot drop to the job user's ids: " + reason;
    case ReportKind::create: return "cannot create " + file + ": " + reason;
    case ReportKind::read: return "the writer cannot read its lines: " + reason;
    case ReportKind::write: return "cannot write: " + reason;
    case ReportKind::flush: return "cannot flush: " + reason;
    case ReportKind::flushed: break;
  }
  return "the writer reported " + std::to_string(static_cast<int>(report.kind));
}

// ---- the writer process: after fork() in a process with threads, only system calls ----

void send_report(int fd, ReportKind kind, int error) {
  const Report report{kind, error};
  [[maybe_unused]] const ssize_t ignored = ::write(fd, &report, sizeof report);
}

[[noreturn]] void fail(int reports, ReportKind kind, int error) {
  send_report(reports, kind, error);
  ::_exit(1);
}

// Closes every descriptor from `first` to `last` (inclusive); where close_range is
// missing, one close per descriptor up to `highest` (highest_possible_fd).
void close_fds(unsigned first, unsigned last, unsigned highest) {
  if (first > last) return;
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, last, 0U) == 0) return;
#endif
  const unsigned top = std::min(last, highest);
  for (unsigned fd = first; fd <= top && fd >= first; ++fd) ::close(static_cast<int>(fd));
}

// Keeps only `a` and `b` (both at least 3) and 0, 1, 2 on /dev/null.
void keep_only(int a, int b, unsigned highest) {
  const unsigned low = static_cast<unsigned>(std::min(a, b));
  const unsigned high = static_cast<unsigned>(std::max(a, b));
  close_fds(3, low - 1, highest);
  close_fds(low + 1, high - 1, highest);
  close_fds(high + 1, ~0U, highest);
  const int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd <= 2 && null >= 0; ++fd)
    if (null != fd) ::dup2(null, fd);
  if (null > 2) ::close(null);
}

// Takes `uid`, `gid` and `groups` as real, effective and saved ids, with no way back: from
// slurmstepd's effective ids (the job user's) with root as real and saved uid.
bool drop_privileges(uid_t uid, gid_t gid, const gid_t* groups, std::size_t group_count) {
  // Root again for a moment, the only way to set the groups and all three ids; an
  // unprivileged caller (the unit tests) keeps its groups and needs its own ids already.
  if (::geteuid() == 0 || ::seteuid(0) == 0) {
    if (::setgroups(group_count, groups) != 0) return false;
  }
  if (::setresgid(gid, gid, gid) != 0 || ::setresuid(uid, uid, uid) != 0) return false;
  uid_t r = 0, e = 0, s = 0;
  gid_t rg = 0, eg = 0, sg = 0;
  if (::getresuid(&r, &e, &s) != 0 || r != uid || e != uid || s != uid) return false;
  if (::getresgid(&rg, &eg, &sg) != 0 || rg != gid || eg != gid || sg != gid) return false;
  if (uid != 0 && (::setuid(0) == 0 || ::seteuid(0) == 0)) return false;
  // Not dumpable: the job's user may not ptrace it or read its memory, a copy of
  // slurmstepd's at the fork (changing the ids resets this to the system's setting).
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  return true;
}

struct WriterSetup {
  const char* file;
  int lines;
  int reports;
  uid_t uid;
  gid_t gid;
  const gid_t* groups;
  std::size_t group_count;
  unsigned highest_fd;  // highest_possible_fd, read before the fork
};

[[noreturn]] void run_writer(const WriterSetup& setup) {
  // Slurm signals the step's processes (linuxproc: slurmstepd's descendants; cgroup:
  // slurmstepd's children); only SIGKILL, which cannot be caught, ends the writer.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (int signal = 1; signal < NSIG; ++signal)
    if (signal != SIGKILL && signal != SIGSTOP) ::sigaction(signal, &ignore, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  int lines = setup.lines;
  int reports = setup.reports;
  if (lines < 3) lines = ::fcntl(lines, F_DUPFD, 3);
  if (reports < 3) reports = ::fcntl(reports, F_DUPFD, 3);
  if (lines < 0 || reports < 0) ::_exit(1);
  keep_only(lines, reports, setup.highest_fd);
  ::setsid();
  ::prctl(PR_SET_NAME, "hetscale-times", 0, 0, 0);
  if (::chdir("/") != 0) fail(reports, ReportKind::setup, errno);
  if (!drop_privileges(setup.uid, setup.gid, setup.groups, setup.group_count)) {
    fail(reports, ReportKind::setup, errno != 0 ? errno : EPERM);
  }

  const int fd = ::open(setup.file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) fail(reports, ReportKind::create, errno);
  char buffer[4096];
  while (true) {
    const ssize_t got = ::read(lines, buffer, sizeof buffer);
    if (got == 0) break;  // slurmstepd has handed every line
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(reports, ReportKind::read, errno);
    }
    for (ssize_t done = 0; done < got;) {
      const ssize_t written = ::write(fd, buffer + done, static_cast<std::size_t>(got - done));
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) fail(reports, ReportKind::write, written < 0 ? errno : EIO);
      done += written;
    }
  }
  if (::fdatasync(fd) != 0) fail(reports, ReportKind::flush, errno);
  if (::close(fd) != 0) fail(reports, ReportKind::flush, errno);
  send_report(reports, ReportKind::flushed, 0);
  ::_exit(0);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::int64_t remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return std::max<std::int64_t>(left.count(), 0);
}

}  // namespace

unsigned highest_possible_fd(rlim_t soft_limit, std::optional<unsigned long> nr_open) {
  constexpr unsigned long linux_default_nr_open = 1UL << 20;
  unsigned long ceiling = nr_open.value_or(linux_default_nr_open);
  if (soft_limit != RLIM_INFINITY) ceiling = std::min<unsigned long>(ceiling, soft_limit);
  if (ceiling == 0) return 0;
  return static_cast<unsigned>(std::min<unsigned long>(ceiling - 1, UINT_MAX));
}

std::optional<unsigned long> kernel_nr_open() {
  const int fd = ::open("/proc/sys/fs/nr_open", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char text[32] = {};
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  unsigned long value = 0;
  ssize_t i = 0;
  for (; i < n && text[i] >= '0' && text[i] <= '9' && value < (1UL << 40); ++i)
    value = value * 10 + static_cast<unsigned long>(text[i] - '0');
  if (i == 0 || value == 0) return std::nullopt;
  return value;
}

UserFileAppender UserFileAppender::start(const std::filesystem::path& file, std::size_t capacity) {
  UserFileAppender appender;
  appender.file_ = file.string();
  // The caller's ids, read before the fork: the writer runs nothing but system calls.
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  const int group_count = ::getgroups(0, nullptr);
  if (group_count < 0) throw Error(std::string("cannot read the job user's groups: ") + std::strerror(errno));
  std::vector<gid_t> groups(static_cast<std::size_t>(group_count) + 1);
  const int groups_read = ::getgroups(static_cast<int>(groups.size()), groups.data());
  if (groups_read < 0) throw Error(std::string("cannot read the job user's groups: ") + std::strerror(errno));
  groups.resize(static_cast<std::size_t>(groups_read));

  int lines[2] = {-1, -1};
  int reports[2] = {-1, -1};
  if (::pipe2(lines, O_CLOEXEC) != 0) throw Error(std::string("cannot make a pipe: ") + std::strerror(errno));
  appender.lines_reader_ = lines[0];
  appender.lines_ = lines[1];
  if (::pipe2(reports, O_CLOEXEC) != 0) throw Error(std::string("cannot make a pipe: ") + std::strerror(errno));
  appender.reports_ = reports[0];
  if (::fcntl(appender.lines_, F_SETFL, O_NONBLOCK) != 0 || ::fcntl(appender.reports_, F_SETFL, O_NONBLOCK) != 0) {
    const int error = errno;
    ::close(reports[1]);
    throw Error(std::string("cannot make a pipe non-blocking: ") + std::strerror(error));
  }
  // Room for every line while the writer waits on its file system, as far as the system
  // allows; the default 64 KiB holds a thousand lines.
  if (capacity > 65536) (void)::fcntl(appender.lines_, F_SETPIPE_SZ, static_cast<int>(std::min<std::size_t>(capacity, 1 << 20)));

  rlimit limit{};
  const WriterSetup setup{appender.file_.c_str(), lines[0], reports[1], uid, gid, groups.data(), groups.size(),
                          highest_possible_fd(::getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : RLIM_INFINITY,
                                              kernel_nr_open())};
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(reports[1]);
    throw Error(std::string("cannot start the writer: fork: ") + std::strerror(error));
  }
  if (pid == 0) run_writer(setup);
  ::close(reports[1]);
  appender.pid_ = pid;
  return appender;
}

UserFileAppender& UserFileAppender::operator=(UserFileAppender&& other) noexcept {
  if (this != &other) {
    abandon();
    file_ = std::move(other.file_);
    pid_ = std::exchange(other.pid_, -1);
    lines_ = std::exchange(other.lines_, -1);
    lines_reader_ = std::exchange(other.lines_reader_, -1);
    reports_ = std::exchange(other.reports_, -1);
    ended_ = other.ended_;
    flushed_ = other.flushed_;
  }
  return *this;
}

std::optional<std::string> UserFileAppender::read_reports() {
  while (reports_ >= 0 && !ended_) {
    Report report{};
    const ssize_t got = ::read(reports_, &report, sizeof report);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;  // EAGAIN: nothing more now
    if (got == 0) {
      ended_ = true;
      break;
    }
    if (got != sizeof report) return "the writer sent a broken report";
    if (report.kind == ReportKind::flushed) {
      flushed_ = true;
      continue;
    }
    return describe(report, file_);
  }
  return std::nullopt;
}

std::optional<std::string> UserFileAppender::append(std::string_view line) {
  if (lines_ < 0) return "the writer takes no more lines";
  if (std::optional<std::string> failure = read_reports()) return failure;
  if (ended_) return "the writer has ended";
  if (line.size() > PIPE_BUF) return "a line of " + std::to_string(line.size()) + " bytes is too long";
  const ssize_t written = ::write(lines_, line.data(), line.size());
  if (written == static_cast<ssize_t>(line.size())) return std::nullopt;
  if (written < 0 && errno == EAGAIN) {
    return "the file system does not take the lines: the writer's pipe is full";
  }
  return std::string("cannot hand a line to the writer: ") + (written < 0 ? std::strerror(errno) : "short write");
}

std::optional<std::string> UserFileAppender::finish(std::chrono::milliseconds bound) {
  close_fd(lines_);  // the writer reads to the end, flushes and reports
  close_fd(lines_reader_);
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (true) {
    if (std::optional<std::string> failure = read_reports()) return failure;
    if (flushed_) return std::nullopt;
    if (ended_ || reports_ < 0) return "the writer ended before the file was flushed";
    const std::int64_t left = remaining_ms(deadline);
    if (left == 0) {
      return "the file system did not answer within " + std::to_string(bound.count()) + " ms";
    }
    pollfd ready{reports_, POLLIN, 0};
    if (::poll(&ready, 1, static_cast<int>(std::min<std::int64_t>(left, INT_MAX))) < 0 && errno != EINTR) {
      return std::string("cannot wait for the writer: ") + std::strerror(errno);
    }
  }
}

void UserFileAppender::abandon() noexcept {
  close_fd(lines_);
  close_fd(lines_reader_);
  if (pid_ > 0) {
    (void)read_reports();
    // The reports' pipe is the writer's alone: until it ends, the process has not exited,
    // so pid_ is still our child and names no other process.
    if (!ended_ && !flushed_) ::kill(pid_, SIGKILL);
    // Reap it when it is gone (at once, or within a moment after SIGKILL); a writer that a
    // file system still holds is left to init, or to slurmstepd's own wait for its children.
    for (int attempt = 0; attempt < 20; ++attempt) {
      int status = 0;
      const pid_t reaped = ::waitpid(pid_, &status, WNOHANG);
      if (reaped == pid_ || (reaped < 0 && errno == ECHILD)) break;
      ::usleep(5000);
    }
  }
  close_fd(reports_);
  pid_ = -1;
}

}  // namespace hetscale::spank
