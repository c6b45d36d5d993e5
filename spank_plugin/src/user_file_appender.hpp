// A file of the job's user written by a process of the user's own, never by slurmstepd:
// the task times' file lives in a directory the job names (docs/admin.md, "Task times"),
// on whatever file system the user chose, and a file system that stalls (a FUSE mount the
// user serves, a hung NFS server) must never block slurmstepd, which reaps the tasks and
// ends the step.
//
// start() forks a small writer process that drops to the caller's effective ids for good
// (in slurm_spank_user_init: the job user's uid, gid and groups; no way back to root),
// keeps no descriptor of slurmstepd's but its two pipes, ignores every signal but SIGKILL,
// creates the file and appends what it reads from its pipe; at the pipe's end it flushes
// the file to storage and reports. slurmstepd only writes whole lines into the pipe without
// waiting and reads the writer's short reports with a bounded poll: whatever the file system
// does, each call returns within its bound.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hetscale::spank {

class UserFileAppender {
 public:
  /// Starts the writer of `file` (created new, never through a symbolic link, mode 0644)
  /// with the calling thread's effective uid, gid and supplementary groups, and returns at
  /// once: the writer opens the file by itself. `capacity` is how many bytes of lines the
  /// pipe should hold while the writer cannot keep up (at least the pipe's default, 64 KiB,
  /// when the system allows no more). Throws Error when the process cannot be started.
  static UserFileAppender start(const std::filesystem::path& file, std::size_t capacity);

  UserFileAppender() = default;
  UserFileAppender(const UserFileAppender&) = delete;
  UserFileAppender& operator=(const UserFileAppender&) = delete;
  UserFileAppender(UserFileAppender&& other) noexcept { *this = std::move(other); }
  UserFileAppender& operator=(UserFileAppender&& other) noexcept;
  ~UserFileAppender() { abandon(); }

  /// Hands one line (at most PIPE_BUF, 4096 bytes, written whole or not at all) to the
  /// writer without waiting. Returns why it cannot: the writer reported a failure (cannot
  /// create the file, cannot write), it has ended, or its pipe is full (the file system
  /// does not take the lines).
  [[nodiscard]] std::optional<std::string> append(std::string_view line);

  /// No more lines: waits at most `bound` for the writer to report the file flushed to
  /// storage (fdatasync) and closed. nullopt when it did, else why not (its failure, its
  /// end without a report, or no report within the bound).
  [[nodiscard]] std::optional<std::string> finish(std::chrono::milliseconds bound);

  /// Lets the writer go: ends it with SIGKILL if it still runs (a process waiting on a
  /// file system dies when the file system lets it go) and reaps it when it has ended;
  /// never waits more than a moment. Called by the destructor.
  void abandon() noexcept;

  /// The writer's process id while it has not been let go, else -1.
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  // Reads the writer's reports without waiting; why it failed, if it reported a failure.
  std::optional<std::string> read_reports();

  std::string file_;
  pid_t pid_ = -1;
  int lines_ = -1;         // write end of the writer's input, non-blocking
  int lines_reader_ = -1;  // our copy of its read end: a write never raises SIGPIPE
  int reports_ = -1;       // read end of the writer's reports, non-blocking
  bool ended_ = false;     // the reports' pipe is at its end: the writer has exited
  bool flushed_ = false;   // the writer reported the file flushed and closed
};

/// The highest file descriptor a process can hold, where the writer closes slurmstepd's
/// one by one (a kernel without close_range): below the soft RLIMIT_NOFILE when it is
/// finite, and below the kernel's nr_open, the bound of every process's descriptors
/// (1048576, Linux's default, when it is not known), so that the loop stays short.
[[nodiscard]] unsigned highest_possible_fd(rlim_t soft_limit, std::optional<unsigned long> nr_open);

/// /proc/sys/fs/nr_open; nothing when it cannot be read.
[[nodiscard]] std::optional<unsigned long> kernel_nr_open();

}  // namespace hetscale::spank
