// The study a database holds of one experiment (its latest round's spec and plan, and the
// runs of every round) and the next refinement round of it. Shared by `hetscale jobgen
// --refine` and `hetscale twin refine`.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hetscale/collector/stored_experiment.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/task_status.hpp"

namespace hetscale::study {

// What the database holds of one experiment, read as of one moment.
struct StoredStudy {
  std::optional<collector::StoredExperiment> experiment;  // none: not in the database
  std::vector<std::string> known;                         // every experiment's name
  std::vector<collector::StoredRun> runs;                 // every round's, wherever collected from
};

/// Reads the experiment's plan and runs as of one moment (a few quick retries).
StoredStudy read_stored_study(const std::string& db, const std::string& experiment);

/// The latest round's study as the database holds it: the spec from its text (named as
/// the plan names the experiment), the site and sets from its plan. Throws Error saying
/// what to collect when something is missing.
jobgen::Round latest_round(const std::string& experiment, const StoredStudy& stored);

/// The stored runs as measurements of `study`, after checking that the database holds the
/// plan of this very study (`origin` names where the study came from, for messages).
std::vector<jobgen::MeasuredRun> measured_runs(const StoredStudy& stored, const jobgen::Round& study,
                                               const std::string& origin);

/// Every array task of the current study's rounds with its state: the latest round's study
/// (what a resubmitted round is made from), the tasks, and where job states came from
/// ("sacct", or "slurm_jobs" where no accounting answers, said on `notes`).
struct StudyProgress {
  jobgen::Round latest;
  std::vector<jobgen::TaskStatus> tasks;
  std::string job_source;
};
StudyProgress study_progress(const std::string& db, const std::string& experiment, std::ostream& notes);

/// The next round: each set refined from its measured points (one explanation line per set
/// to `explanations`); sets with nothing to run have no parameter values. The time limits
/// come from the runs (jobgen::apply_measured_time_limits).
jobgen::Round next_round(const jobgen::Round& study, const std::vector<jobgen::MeasuredRun>& runs,
                         std::ostream& explanations);

}  // namespace hetscale::study
