// Slurm job completions from a jobcomp/filetxt file (`hetscale collect --jobcomp FILE`):
// one line per ended job, `Key=Value` fields separated by spaces, into hetscale.slurm_jobs
// keyed by (job id, start time), so that loading a file again adds nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

struct JobCompletion {
  std::uint32_t line = 0;  // 1-based line in its file
  std::uint64_t job_id = 0;
  std::string start_time;  // "YYYY-MM-DDTHH:MM:SS", slurmctld's local time
  std::optional<std::string> end_time, submit_time, eligible_time;  // absent: Unknown/None
  std::optional<std::uint64_t> array_job_id, array_task_id;
  std::string job_name, user_name, state, partition, time_limit, work_dir;
  std::optional<std::string> node_list;  // absent: "(null)", the job got no nodes
  std::optional<std::int64_t> node_count, proc_count;
  std::optional<std::int64_t> exit_code, exit_signal;       // from ExitCode=code:signal
  std::vector<std::pair<std::string, std::string>> fields;  // every field, in line order
};

/// Splits a line into its fields. A field starts at the line's start or after a space,
/// with a name of letters and digits followed by '='; its value runs to the space before
/// the next field, so values may hold spaces (job names do) but not " Name=".
std::vector<std::pair<std::string, std::string>> jobcomp_fields(std::string_view line);

/// Reads every non-empty line; throws ConfigError "source:line: message" on the first
/// malformed one (no JobId, a bad number or time, no start time).
std::vector<JobCompletion> read_jobcomp(std::istream& in, const std::string& source);
std::vector<JobCompletion> read_jobcomp(const std::filesystem::path& file);

/// Inserts the completions (existing keys are left alone) in the caller's transaction;
/// returns how many rows were added.
long long load_jobcomp_batch(pg::Connection& conn, std::span<const JobCompletion> jobs,
                             const std::string& source);

}  // namespace hetscale::collector
