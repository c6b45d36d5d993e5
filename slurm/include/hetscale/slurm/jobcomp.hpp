// Slurm's jobcomp/filetxt file (`hetscale collect --jobcomp FILE`), where a site runs no
// accounting: one line per ended job, read into the same job records as `sacct --json`
// gives (hetscale/slurm/job_record.hpp). Every release from 22.05 to 26.05 writes the same
// fields in the same order (Slurm's JOB_FORMAT in jobcomp_filetxt.c;
// tests/fixtures/slurm/*/jobcomp.log):
//   JobId= UserId= GroupId= Name= JobState= Partition= TimeLimit= StartTime= EndTime=
//   NodeList= NodeCnt= ProcCnt= WorkDir= ReservationName= Tres= Account= QOS= WcKey=
//   Cluster= SubmitTime= EligibleTime= [ArrayJobId= ArrayTaskId=] [HetJobId= HetJobOffset=]
//   DerivedExitCode= ExitCode=
// separated by single spaces, values unquoted. A line is read by that order: a value
// Slurm formats itself (ids, states, times, counts, node lists, exit codes, the cluster)
// holds no space, and one a user or an administrator chose (Name, WorkDir, WcKey,
// ReservationName, Account, QOS) runs to the next field's name, so a job name such as
// `a JobState=COMPLETED ExitCode=0:0` stays the job's name and supplies no field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/slurm/job_record.hpp"

namespace hetscale::slurm {

using JobcompFields = std::vector<std::pair<std::string, std::string>>;

/// The ways `line` reads as a jobcomp/filetxt line (the fields above in their order), each
/// its fields in that order, at most `limit` of them. None: the line is not such a line.
/// Two or more: a chosen value (a job name, a working directory, ...) holds text that reads
/// as the fields after it as well, and which reading is Slurm's cannot be told.
std::vector<JobcompFields> jobcomp_readings(std::string_view line, std::size_t limit = 2);

/// A line read but not stored, where it is and why.
struct SetAsideLine {
  SourceLocation where;
  std::string message;
};

struct JobcompFile {
  std::vector<JobRecord> jobs;
  std::vector<SetAsideLine> set_aside;  // lines not stored, each with its reason
  std::size_t replaced_bytes = 0;       // bytes that were not UTF-8, read as U+FFFD
};

/// Reads every non-empty line. Bytes that are not UTF-8 are read as U+FFFD (base's
/// replace_invalid_utf8) and counted. A line that cannot be stored is set aside with its
/// reason, and the others are read: one that reads more than one way (jobcomp_readings;
/// the message names its job and the fields the readings disagree on), one that is no job
/// completion line (a job name or working directory with a line break splits its job's
/// line), one with a bad number or time, and one of a job that never started (no start
/// time: the natural key needs one). Slurm writes a line break in a job name or working
/// directory as it is, so the text after one, up to the next line break, is the user's and
/// can be a whole line of any job of any user: the lines next to one that is no job
/// completion line are set aside too (naming it), and so is every line of a (cluster,
/// JobId) whose lines name different users. A user who fakes the rest of their own line
/// before the line break leaves no line that does not read: jobcomp/filetxt cannot vouch
/// for a line written after a user's line break, and sacct (escaping line breaks) can.
/// No user's job can fail the file. Throws ConfigError "source:line[:column]: message" of
/// the first line when no line of the file reads as a job completion (not a
/// jobcomp/filetxt file).
JobcompFile read_jobcomp(std::istream& in, const std::string& source);
JobcompFile read_jobcomp(const std::filesystem::path& file);

/// True when the job names no cluster: jobcomp/filetxt writes Cluster=unknown where
/// slurmctld runs without accounting.
bool cluster_unknown(const JobRecord& job);

/// Gives every job that names no cluster `cluster` (slurmctld's ClusterName). Throws
/// ConfigError at the first such job's line when `cluster` is empty.
void name_unknown_clusters(std::vector<JobRecord>& jobs, const std::string& cluster,
                           const std::string& source);

}  // namespace hetscale::slurm
