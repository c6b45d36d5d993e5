// The tasks' own start and exit times of a step, written in slurmstepd for
// `hetscale record step` (site/include/hetscale/site/task_times.hpp, docs/admin.md "Task
// times"). Only a step whose environment names a directory (kTaskTimesDirEnv) is timed;
// nothing here ever fails a step: a problem goes to slurmd's log and the step runs untimed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "slurm_api.hpp"

namespace hetscale::spank {

class TaskTimesWriter {
 public:
  TaskTimesWriter() = default;
  TaskTimesWriter(const TaskTimesWriter&) = delete;
  TaskTimesWriter& operator=(const TaskTimesWriter&) = delete;
  TaskTimesWriter(TaskTimesWriter&& other) noexcept { *this = std::move(other); }
  TaskTimesWriter& operator=(TaskTimesWriter&& other) noexcept {
    if (this != &other) {
      close();
      fd_ = std::exchange(other.fd_, -1);
      file_ = std::move(other.file_);
      local_tasks_ = other.local_tasks_;
      exited_ = other.exited_;
      started_ = std::move(other.started_);
    }
    return *this;
  }
  ~TaskTimesWriter() { close(); }

  /// slurm_spank_user_init (the job user's privileges): creates this node's file
  /// `<dir>/<host>.tasks` when the step names a directory; not for the batch and extern steps.
  void open(SlurmApi& slurm);
  /// slurm_spank_task_post_fork (root): task `S_TASK_GLOBAL_ID` started at `now_ns`.
  void task_started(SlurmApi& slurm, std::int64_t now_ns);
  /// slurm_spank_task_exit (root): appends the task's line in one write(2) on the file the
  /// user's privileges opened; after this node's last task, flushes the file to storage,
  /// so that a shared file system shows it before srun returns.
  void task_exited(SlurmApi& slurm, std::int64_t now_ns);
  /// slurm_spank_exit: closes the file.
  void close();

  [[nodiscard]] bool active() const { return fd_ >= 0; }

 private:
  void give_up(SlurmApi& slurm, const std::string& why);

  int fd_ = -1;
  std::string file_;
  std::uint64_t local_tasks_ = 0;
  std::uint64_t exited_ = 0;
  std::map<std::uint32_t, std::int64_t> started_;  // global task id -> start
};

}  // namespace hetscale::spank
