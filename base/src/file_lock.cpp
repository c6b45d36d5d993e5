#include "hetscale/base/file_lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

int system_flock(int fd, int operation) { return ::flock(fd, operation); }

// flock that retries an interrupted call.
int call_flock(const FileLockOptions& options, int fd, int operation) {
  int status = 0;
  do status = options.flock ? options.flock(fd, operation) : system_flock(fd, operation);
  while (status != 0 && errno == EINTR);
  return status;
}

// When the process `pid` of this host started (clock ticks after boot, /proc/PID/stat's
// 22nd field), so that a pid used again by another process is not taken for the holder.
std::optional<unsigned long long> process_start(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  const std::size_t end_of_name = text.rfind(')');  // the name may hold spaces and ')'
  if (end_of_name == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(end_of_name + 1));
  std::string field;
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long start = 0;
  if (!(fields >> start)) return std::nullopt;
  return start;
}

std::string holder_text(const LockHolder& h) {
  std::string out = std::to_string(h.pid) + "\nhost " + h.host + "\n";
  if (h.started) out += "started " + std::to_string(*h.started) + "\n";
  if (h.job_id) out += "job " + std::to_string(*h.job_id) + "\n";
  return out;
}

std::string random_suffix() {
  std::random_device source;
  std::ostringstream out;
  out << std::hex << source() << source();
  return out.str();
}

// A file of the lock's directory no other process names: <lock>.<what>.<host>.<pid>.<random>.
fs::path sibling(const fs::path& path, const std::string& what) {
  return fs::path(path.string() + "." + what + "." + this_host_name() + "." + std::to_string(::getpid()) + "." +
                  random_suffix());
}

struct FileId {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileId&) const = default;
};

std::optional<FileId> file_id(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

[[noreturn]] void fail(const std::string& doing, const fs::path& path, int error) {
  throw Error("cannot " + doing + " the lock " + path.string() + ": " + std::strerror(error));
}

// Creates the lock file whole, holding `text`: its identity when this process made it,
// nothing when another lock file is there.
std::optional<FileId> create_lock_file(const fs::path& path, const std::string& text) {
  const fs::path temporary = sibling(path, "new");
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail("create", path, errno);
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int write_error = errno;
  struct stat made {};
  const bool known = ::fstat(fd, &made) == 0;
  const int stat_error = errno;
  ::close(fd);
  if (!written || !known) {
    ::unlink(temporary.c_str());
    if (!written) fail("write", path, write_error);
    fail("create", path, stat_error);
  }
  const int linked = ::link(temporary.c_str(), path.c_str());
  const int link_error = errno;
  // Over NFS the reply to a link that succeeded can be lost: the link count tells.
  struct stat st {};
  const bool held = linked == 0 || (::stat(temporary.c_str(), &st) == 0 && st.st_nlink == 2);
  ::unlink(temporary.c_str());
  if (!held && link_error != EEXIST) fail("create", path, link_error);
  if (!held) return std::nullopt;
  return FileId{made.st_dev, made.st_ino};
}

// The lock file as it is now: its identity and text; nothing when it is gone.
struct ExistingLock {
  FileId id;
  std::string text;
  int fd = -1;  // open for reading, for the flock check
};

std::optional<ExistingLock> read_existing(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail("read", path, errno);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    fail("read", path, error);
  }
  ExistingLock out{{st.st_dev, st.st_ino}, {}, fd};
  char buffer[512];
  ssize_t n = 0;
  while (out.text.size() < 4096 && (n = ::read(fd, buffer, sizeof buffer)) > 0)
    out.text.append(buffer, static_cast<std::size_t>(n));
  return out;
}

HolderState judge(const LockHolder& holder, int fd, const FileLockOptions& options) {
  if (holder.host.empty()) {
    // A lock file of flock alone: held while its flock is. Where flock does not work,
    // such a holder never held it.
    if (call_flock(options, fd, LOCK_EX | LOCK_NB) == 0) return HolderState::gone;  // released with fd
    return errno == EWOULDBLOCK ? HolderState::alive : HolderState::gone;
  }
  if (holder.host == this_host_name()) {
    if (holder.pid == ::getpid()) return HolderState::alive;
    if (holder.pid <= 0 || (::kill(static_cast<pid_t>(holder.pid), 0) != 0 && errno == ESRCH))
      return HolderState::gone;
    const auto started = process_start(holder.pid);
    if (holder.started && started && *started != *holder.started) return HolderState::gone;
    return HolderState::alive;
  }
  if (holder.job_id && options.job_check) return options.job_check(*holder.job_id);
  return HolderState::unknown;
}

// Removes a stale lock file, unless another process replaced it since it was judged
// (`judged`): it is moved aside first, and put back when it is not the one judged.
void break_stale(const fs::path& path, const FileId& judged) {
  const fs::path aside = sibling(path, "stale");
  if (::rename(path.c_str(), aside.c_str()) != 0) {
    if (errno == ENOENT) return;  // another process broke it first
    fail("break", path, errno);
  }
  if (file_id(aside) != judged && ::link(aside.c_str(), path.c_str()) != 0) {
    // A new holder's lock, and yet another lock file took its place meanwhile: the new
    // holder's stays aside, named, rather than be removed.
    throw Error("cannot break the stale lock " + path.string() + ": it changed hands meanwhile; the lock of the "
                "holder before is at " + aside.string());
  }
  ::unlink(aside.c_str());
}

std::string refusal(const std::string& what, const LockHolder& holder, HolderState state, const fs::path& path) {
  std::string who;
  if (holder.pid > 0) who += "process " + std::to_string(holder.pid);
  if (!holder.host.empty() && holder.host != this_host_name()) who += " on host " + holder.host;
  if (holder.job_id) who += (who.empty() ? "" : ", ") + std::string("Slurm job ") + std::to_string(*holder.job_id);
  std::string out = what + " is already running (" + (who.empty() ? "" : who + ", ") + "lock " + path.string() + ")";
  if (state == HolderState::unknown) out += "; if it is not, remove " + path.string();
  return out;
}

}  // namespace

std::string this_host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

LockHolder parse_lock_holder(const std::string& text) {
  LockHolder out;
  std::istringstream lines(text);
  std::string line;
  if (std::getline(lines, line)) {
    std::size_t digits = 0;
    while (digits < line.size() && digits < 18 && line[digits] >= '0' && line[digits] <= '9') ++digits;
    if (digits > 0) out.pid = std::stol(line.substr(0, digits));
  }
  while (std::getline(lines, line)) {
    const std::size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    const std::string key = line.substr(0, space);
    const std::string value = line.substr(space + 1);
    try {
      if (key == "host") out.host = value;
      if (key == "started") out.started = std::stoull(value);
      if (key == "job") out.job_id = std::stoull(value);
    } catch (const std::exception&) {
      // A value that is no number names nothing.
    }
  }
  return out;
}

ExclusiveFileLock::ExclusiveFileLock(const fs::path& path, const std::string& what, FileLockOptions options)
    : path_(path) {
  const LockHolder me{::getpid(), this_host_name(), process_start(::getpid()), options.job_id};
  const std::string text = holder_text(me);
  // A few rounds: each either takes the lock, refuses, or breaks a stale lock and tries again.
  for (int round = 0; round < 5; ++round) {
    if (const std::optional<FileId> made = create_lock_file(path, text)) {
      fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
      if (fd_ < 0 && errno != ENOENT) fail("open", path, errno);
      struct stat st {};
      const bool ours = fd_ >= 0 && ::fstat(fd_, &st) == 0 && FileId{st.st_dev, st.st_ino} == *made;
      inode_ = made->inode;
      // flock too, where the file system has it: a hetscale that knew only flock is refused.
      if (ours && call_flock(options, fd_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        ::unlink(path.c_str());
        ::close(fd_);
        fd_ = -1;
        throw Error(refusal(what, {}, HolderState::alive, path));
      }
      // A process that judged the lock file before this one stale may have moved this
      // one's aside since it was made (break_stale) and another process taken its place:
      // held only while the lock file is still the one made.
      if (ours && file_id(path) == made) return;
      if (fd_ >= 0) ::close(fd_);
      fd_ = -1;
      continue;
    }
    std::optional<ExistingLock> existing = read_existing(path);
    if (!existing) continue;  // released meanwhile
    const LockHolder holder = parse_lock_holder(existing->text);
    const HolderState state = judge(holder, existing->fd, options);
    ::close(existing->fd);
    if (state != HolderState::gone) throw Error(refusal(what, holder, state, path));
    break_stale(path, existing->id);
    broke_ = holder;
  }
  throw Error("cannot take the lock " + path.string() + ": it changed hands too often while being taken");
}

ExclusiveFileLock::ExclusiveFileLock(ExclusiveFileLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), inode_(other.inode_), broke_(std::move(other.broke_)) {
  other.fd_ = -1;
}

ExclusiveFileLock::~ExclusiveFileLock() {
  if (fd_ < 0) return;
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && st.st_ino == inode_) ::unlink(path_.c_str());  // still ours
  ::close(fd_);  // releases the flock
}

}  // namespace hetscale
