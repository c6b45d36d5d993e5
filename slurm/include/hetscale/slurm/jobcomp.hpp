// Slurm's jobcomp/filetxt file (`hetscale collect --jobcomp FILE`), where a site runs no
// accounting: one line per ended job, `Key=Value` fields separated by spaces, read into
// the same job records as `sacct --json` gives (hetscale/slurm/job_record.hpp). The same
// fields in every release from 22.05 to 26.05 (tests/fixtures/slurm/*/jobcomp.log).
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetscale/slurm/job_record.hpp"

namespace hetscale::slurm {

/// Splits a line into its fields. A field starts at the line's start or after a space,
/// with a name of letters and digits followed by '='; its value runs to the space before
/// the next field, so values may hold spaces (job names do) but not " Name=".
std::vector<std::pair<std::string, std::string>> jobcomp_fields(std::string_view line);

/// Reads every non-empty line; throws ConfigError "source:line: message" on the first
/// malformed one (no JobId, a bad number or time, no start time).
std::vector<JobRecord> read_jobcomp(std::istream& in, const std::string& source);
std::vector<JobRecord> read_jobcomp(const std::filesystem::path& file);

/// True when the job names no cluster: jobcomp/filetxt writes Cluster=unknown where
/// slurmctld runs without accounting.
bool cluster_unknown(const JobRecord& job);

/// Gives every job that names no cluster `cluster` (slurmctld's ClusterName). Throws
/// ConfigError at the first such job's line when `cluster` is empty.
void name_unknown_clusters(std::vector<JobRecord>& jobs, const std::string& cluster,
                           const std::string& source);

}  // namespace hetscale::slurm
