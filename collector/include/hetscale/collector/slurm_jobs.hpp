// Slurm's jobs in the database (hetscale.slurm_jobs): the job records read from sacct or
// a jobcomp file (hetscale/slurm/), stored keyed by (cluster, job id, start time), so that
// loading the same jobs again adds nothing.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"
#include "hetscale/slurm/job_record.hpp"

namespace hetscale::collector {

/// The jobs that have ended, as rows to store: a job cancelled before it started takes its
/// end time as its start (the key needs one).
std::vector<slurm::JobRecord> ended_jobs(const std::vector<slurm::JobRecord>& jobs);

/// The stored jobs with one of these names (cluster, id, name, array ids, state, user), by id.
std::vector<slurm::JobRecord> read_stored_jobs(pg::Connection& conn, const std::vector<std::string>& names);

/// Inserts the jobs (existing keys (cluster, job id, start) are left alone) in the
/// caller's transaction; every job must name its cluster. Returns how many rows were added.
long long load_slurm_jobs_batch(pg::Connection& conn, std::span<const slurm::JobRecord> jobs,
                                const std::string& source);

}  // namespace hetscale::collector
