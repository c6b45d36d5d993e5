// The study's jobs submitted once each, and its lock (study/include/hetscale/study/study_submission.hpp).
#include "hetscale/study/study_submission.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "hetscale/base/error.hpp"
#include "hetscale/site/study_token.hpp"
#include "hetscale/slurm/queries.hpp"

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

std::string what_job(const PendingSubmission& job) {
  switch (job.kind) {
    case PendingSubmission::Kind::array:
      return fmt::format("{} set {} ({})", job.experiment, job.set_index, job.job_name);
    case PendingSubmission::Kind::controller:
      return fmt::format("the controller ({})", job.job_name);
    case PendingSubmission::Kind::twin_array:
      return fmt::format("{}'s twin round {} ({})", job.experiment, job.round, job.job_name);
    case PendingSubmission::Kind::twin_controller:
      return fmt::format("the twin controller of {}'s round {} ({})", job.experiment, job.round, job.job_name);
  }
  return job.job_name;
}

// The twin's array a twin submission goes into: its experiment's (a twin controller's
// must exist, waiting for its controller); a twin array's may be new. Throws Error when the
// state has no twin's chain, or no array for a twin controller to wait on.
TwinArray* twin_array_for(StudyState& state, const PendingSubmission& job) {
  if (!state.twin) throw Error(fmt::format("{} belongs to the twin's chain, which the study has not", what_job(job)));
  TwinArray* array = state.twin->array_of(job.experiment);
  if (job.kind == PendingSubmission::Kind::twin_controller && (array == nullptr || array->round != job.round))
    throw Error(fmt::format("{}: the twin's chain has no array of {}'s round {} to wait on", what_job(job),
                            job.experiment, job.round));
  return array;
}

// The job's id recorded where the submission says: an array of the measured phase or the
// measured chain's controller; an experiment's round of the twin (in place of its round
// before) or the twin's controller of that round.
void record_job(StudyState& state, const PendingSubmission& job, std::uint64_t id) {
  switch (job.kind) {
    case PendingSubmission::Kind::array:
      state.arrays.push_back({job.experiment, job.set_index, id, job.directory});
      break;
    case PendingSubmission::Kind::controller:
      state.controller = id;
      record(state, "controller", fmt::format("controller job {} submitted", id));
      break;
    case PendingSubmission::Kind::twin_array: {
      TwinArray* array = twin_array_for(state, job);
      if (array == nullptr) array = &state.twin->arrays.emplace_back();
      *array = {job.experiment, job.round, id, job.directory, std::nullopt};
      state.twin->mark_begun(job.experiment);
      if (state.twin->phase == TwinPhase::waiting) state.twin->phase = TwinPhase::simulate;
      record(state, "submitted", fmt::format("{}'s twin round {}: array job {}", job.experiment, job.round, id));
      break;
    }
    case PendingSubmission::Kind::twin_controller:
      twin_array_for(state, job)->controller = id;
      record(state, "controller",
             fmt::format("twin controller job {} submitted for {}'s round {}", id, job.experiment, job.round));
      break;
  }
  state.pending.reset();
}

}  // namespace

std::uint64_t submit_study_job(StudyState& state, const fs::path& dir, PendingSubmission job,
                               const std::string& script, const std::vector<std::uint64_t>& after) {
  if (state.pending)
    throw Error(fmt::format("the study in {} has a submission whose outcome is not known ({}): hetscale study "
                            "resume looks it up first",
                            dir.string(), what_job(*state.pending)));
  if (job.of_twin()) (void)twin_array_for(state, job);  // where its id will go, before anything is submitted
  // The study's token where it has one; else one drawn for the comment alone.
  const std::string token = state.study_token.empty() ? new_study_token() : state.study_token;
  state.submissions += 1;
  job.comment = fmt::format("hetscale-{}-{}", token, state.submissions);
  job.attempted = static_cast<std::int64_t>(std::time(nullptr));
  state.pending = job;
  save_state(dir, state);
  const bool array = job.kind == PendingSubmission::Kind::array || job.kind == PendingSubmission::Kind::twin_array;
  const std::string directory = array ? job.directory : dir.string();
  std::uint64_t id = 0;
  try {
    id = slurm::submit_job(script, directory, after, job.comment);
  } catch (const slurm::SubmissionOutcomeUnknown&) {
    throw;  // the pending submission stays saved: the next step or resume looks it up
  } catch (...) {
    state.pending.reset();  // refused: nothing was submitted
    save_state(dir, state);
    throw;
  }
  record_job(state, job, id);
  save_state(dir, state);
  return id;
}

std::string settle_pending_as(StudyState& state, std::optional<std::uint64_t> found) {
  if (!state.pending) return {};
  const PendingSubmission job = *state.pending;
  std::string said;
  if (found) {
    record_job(state, job, *found);
    said = fmt::format("job {} of {} found in Slurm by its comment {}: taken as submitted, not submitted again",
                       *found, what_job(job), job.comment);
  } else {
    state.pending.reset();
    said = fmt::format("no job of {} with comment {} in Slurm: its submission did not reach Slurm", what_job(job),
                       job.comment);
  }
  record(state, "submission", said);
  return said;
}

void settle_pending_submission(StudyState& state, const fs::path& dir, const Say& say) {
  if (!state.pending) return;
  const PendingSubmission& job = *state.pending;
  // A minute before sbatch started: the clocks of this host and slurmctld's may differ.
  const auto found = slurm::find_submitted_job(job.job_name, job.comment, static_cast<std::time_t>(job.attempted - 60));
  const std::string said = settle_pending_as(state, found);
  save_state(dir, state);
  say(LineKind::note, said + "\n");
}

ExclusiveFileLock lock_study(const fs::path& dir, const Say& say) {
  FileLockOptions options;
  options.job_id = slurm::own_job_id();
  options.job_check = [](std::uint64_t job) {
    try {
      return slurm::active_jobs({job}).empty() ? HolderState::gone : HolderState::alive;
    } catch (const Error&) {
      return HolderState::unknown;  // Slurm cannot be asked: nothing is broken
    }
  };
  ExclusiveFileLock lock(dir / "study.lock",
                         fmt::format("a hetscale study run, step or resume of the study in {}", dir.string()),
                         std::move(options));
  if (const auto& stale = lock.broke_stale()) {
    std::string who = fmt::format("process {}", stale->pid);
    if (!stale->host.empty()) who += " on host " + stale->host;
    if (stale->job_id) who += fmt::format(", Slurm job {}", *stale->job_id);
    say(LineKind::note, fmt::format("note: took over the lock {} of {}, which has ended\n",
                                    (dir / "study.lock").string(), who));
  }
  return lock;
}

}  // namespace hetscale::study
