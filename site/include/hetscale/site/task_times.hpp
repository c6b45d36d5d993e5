// The tasks' own start and exit times of a job step, as the SPANK plugin writes them in
// slurmstepd and `hetscale record step` reads them back (docs/run-record.md, "Records of
// a step timed from outside"; docs/admin.md, "Task times").
//
// `hetscale record step` names an empty directory in the step's environment
// (kTaskTimesDirEnv). slurmstepd on each node of the step creates `<host>.tasks` in it,
// with the job user's privileges, and appends one line per task when the task exits:
//   <global task id> <start, ns since the epoch> <exit, ns since the epoch> <wait status>
// The start is when slurmstepd forked the task, the exit when it reaped it; both from the
// node's own wall clock, so a task's duration never mixes two clocks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale {

/// The step environment variable naming the directory of the tasks' times.
inline constexpr const char* kTaskTimesDirEnv = "HETSCALE_TASK_TIMES_DIR";

/// Most tasks one node's file may hold (a line each); a longer file is refused.
inline constexpr std::size_t kMaxTaskTimesPerNode = 1u << 16;
/// Most bytes of one line: 63 characters and '\n'.
inline constexpr std::size_t kMaxTaskTimeLineBytes = 64;
/// Most bytes of one node's file: its lines at their longest.
inline constexpr std::size_t kMaxTaskTimesFileBytes = kMaxTaskTimesPerNode * kMaxTaskTimeLineBytes;

struct TaskTime {
  std::uint32_t task = 0;       // global task id: the MPI rank under srun
  std::int64_t start_ns = 0;    // since the epoch, the node's clock
  std::int64_t exit_ns = 0;
  int wait_status = 0;          // as waitpid(2) gives it

  friend bool operator==(const TaskTime&, const TaskTime&) = default;
};

/// The file a node writes: `<dir>/<host>.tasks`. Throws Error for a host name that is empty
/// or holds '/' or "..".
[[nodiscard]] std::filesystem::path task_times_file(const std::filesystem::path& dir, std::string_view host);

/// One line of that file, '\n' included.
[[nodiscard]] std::string task_time_line(const TaskTime& time);

/// A node's file back: its tasks' lines in file order. An incomplete last line (a node
/// still writing) is left out. Throws Error "FILE:LINE: ..." for a line that is not four
/// numbers, an exit before its start, a task twice, or more than kMaxTaskTimesPerNode lines.
[[nodiscard]] std::vector<TaskTime> parse_task_times(std::string_view text, const std::string& file);

/// The exit status a shell gives for a wait status: the code, or 128 + the signal's
/// number (at most 255).
[[nodiscard]] int shell_exit_status(int wait_status);

}  // namespace hetscale
