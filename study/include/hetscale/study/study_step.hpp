// The pure decisions of a study's controller: what a step or a resume does, given the
// state and what Slurm says of its jobs. No I/O: unit-tested alone.
#pragma once

#include <cstdint>
#include <optional>

#include "hetscale/study/study_state.hpp"

namespace hetscale::study {

enum class ResumeAction {
  finished,           // the study is done, or failed with no phase to take again: nothing to do
  controller_active,  // its controller is pending or running: it will go on
  wait_for_arrays,    // the phase's arrays still run: a new controller must wait on them
  step_now            // everything has ended: take the next step now
};
/// A failed study is resumed as the phase whose step failed (its failed_phase).
ResumeAction resume_action(const StudyState& state, bool controller_active, bool arrays_active);

/// Whether a step runs as the study's own controller job: the Slurm job it runs in
/// (`own_job`, SLURM_JOB_ID; none outside a job) is the controller the state records. Any
/// other step (one run by hand) must not run while that controller is pending or running:
/// it takes the step itself when it starts, and two steps would have acted.
bool runs_as_controller(const StudyState& state, std::optional<std::uint64_t> own_job);

/// After round `round` of every experiment is collected: another refinement round while
/// `round < max_rounds` (when it has sizes to run), then the equalized re-run when asked,
/// then the end (psi table, forecasts, twin, report).
enum class AfterRound { refine, rerun, finish };
AfterRound after_round(std::uint32_t round, std::uint32_t max_rounds, bool equalize);

}  // namespace hetscale::study
