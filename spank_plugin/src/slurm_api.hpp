// The thin interface between the plugin's logic and Slurm: item lookup, the job's
// environment, logging, reading a user's file and writing one with the user's ids.
// spank_shim.cpp implements it over spank.h; tests use a fake.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/base/one_line_text.hpp"
#include "user_file_appender.hpp"

namespace hetscale::spank {

/// Step ids Slurm gives to the batch script and the extern container (slurm.h).
inline constexpr std::uint64_t kBatchStep = 0xfffffffb;
inline constexpr std::uint64_t kExternStep = 0xfffffffc;

/// The spank items the plugin reads (a subset of spank.h's spank_item_t).
enum class Item {
  job_uid,
  job_id,
  step_id,
  node_count,  // nodes of the step (S_JOB_NNODES)
  node_id,     // relative id of this node in the step
  local_task_count,
  total_task_count,
  task_global_id,  // only inside a task hook
  cpus_per_task,
  task_exit_status,  // the task's wait status, only at its exit (S_TASK_EXIT_STATUS)
};

class SlurmApi {
 public:
  virtual ~SlurmApi() = default;

  /// The item's value, or nullopt when Slurm cannot give it in this context.
  [[nodiscard]] virtual std::optional<std::uint64_t> item(Item which) const = 0;
  /// The job's environment in remote context, the process environment elsewhere.
  [[nodiscard]] virtual std::optional<std::string> getenv(const std::string& name) const = 0;
  /// Sets a variable of the job's environment; throws Error when Slurm refuses.
  virtual void setenv(const std::string& name, const std::string& value) = 0;
  virtual void unsetenv(const std::string& name) = 0;
  /// Reads a file the job's user named, with that user's privileges, never as root, and
  /// only a regular file of at most kMaxPartitionFileBytes (read_regular_file). Throws
  /// Error with a one-line reason.
  [[nodiscard]] virtual std::string read_user_file(const std::filesystem::path& path) const = 0;

  /// Starts the process that creates a new file of the job's user (never an existing one,
  /// never through a symbolic link) and appends the lines it is handed
  /// (user_file_appender.hpp): with that user's ids, never root's, so only where the
  /// caller runs with the job user's effective ids. Throws Error with a one-line reason.
  [[nodiscard]] virtual UserFileAppender start_user_appender(const std::filesystem::path& path,
                                                             std::size_t capacity) = 0;

  /// In slurmstepd (remote context) an info line goes to slurmd's log only; the step's
  /// output shows it only at `srun -v`. In srun it prints on the user's terminal. The
  /// message stays one line (one_line_text): a job's strings in it (a directory, a node
  /// list, a file name) cannot forge log lines.
  void info(const std::string& message) { write_info(one_line_text(message)); }
  /// An error line: in slurmstepd both slurmd's log and the step's output show it. One
  /// line, as info.
  void error(const std::string& message) { write_error(one_line_text(message)); }

 protected:
  /// The line as it is logged (info and error make it one line first).
  virtual void write_info(const std::string& line) = 0;
  virtual void write_error(const std::string& line) = 0;
};

}  // namespace hetscale::spank
