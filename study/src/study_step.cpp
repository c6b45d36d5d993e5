#include "hetscale/study/study_step.hpp"

#include <algorithm>

namespace hetscale::study {

std::string_view to_string(Chain chain) { return chain == Chain::twin ? "twin" : "measured"; }

std::optional<Chain> chain_from(std::string_view name) {
  if (name == "measured") return Chain::measured;
  if (name == "twin") return Chain::twin;
  return std::nullopt;
}

ResumeAction resume_action(const StudyState& state, bool controller_active, bool arrays_active) {
  if (state.phase == Phase::done || state.phase == Phase::twin ||
      (state.phase == Phase::failed && !state.failed_phase))
    return ResumeAction::finished;
  if (controller_active) return ResumeAction::controller_active;
  if (arrays_active) return ResumeAction::wait_for_arrays;
  return ResumeAction::step_now;
}

ResumeAction twin_resume_action(const TwinChain& twin, bool controller_active, bool array_active) {
  if (twin.phase == TwinPhase::waiting || twin.phase == TwinPhase::done) return ResumeAction::finished;
  if (controller_active) return ResumeAction::controller_active;
  if (array_active) return ResumeAction::wait_for_arrays;
  return ResumeAction::step_now;
}

std::optional<std::uint64_t> measured_controller(const StudyState& state) { return state.controller; }

bool runs_as_controller(const StudyState& state, Chain chain, std::optional<std::uint64_t> own_job) {
  if (!own_job) return false;
  if (chain == Chain::measured) return state.controller == own_job;
  if (!state.twin) return false;
  const auto ids = state.twin->controllers();
  return std::find(ids.begin(), ids.end(), *own_job) != ids.end();
}

std::vector<std::size_t> twin_arrays_to_step(const TwinChain& twin, std::optional<std::uint64_t> own_job,
                                             const std::vector<std::uint64_t>& active_controllers) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < twin.arrays.size(); ++i) {
    const auto& controller = twin.arrays[i].controller;
    if (own_job) {
      if (controller == own_job) out.push_back(i);
    } else if (!controller || std::find(active_controllers.begin(), active_controllers.end(), *controller) ==
                                  active_controllers.end()) {
      out.push_back(i);
    }
  }
  return out;
}

bool has_step(const StudyState& state, Chain chain) {
  if (chain == Chain::measured) return !state.finished();
  return state.twin && state.twin->phase == TwinPhase::simulate;
}

std::vector<std::uint64_t> awaited_controllers(const StudyState& state) {
  std::vector<std::uint64_t> ids;
  if (has_step(state, Chain::measured) && state.controller) ids.push_back(*state.controller);
  if (has_step(state, Chain::twin))
    for (const auto id : state.twin->controllers()) ids.push_back(id);
  return ids;
}

std::optional<std::string> study_failure(const StudyState& state) {
  if (state.phase == Phase::failed) return state.failure;
  if (state.twin && state.twin->phase == TwinPhase::failed) return "twin: " + state.twin->failure;
  return std::nullopt;
}

AfterRound after_round(std::uint32_t round, std::uint32_t max_rounds, bool equalize) {
  if (round < max_rounds) return AfterRound::refine;
  return equalize ? AfterRound::rerun : AfterRound::finish;
}

std::vector<std::string> twin_experiments_to_begin(const StudyState& state, const StudySpec& spec) {
  std::vector<std::string> names;
  if (!state.twin || state.twin->phase == TwinPhase::done) return names;
  for (const auto& e : spec.experiments)
    if (!state.twin->has_begun(e.spec.name)) names.push_back(e.spec.name);
  return names;
}

bool twin_begins(const StudyState& state, const StudySpec& spec, bool measured_rounds_ended) {
  if (twin_experiments_to_begin(state, spec).empty()) return false;
  return spec.twin_start == TwinStart::beside || measured_rounds_ended;
}

bool twin_chain_ends(const StudyState& state, const StudySpec& spec) {
  return state.twin && state.twin->arrays.empty() && twin_experiments_to_begin(state, spec).empty();
}

AfterMeasured after_measured(const StudyState& state) {
  return !state.twin || state.twin->phase == TwinPhase::done ? AfterMeasured::report : AfterMeasured::wait_for_twin;
}

bool twin_writes_report(const StudyState& state) { return state.phase == Phase::twin; }

}  // namespace hetscale::study
