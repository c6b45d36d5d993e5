// What Slurm says about one job (or one task of an array job), from its accounting
// (`sacct --json`) or from a jobcomp/filetxt line: the same fields whichever release and
// whichever source, so that the collector stores one kind of row (hetscale.slurm_jobs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetscale::slurm {

struct JobRecord {
  std::uint32_t line = 0;  // 1-based line of its jobcomp file, or position in sacct's "jobs"
  std::uint64_t job_id = 0;
  std::string start_time;  // "YYYY-MM-DDTHH:MM:SS", slurmctld's local time; empty: not started
  std::optional<std::string> end_time, submit_time, eligible_time;  // absent: Unknown/None
  std::optional<std::uint64_t> array_job_id, array_task_id;
  std::string job_name, user_name, partition, time_limit, work_dir;
  // The job's base state ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PENDING", ...);
  // the flags Slurm gives beside it since 23.11 ("REQUEUED", ...) are in state_flags.
  std::string state;
  std::vector<std::string> state_flags;
  std::string cluster;  // "unknown" (or empty) from a jobcomp line where no accounting runs
  // From sacct only: the tasks of an array not split off yet (they are pending), read from
  // Slurm's text ("2-4%1" (22.05), or a bitmap "0x1c" (since 23.11)); empty otherwise.
  std::vector<std::uint64_t> pending_array_tasks;
  std::optional<std::string> node_list;  // absent: the job got no nodes
  std::optional<std::int64_t> node_count, proc_count;
  // The batch script's exit code and the signal that ended it (ExitCode=code:signal);
  // absent where Slurm does not give it (a job killed by a signal has no exit code), or
  // gives one its state contradicts (Slurm 22.05's sacct --json: 0 for a FAILED job).
  std::optional<std::int64_t> exit_code, exit_signal;
  std::vector<std::pair<std::string, std::string>> fields;  // every field Slurm gave, as text
};

/// The array task ids of Slurm's text for them: a list of ranges ("0-4%1", "1,3-7:2"; the
/// %N throttle is not part of them), or the hexadecimal bitmap sacct writes since 23.11
/// ("0x6": tasks 1 and 2). Throws Error on text that is neither, or names more than ten
/// million tasks.
std::vector<std::uint64_t> array_task_ids(std::string_view text);

/// True for a state in which a job has ended (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...).
bool is_final_job_state(std::string_view state);

}  // namespace hetscale::slurm
