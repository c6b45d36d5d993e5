// The step timed from outside (docs/run-record.md, "Records of a step timed from
// outside"): `hetscale record step` runs a job step (srun ... <the user's command>) as a
// child, times it with a monotonic clock and, when the step appended no run record of its
// own, appends one: the step's wall time, W from the spec's workload formula, the set's
// ranks and marked speed, the Slurm ids and the step's exit status (`timed_by: "step"`).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hetscale/site/record_environment.hpp"
#include "hetscale/site/run_record.hpp"
#include "hetscale/site/task_times.hpp"

namespace hetscale::jobgen {

/// What the generated script knows of the step, given on `hetscale record step`'s command line.
struct StepDescription {
  std::string code;              // the user's command as the spec gives it
  std::string workload;          // the spec's workload formula
  std::string parameter;         // the parameter's name ("N")
  double parameter_value = 0;    // its value in this array task
  std::string weights;           // the weights the step asked for: marked, equalized, FILE, off
  double marked_speed = 0;       // C of the set in speed_unit (0: not known)
  std::string speed_unit;
  std::vector<std::string> rank_hosts;  // one per rank, in rank order
};

/// How the step ended.
struct StepOutcome {
  double wall_seconds = 0;  // monotonic clock, from just before the start to after the wait
  int exit_status = 0;      // 0-255; 128 + signal number for a step killed by a signal
  std::chrono::system_clock::time_point start;
  std::chrono::system_clock::time_point end;
};

/// One host per rank: `tasks_per_node` ranks on each node of the host list, in order.
[[nodiscard]] std::vector<std::string> rank_hosts_of(std::string_view nodes, std::size_t tasks_per_node);

/// One host per rank from a host file (one line per rank, as jobgen writes for a set
/// whose nodes run different numbers of ranks). Throws Error when it cannot be read or is empty.
[[nodiscard]] std::vector<std::string> rank_hosts_of_file(const std::filesystem::path& file);

/// The record of a step timed from outside. Throws Error when the workload is not a
/// formula in `parameter` or W is out of range.
[[nodiscard]] RunRecord step_run_record(const StepDescription& step, const StepOutcome& outcome,
                                        const RecordEnvironment& environment);

/// Puts the tasks' own times the SPANK plugin wrote (task_times.hpp; host -> its tasks) into
/// a step record: every rank's wall_seconds from its task's start to its exit and its host
/// from the file that timed it (the task's global id is the rank: any placement, block or
/// cyclic), `ranks_timed_by` "spank" and `node_times` per host. Only when there is exactly
/// one task time for every rank of the record, on the record's hosts with as many tasks on
/// each as the record's ranks there; otherwise the record stays nominal and the reason is
/// returned.
std::optional<std::string> apply_task_times(RunRecord& record,
                                            const std::map<std::string, std::vector<TaskTime>>& by_host);

/// The task times files of a directory (`<host>.tasks`), read and parsed. Throws Error for
/// a file that cannot be read or parsed.
[[nodiscard]] std::map<std::string, std::vector<TaskTime>> read_task_times(const std::filesystem::path& dir);

/// Complete records (lines ending in '\n') in a run record file; 0 when it does not exist.
[[nodiscard]] std::size_t count_record_lines(const std::filesystem::path& file);

/// Runs argv as a child process (PATH searched), in `directory` when one is given, waits
/// for it and times it. Throws Error when it cannot be started (the exit status is then
/// 127, as a shell gives).
/// `environment`: NAME=VALUE set in the child's environment only.
[[nodiscard]] StepOutcome run_timed_step(std::span<const std::string> argv,
                                         const std::filesystem::path& directory = {},
                                         std::span<const std::string> environment = {});

/// What `record step` did.
struct StepRecordResult {
  StepOutcome outcome;
  bool written = false;                       // a record was appended
  std::optional<std::string> skipped_because; // why none was due
  std::optional<std::string> not_written_because;  // one was due and could not be written: why
  std::optional<std::string> nominal_because; // a written record's ranks are nominal: why
};

/// Runs the step and appends its record to environment.record_file unless the step
/// appended one itself. Throws only before the step runs (a workload without a W, a step
/// that cannot be started); once it has run, a record that cannot be written (a full file
/// system, a quota) is `not_written_because` and the outcome is kept. With no record file (outside a study) the step only runs. The step
/// gets an empty directory beside the record file in kTaskTimesDirEnv, where the SPANK
/// plugin writes its tasks' times (removed afterwards); the record has them when every
/// rank's time is there.
StepRecordResult record_step(const StepDescription& step, std::span<const std::string> argv,
                             const RecordEnvironment& environment);

}  // namespace hetscale::jobgen
