// How far the rounds of an experiment have come (`hetscale status`) and what to run again
// (`hetscale jobgen --resubmit`): every array task of every round, with the state Slurm
// gives its latest job and the repetitions collected into the database. Pure functions: the caller brings the
// rounds (from their plans), the jobs (from sacct) and the collected runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/jobgen/round.hpp"

namespace hetscale::jobgen {

/// One array task as a round planned it.
struct ArrayTask {
  std::uint32_t round = 0;
  std::size_t set_index = 0;
  std::size_t nodes = 0;
  std::size_t array_index = 0;
  double parameter = 0;
  std::vector<std::uint32_t> repetitions;  // the repetitions the task runs
  std::string job_name;                    // its array's Slurm job name
  std::size_t runs_per_repetition = 1;     // one per value of [slurm] weights
  bool only_program_records = false;       // a command with [code] record = "program"
};

/// Every array task of one round, set by set.
std::vector<ArrayTask> array_tasks(const Round& round);

/// A Slurm job as accounting reports it: one array task, or the tasks of an array still
/// pending as one entry (`pending_array_tasks`, read by hetscale::slurm from Slurm's text).
struct SlurmJobState {
  std::string cluster;
  std::uint64_t job_id = 0;
  std::string name;
  std::optional<std::uint64_t> array_job_id;
  std::optional<std::uint64_t> array_task_id;
  std::vector<std::uint64_t> pending_array_tasks;
  std::string state;  // Slurm's: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, ...
};

/// A run collected into the database.
struct CollectedRun {
  std::size_t set_index = 0;
  double parameter = 0;
  std::uint32_t repetition = 0;
};

enum class TaskState {
  collected,      // every repetition's record is in the database
  pending,        // its job waits in the queue
  running,        // its job runs
  uncollected,    // its job completed, but not every record is in the database
  failed,         // its job ended otherwise: FAILED, CANCELLED, TIMEOUT, NODE_FAIL, ...
  not_submitted   // Slurm reports no job of it
};
std::string_view to_string(TaskState state);

struct TaskStatus {
  ArrayTask task;
  TaskState state = TaskState::not_submitted;
  std::string slurm_state;               // of its latest job; empty when none
  std::optional<std::uint64_t> job_id;   // its latest job
  std::vector<std::uint32_t> collected;  // repetitions with a record in the database
  std::vector<std::uint32_t> missing;    // repetitions without one
  // Why records are missing when that is known: a task whose job ended (COMPLETED or
  // FAILED) with no record collected, of a command that writes its own records only.
  std::string note;
};

/// The note of a task whose step ran but left no record, because the program writes none.
inline constexpr std::string_view ran_without_record_note =
    "ran, no record: the program does not write one; set [code] record = \"step\"";

/// The state of every task. A task's latest job is the one with the highest id among the
/// jobs of its array's name that run its index (a round submitted twice has two). A
/// task whose every repetition is collected (a run stored per step of the repetition) is
/// `collected`, whatever its job says.
std::vector<TaskStatus> task_statuses(const std::vector<ArrayTask>& tasks, const std::vector<SlurmJobState>& jobs,
                                      const std::vector<CollectedRun>& runs);

/// Counts of one set of one round.
struct SetStatus {
  std::uint32_t round = 0;
  std::size_t set_index = 0;
  std::size_t nodes = 0;
  std::size_t tasks = 0;
  std::size_t collected = 0, pending = 0, running = 0, uncollected = 0, failed = 0, not_submitted = 0;
  std::size_t ran_without_record = 0;  // tasks with ran_without_record_note
  std::string summary;  // one line: "round 0 set 1 (4 nodes): 5 tasks: 3 collected, 2 failed"
};
std::vector<SetStatus> set_statuses(const std::vector<TaskStatus>& tasks);

/// The next round of `latest` (round + 1) that runs again what failed, completed without
/// records or was never submitted: each such task's parameter with only its missing
/// repetitions; sets with nothing to run again have no values. Throws Error naming the
/// first pending or running task (its records may still come).
Round resubmitted_round(const Round& latest, const std::vector<TaskStatus>& tasks);

}  // namespace hetscale::jobgen
