// The tasks' own start and exit times of a step, taken in slurmstepd for `hetscale record
// step` (site/include/hetscale/site/task_times.hpp, docs/admin.md "Task times"). Only a step
// whose environment names a directory (kTaskTimesDirEnv) is timed; nothing here ever fails
// a step: a problem goes to slurmd's log and the step runs untimed. slurmstepd never does
// I/O on the directory's file system: a process of the job's user writes the file
// (user_file_appender.hpp), and slurmstepd waits for it at most kTaskTimesFlushBound.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "slurm_api.hpp"
#include "user_file_appender.hpp"

namespace hetscale::spank {

/// How long slurmstepd waits, after a node's last task, for the writer to report the
/// node's file flushed: a step on a file system that does not answer ends this much later.
inline constexpr std::chrono::milliseconds kTaskTimesFlushBound{5000};

class TaskTimesWriter {
 public:
  explicit TaskTimesWriter(std::chrono::milliseconds flush_bound = kTaskTimesFlushBound)
      : flush_bound_(flush_bound) {}
  TaskTimesWriter(const TaskTimesWriter&) = delete;
  TaskTimesWriter& operator=(const TaskTimesWriter&) = delete;
  TaskTimesWriter(TaskTimesWriter&&) noexcept = default;
  TaskTimesWriter& operator=(TaskTimesWriter&&) noexcept = default;
  ~TaskTimesWriter() = default;

  /// slurm_spank_user_init (the job user's effective ids): starts the writer of this node's
  /// file `<dir>/<host>.tasks` when the step names a directory; not for the batch and
  /// extern steps. Returns at once: the writer creates the file by itself.
  void open(SlurmApi& slurm);
  /// slurm_spank_task_post_fork (root): task `S_TASK_GLOBAL_ID` started at `now_ns`.
  void task_started(SlurmApi& slurm, std::int64_t now_ns);
  /// slurm_spank_task_exit (root): hands the task's line to the writer without waiting;
  /// after this node's last task, waits at most the flush bound for the writer to report
  /// the file flushed to storage, so that a shared file system shows it before srun returns.
  void task_exited(SlurmApi& slurm, std::int64_t now_ns);
  /// slurm_spank_exit: lets the writer go (user_file_appender.hpp, abandon).
  void close();

  [[nodiscard]] bool active() const { return writer_.has_value(); }

 private:
  void give_up(SlurmApi& slurm, const std::string& why);

  std::chrono::milliseconds flush_bound_;
  std::optional<UserFileAppender> writer_;
  std::string file_;
  std::uint64_t local_tasks_ = 0;
  std::uint64_t exited_ = 0;
  std::map<std::uint32_t, std::int64_t> started_;  // global task id -> start
};

}  // namespace hetscale::spank
