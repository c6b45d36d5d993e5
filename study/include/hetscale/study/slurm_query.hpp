// Asking the running Slurm about a partition (`scontrol show partition`), for checks
// that must not fail where there is no Slurm: the answer says whether Slurm could be
// asked at all.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/jobgen/node_availability.hpp"
#include "hetscale/jobgen/partition_check.hpp"

namespace hetscale::study {

struct ProgramOutput {
  int status = -1;     // exit status; -1 when the program could not be started or timed out
  std::string text;    // stdout, and stderr unless kept apart
  std::string errors;  // stderr, when kept apart
};

/// Runs argv (searched in PATH) in `directory` (empty: here) with stdin from /dev/null; no
/// shell. stderr joins stdout unless `separate_errors`. Killed after `timeout`.
ProgramOutput run_program(const std::vector<std::string>& argv, bool separate_errors, std::chrono::seconds timeout,
                          const std::string& directory = {});

struct PartitionQuery {
  enum class Status {
    found,       // `partition` holds what Slurm reports
    unknown,     // Slurm answered: no such partition
    unreachable  // no scontrol, no slurm.conf, no controller: `detail` says which
  };
  Status status = Status::unreachable;
  jobgen::SlurmPartition partition;
  std::string detail;
};

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

/// Runs a round directory's submit.sh; returns what it printed. Throws Error when it fails.
std::string submit_round(const std::string& directory);

/// `sbatch --parsable [--dependency=afterany:ID:...] SCRIPT` run in `directory` (the
/// job's SLURM_SUBMIT_DIR); the job id. Throws Error with sbatch's message when it fails.
std::uint64_t submit_job(const std::string& script, const std::string& directory,
                         const std::vector<std::uint64_t>& after_any = {});

/// Which of `job_ids` (array or single jobs) still have a task pending or running
/// (`squeue`). Throws Error when Slurm cannot be asked.
std::vector<std::uint64_t> active_jobs(const std::vector<std::uint64_t>& job_ids);

/// Runs `sacct --json` with the given arguments (no shell).
AccountingQuery query_accounting(const std::vector<std::string>& sacct_arguments);

struct NodeStatesQuery {
  bool reachable = false;  // else `detail` says why Slurm could not be asked
  jobgen::SlurmNodeStates states;
  std::string detail;
};

/// `scontrol show node --oneliner` and `scontrol show reservation --oneliner`. Throws
/// Error when Slurm answers with something they cannot read.
NodeStatesQuery query_node_states();

}  // namespace hetscale::study
