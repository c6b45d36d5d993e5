// The study's jobs submitted once each, and its lock: what the study asks of Slurm around
// sbatch and around the lock of DIR/study.lock.
//
// Every job the study submits (the measured sets' arrays, the twin's round arrays, and
// both chains' controllers) carries a comment unique to it (`hetscale-<token>-<n>`,
// sbatch --comment), saved in the state (PendingSubmission) before sbatch runs. When
// sbatch's outcome is not known (it timed out, was killed, or the step died with it), the
// pending submission stays in the state, and the next step of either chain or resume
// looks the job up by its name and comment (squeue, then sacct) before anything else: a
// job Slurm took is adopted into the chain it belongs to as if sbatch had answered, never
// submitted a second time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/base/file_lock.hpp"
#include "hetscale/base/say.hpp"
#include "hetscale/study/study_state.hpp"

namespace hetscale::study {

/// Submits `script` (sbatch in `job.directory` for an array, a measured set's or a twin
/// round's, in `dir` for a controller) after `after` with the next comment of the study,
/// the submission saved in the state first; then records the job where its kind says (in
/// `arrays` or as the controller; as its experiment's twin array or that array's twin
/// controller), clears the pending submission and saves the state. Throws sbatch's errors:
/// a refusal clears the pending submission (nothing was submitted),
/// slurm::SubmissionOutcomeUnknown leaves it saved. Throws Error before anything is
/// submitted when a twin's job has nowhere to go (no twin's chain; a twin controller
/// without its experiment's array of that round).
std::uint64_t submit_study_job(StudyState& state, const std::filesystem::path& dir, PendingSubmission job,
                               const std::string& script, const std::vector<std::uint64_t>& after);

/// The state's pending submission, if any, settled as Slurm answered for it: a job found
/// (`found`) is recorded as submit_study_job would have recorded it, a twin's into the
/// twin's chain; with none, the submission is dropped. What it says, also put in the
/// history; the state is not saved.
std::string settle_pending_as(StudyState& state, std::optional<std::uint64_t> found);

/// Settles the state's pending submission, if any (settle_pending_as): the job Slurm took
/// for it (slurm::find_submitted_job, from a minute before sbatch started). Said on `say`;
/// the state saved. Throws Error, the state untouched, when Slurm cannot be asked.
void settle_pending_submission(StudyState& state, const std::filesystem::path& dir, const Say& say);

/// The study's lock (DIR/study.lock, hetscale/base/file_lock.hpp) with this process's Slurm
/// job in it; a holder on another host is judged by its job (squeue: ended or not). A stale
/// lock broken to take it is said on `say`.
ExclusiveFileLock lock_study(const std::filesystem::path& dir, const Say& say);

}  // namespace hetscale::study
