// An exclusive lock held while a process does something no second process may do at the
// same time, e.g. a step of a study, also where the processes run on different hosts of a
// shared file system (NFS, Lustre) that has no working flock(2): Lustre mounted without
// `flock` refuses it (ENOSYS), and with `localflock` or NFS's `local_lock` it locks per
// host only.
//
// The lock is a lock file that exists only while it is held, created whole and at once by
// link(2) of a temporary file that already holds its holder: link is atomic on NFS and
// Lustre alike (O_EXCL is not on old NFS), and its outcome is read from the temporary
// file's link count, which a lost reply of the server does not change. The file names its
// holder:
//   <pid>
//   host <host name>
//   started <the process's start, clock ticks after boot>
//   job <Slurm job id>          (only inside a Slurm job)
// A lock file whose holder is gone (a process of this host that no longer runs, a Slurm
// job that has ended) is stale: it is broken, with a check that no other process took
// the lock meanwhile, and the lock is taken. A process that has made its lock file takes
// the lock only when, after its flock, the lock file is still the one it made: another
// process that judged the file before stale may have moved the new one aside meanwhile.
// Where flock works, the holder also holds flock on the file, so that a hetscale that
// knew only flock is refused too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace hetscale {

/// Who holds a lock, as its lock file names them.
struct LockHolder {
  long pid = 0;
  std::string host;                      // empty: a lock file of flock alone (pid only)
  std::optional<unsigned long long> started;  // clock ticks after the host's boot
  std::optional<std::uint64_t> job_id;   // the Slurm job the holder runs in
};

/// Whether a holder still holds its lock, as far as can be told.
enum class HolderState { alive, gone, unknown };

/// Asked about a holder in a Slurm job: whether that job still runs. Base cannot ask Slurm;
/// the library that can (the study, through hetscale::slurm) gives this.
using JobHolderCheck = std::function<HolderState(std::uint64_t job_id)>;

struct FileLockOptions {
  std::optional<std::uint64_t> job_id;  // the Slurm job this process runs in, written into the lock
  JobHolderCheck job_check;             // none: a holder on another host is never judged gone
  // flock(2), or a stand-in with its contract (tests: a file system without flock).
  std::function<int(int fd, int operation)> flock;
};

/// Takes the lock `path`, the lock file created 0600; released (the file removed) when the
/// object is destroyed. A holder is gone when it runs on this host and its process has
/// ended (or its pid now names a process started at another time), or when it runs in a
/// Slurm job that `job_check` says has ended; a lock file of flock alone (a pid and nothing
/// else) is gone unless its flock is held. When the holder is not gone (alive, or cannot be
/// told), throws Error("<what> is already running (process <pid>[ on host <host>][, Slurm
/// job <id>], lock <path>)"); "if it is not: remove <path>" follows when it cannot be told.
/// Also refuses a second lock of the same process.
class ExclusiveFileLock {
 public:
  ExclusiveFileLock(const std::filesystem::path& path, const std::string& what, FileLockOptions options = {});
  ~ExclusiveFileLock();
  ExclusiveFileLock(ExclusiveFileLock&& other) noexcept;  // the lock goes with it
  ExclusiveFileLock(const ExclusiveFileLock&) = delete;
  ExclusiveFileLock& operator=(const ExclusiveFileLock&) = delete;
  ExclusiveFileLock& operator=(ExclusiveFileLock&&) = delete;

  /// The holder of a stale lock this one broke to be taken, if any.
  [[nodiscard]] const std::optional<LockHolder>& broke_stale() const { return broke_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uintmax_t inode_ = 0;
  std::optional<LockHolder> broke_;
};

/// The holder a lock file's text names (pid 0 and no host where it names none).
LockHolder parse_lock_holder(const std::string& text);

/// This host's name (gethostname).
std::string this_host_name();

}  // namespace hetscale
