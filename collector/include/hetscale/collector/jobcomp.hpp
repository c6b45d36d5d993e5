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
  std::string cluster;  // the line's Cluster=; "unknown" (or absent) without accounting
  // From sacct only: the tasks of an array not split off yet, as Slurm writes them
  // ("2-4%1"); they are pending. Empty otherwise.
  std::string pending_array_tasks;
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

/// True when the job names no cluster: jobcomp/filetxt writes Cluster=unknown where
/// slurmctld runs without accounting.
bool cluster_unknown(const JobCompletion& job);

/// Gives every job that names no cluster `cluster` (slurmctld's ClusterName). Throws
/// ConfigError at the first such job's line when `cluster` is empty.
void name_unknown_clusters(std::vector<JobCompletion>& jobs, const std::string& cluster,
                           const std::string& source);

/// The stored jobs with one of these names (cluster, id, name, array ids, state), by id.
std::vector<JobCompletion> read_stored_jobs(pg::Connection& conn, const std::vector<std::string>& names);

/// Inserts the completions (existing keys (cluster, job id, start) are left alone) in the
/// caller's transaction; every job must name its cluster. Returns how many rows were added.
long long load_jobcomp_batch(pg::Connection& conn, std::span<const JobCompletion> jobs,
                             const std::string& source);

}  // namespace hetscale::collector
