#include "hetscale/study/study_step.hpp"

namespace hetscale::study {

ResumeAction resume_action(const StudyState& state, bool controller_active, bool arrays_active) {
  if (state.phase == Phase::done || (state.phase == Phase::failed && !state.failed_phase))
    return ResumeAction::finished;
  if (controller_active) return ResumeAction::controller_active;
  if (arrays_active) return ResumeAction::wait_for_arrays;
  return ResumeAction::step_now;
}

bool runs_as_controller(const StudyState& state, std::optional<std::uint64_t> own_job) {
  return state.controller && own_job == state.controller;
}

AfterRound after_round(std::uint32_t round, std::uint32_t max_rounds, bool equalize) {
  if (round < max_rounds) return AfterRound::refine;
  return equalize ? AfterRound::rerun : AfterRound::finish;
}

}  // namespace hetscale::study
