// What a database holds of one experiment's rounds: the latest round's spec and plan, the
// runs of every round, and how far each round's array tasks have come. Read by the rounds
// of `hetscale jobgen --refine --db` and `--resubmit`, `hetscale twin refine`, `hetscale
// status` and the study's stages.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetscale/base/say.hpp"
#include "hetscale/collector/stored_experiment.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/task_status.hpp"
#include "hetscale/slurm/job_record.hpp"

namespace hetscale::study {

// What the database holds of one experiment's rounds, read as of one moment.
struct StoredRounds {
  std::optional<collector::StoredExperiment> experiment;  // none: not in the database
  std::vector<std::string> known;                         // every experiment's name
  std::vector<collector::StoredRun> runs;                 // every round's, wherever collected from
};

/// Reads the experiment's plans and runs as of one moment (a few quick retries).
StoredRounds read_stored_rounds(const std::string& db, const std::string& experiment);

/// The latest round as the database holds it: the spec from its text (named as the plan
/// names the experiment), the site and sets from its plan. Throws Error saying what to
/// collect when something is missing.
jobgen::Round latest_round(const std::string& experiment, const StoredRounds& stored);

/// The stored runs as measurements of `round`, after checking that the database holds the
/// plan of this very round (`origin` names where the round came from, for messages).
std::vector<jobgen::MeasuredRun> measured_runs(const StoredRounds& stored, const jobgen::Round& round,
                                               const std::string& origin);

/// The states of the jobs `user` submitted; every other user's are left out: a job name is
/// unique only per user, and another user's job of the same name is no task of the study
/// (the newest job of a name would otherwise win, whoever ran it).
std::vector<jobgen::SlurmJobState> own_job_states(const std::vector<slurm::JobRecord>& jobs, std::string_view user);

/// Every array task of the experiment's rounds with its state, from the invoking user's
/// jobs only (sacct --user, and the user of each job): the latest round (what a
/// resubmitted round is made from), the tasks, and where job states came from ("sacct",
/// or "slurm_jobs" where no accounting answers, said in a note).
struct ExperimentProgress {
  jobgen::Round latest;
  std::vector<jobgen::TaskStatus> tasks;
  std::string job_source;
};
ExperimentProgress experiment_progress(const std::string& db, const std::string& experiment, const Say& say);

}  // namespace hetscale::study
