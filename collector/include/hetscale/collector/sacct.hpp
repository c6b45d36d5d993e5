// Slurm jobs as the accounting database has them: the output of `sacct --json`
// (slurmdbd), read into the same rows as jobcomp/filetxt lines (hetscale.slurm_jobs).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetscale/collector/jobcomp.hpp"

namespace hetscale::collector {

/// Every job of one `sacct --json` output, in its order; `line` is the job's 1-based
/// position in "jobs". Times (Unix seconds in the output) are written as local times,
/// like slurmctld writes jobcomp lines; a job that has not started has an empty
/// start_time. Throws ConfigError "source: ..." when the text is not such an output (not
/// JSON, no "jobs" array, sacct's own "errors", a job without id, name, state or cluster,
/// a field of the wrong type), so that nothing of it is stored.
std::vector<JobCompletion> read_sacct_json(std::string_view text, const std::string& source);

/// True for a state in which a job has ended (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...).
bool is_final_job_state(std::string_view state);

/// The jobs that have ended, as completions to store: a job cancelled before it started
/// takes its end time as its start (the key needs one).
std::vector<JobCompletion> ended_jobs(const std::vector<JobCompletion>& jobs);

}  // namespace hetscale::collector
