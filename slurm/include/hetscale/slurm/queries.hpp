// The questions hetscale asks of the running Slurm, each answered as data: whether Slurm
// could be asked at all, and what it said, read by the readers of this library. Every
// command hetscale runs against Slurm is here (docs/architecture.md, "The gateway to
// Slurm"), and so is the reading of each answer (the pure functions below, tested on the
// recorded outputs of every release in tests/fixtures/slurm/).
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/slurm/job_record.hpp"
#include "hetscale/slurm/program.hpp"
#include "hetscale/slurm/scontrol.hpp"

namespace hetscale::slurm {

struct PartitionQuery {
  enum class Status {
    found,       // `partition` holds what Slurm reports
    unknown,     // Slurm answered: no such partition
    unreachable  // no scontrol, no slurm.conf, no controller: `detail` says which
  };
  Status status = Status::unreachable;
  Partition partition;
  std::string detail;
};

/// `scontrol show partition NAME --oneliner`.
PartitionQuery query_partition(const std::string& name);

/// slurmctld's ClusterName (`scontrol show config`), or nothing where Slurm cannot be asked.
std::optional<std::string> query_cluster_name();

struct AccountingQuery {
  enum class Status {
    answered,    // `json` is sacct's output
    disabled,    // Slurm runs without accounting (no slurmdbd): jobcomp files are the fallback
    unreachable  // no sacct, no slurm.conf, slurmdbd down, or sacct failed: `detail` says which
  };
  Status status = Status::unreachable;
  std::string json;
  std::string detail;
};

/// The user this process runs as (the password database's name of the effective uid, else
/// $USER): whose jobs `sacct --user` and `squeue --user` ask for. Throws Error when neither
/// names one.
std::string invoking_user_name();

/// The Slurm job this process runs in (SLURM_JOB_ID, as slurmstepd sets it in a job's
/// environment), or none outside a job.
std::optional<std::uint64_t> own_job_id();

/// Runs `sacct --json` with the given arguments (no shell), in whatever data_parser
/// version the release writes by default (read_sacct_json reads them all).
AccountingQuery query_accounting(const std::vector<std::string>& sacct_arguments);

struct SubmissionTest {
  enum class Status {
    accepted,    // Slurm would run it
    refused,     // Slurm refuses it: `detail` is its message
    unreachable  // Slurm could not be asked: `detail` says why
  };
  Status status = Status::unreachable;
  std::string detail;
};

/// `sbatch --test-only SCRIPT`: whether Slurm would accept the job, without submitting it.
SubmissionTest test_submission(const std::string& script);

/// sbatch ended without saying whether Slurm took the job (it passed its timeout, was
/// killed, or lost its connection after sending the request): the job may exist.
class SubmissionOutcomeUnknown : public Error {
 public:
  using Error::Error;
};

/// Runs a round directory's submit.sh; returns what it printed. Throws
/// SubmissionOutcomeUnknown when it ended without saying whether Slurm took every set (it
/// was killed, passed its bound, or an sbatch's answer was lost: submission_outcome_unknown;
/// the round's jobs.txt names the sets submitted before), Error when it failed.
std::string submit_round(const std::string& directory);

/// `sbatch --parsable [--dependency=afterany:ID:...] [--comment=COMMENT] SCRIPT` run in
/// `directory` (the job's SLURM_SUBMIT_DIR); the job id. A comment unique to the
/// submission lets find_submitted_job find the job when sbatch's answer is lost. Throws
/// SubmissionOutcomeUnknown when sbatch's outcome is unknown
/// (submission_outcome_unknown), Error with sbatch's message when it failed.
std::uint64_t submit_job(const std::string& script, const std::string& directory,
                         const std::vector<std::uint64_t>& after_any = {}, const std::string& comment = {});

/// The job of the invoking user named `job_name` whose comment is `comment`, submitted at
/// or after `since`: asked of squeue first (every job slurmctld still holds, whatever its
/// state), then of sacct (`--name`, `--starttime since`; where the accounting keeps no job
/// comments, `AccountingStoreFlags` without `job_comment`, the name and the submission
/// time decide). An array's job id for an array. Nothing when neither knows such a job.
/// Throws Error when Slurm cannot be asked: then nothing can be told.
std::optional<std::uint64_t> find_submitted_job(const std::string& job_name, const std::string& comment,
                                                std::time_t since);

/// Which of `job_ids` (array or single jobs) of the invoking user still have a task pending
/// or running (`squeue --user <invoking user> --jobs ...`). Throws Error when Slurm cannot
/// be asked.
std::vector<std::uint64_t> active_jobs(const std::vector<std::uint64_t>& job_ids);

struct NodeStatesQuery {
  bool reachable = false;  // else `detail` says why Slurm could not be asked
  NodeStates states;
  std::string detail;
};

/// `scontrol show node --oneliner` and `scontrol show reservation --oneliner`. Throws
/// Error when Slurm answers with something they cannot read.
NodeStatesQuery query_node_states();

// --- the answers, read (pure; each tested on every release's recorded output) ---------

/// What `sbatch --test-only` said, from its exit status and its output (stdout and
/// stderr together): accepted, refused (with Slurm's last line), or Slurm not reachable.
SubmissionTest test_only_outcome(int status, std::string_view output);

/// Whether a run of sbatch that ended so leaves its outcome unknown: it timed out or was
/// stopped for its output, was killed by a signal (status above 128), or said "Socket timed
/// out" or "Zero Bytes were transmitted or received" (its request may have reached
/// slurmctld). A refusal, a connection never made and a program that did not start are
/// known outcomes: no job.
bool submission_outcome_unknown(ProgramOutput::End end, int status, std::string_view said);

/// The job of `jobs` (squeue's `--format=%F|%k` lines: the job id, or an array's, and the
/// comment) whose comment is `comment`.
std::optional<std::uint64_t> squeue_job_with_comment(std::string_view lines, std::string_view comment);

/// The job of sacct's `jobs` named `job_name`, submitted at or after `since` (local time,
/// YYYY-MM-DDTHH:MM:SS) whose comment (`comment.job`) is `comment`, or is not kept by the
/// accounting; an array's job id for a task of an array.
std::optional<std::uint64_t> sacct_job_with_comment(const std::vector<JobRecord>& jobs, std::string_view job_name,
                                                    std::string_view comment, std::string_view since);

/// What `sacct --json` said, from its exit status, stdout and stderr: answered (the JSON),
/// disabled (where slurm.conf has AccountingStorageType=accounting_storage/none, sacct's
/// words are "Slurm accounting storage is disabled"), or not reachable.
AccountingQuery accounting_outcome(int status, std::string output, std::string_view errors);

/// The job id `sbatch --parsable` printed ("id" or "id;cluster"); nothing when it printed
/// no job id.
std::optional<std::uint64_t> parsable_job_id(std::string_view output);

/// The job ids `squeue --noheader --format=%F` listed (an array's id once for all its
/// tasks), in order of first appearance. Throws Error on a line that is not an id.
std::vector<std::uint64_t> squeue_job_ids(std::string_view output);

}  // namespace hetscale::slurm
