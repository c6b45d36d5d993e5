// Reading `sacct --json`, as every Slurm release from 22.05 to 26.05 writes it: the
// openapi/dbv0.0.38 form of 22.05 and the data_parser forms v0.0.39 to v0.0.45 of the
// releases since. What changed between them, and how each is read (docs/collector.md,
// "Slurm jobs"):
//   - state.current: a string, or a list (base state first, then flags);
//   - exit_code.status: a string or a list; exit_code.return_code: an integer or a
//     {set, infinite, number} object; the signal at exit_code.signal.signal_id (22.05) or
//     exit_code.signal.id (an object);
//   - time.limit and array.task_id: integers, or {set, infinite, number} objects (not set:
//     absent; infinite: no limit);
//   - null for a field that is not set; meta in either shape (not read).
// A field that is read but has none of its release's shapes is an error that names it:
// a value is never guessed as 0. Slurm writes job names, submit lines and working
// directories as the user gave them, bytes and all: a byte that is not UTF-8 is read as
// U+FFFD and counted, never an error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/slurm/job_record.hpp"

namespace hetscale::slurm {

struct SacctJobs {
  std::vector<JobRecord> jobs;
  std::size_t replaced_bytes = 0;  // bytes of the output that were not UTF-8, read as U+FFFD
};

/// Every job of one `sacct --json` output, in its order; `line` is the job's 1-based
/// position in "jobs". Times (Unix seconds in the output) are written as local times,
/// like slurmctld writes jobcomp lines; a job that has not started has an empty
/// start_time. Bytes that are not UTF-8 (anywhere in the text) are replaced by U+FFFD
/// before it is parsed (base's replace_invalid_utf8) and counted. Throws ConfigError
/// "source: ..." when the text is not such an output (not JSON, no "jobs" array, sacct's
/// own "errors", a job without id, name, state or cluster, a field of a shape no release
/// writes), so that nothing of it is stored.
SacctJobs read_sacct_json(std::string_view text, const std::string& source);

}  // namespace hetscale::slurm
