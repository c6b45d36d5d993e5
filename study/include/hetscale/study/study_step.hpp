// The pure decisions of a study's controllers: what a step or a resume does, given the
// state and what Slurm says of its jobs, for each of the study's two chains (the measured
// rounds, and the twin's arrays beside or after them). No I/O: unit-tested alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/study/study_spec.hpp"
#include "hetscale/study/study_state.hpp"

namespace hetscale::study {

/// The study's chains of controller steps: the measured rounds (and their re-run, psi
/// table, forecasts), and the twin's rounds of simulations. Each has its own arrays and
/// controller; whichever ends last writes the report.
enum class Chain { measured, twin };
std::string_view to_string(Chain chain);
/// "measured" or "twin"; std::nullopt for anything else.
std::optional<Chain> chain_from(std::string_view name);

enum class ResumeAction {
  finished,           // the chain is done, or failed with no phase to take again, or has nothing to do yet
  controller_active,  // its controller is pending or running: it will go on
  wait_for_arrays,    // the phase's arrays still run: a new controller must wait on them
  step_now            // everything has ended: take the next step now
};
/// The measured chain's: a failed study is resumed as the phase whose step failed (its
/// failed_phase); a study whose measured rounds have ended (phase twin) has nothing to resume there.
ResumeAction resume_action(const StudyState& state, bool controller_active, bool arrays_active);
/// One array of the twin's chain: nothing before the chain begins or once it is done; a
/// failed chain takes its steps again.
ResumeAction twin_resume_action(const TwinChain& twin, bool controller_active, bool array_active);

/// The measured chain's controller job the state records.
std::optional<std::uint64_t> measured_controller(const StudyState& state);

/// Whether a step runs as a controller job of `chain`: the Slurm job it runs in (`own_job`,
/// SLURM_JOB_ID; none outside a job) is the measured chain's controller, or for the twin's
/// chain the controller of one of its arrays. Any other step (one run by hand) must not run
/// while such a controller is pending or running: it takes the step itself when it starts,
/// and two steps would have acted.
bool runs_as_controller(const StudyState& state, Chain chain, std::optional<std::uint64_t> own_job);

/// The twin's arrays a step of the twin's chain takes: as an array's controller, that array;
/// by hand, every array whose controller is not pending or running (`active_controllers`).
std::vector<std::size_t> twin_arrays_to_step(const TwinChain& twin, std::optional<std::uint64_t> own_job,
                                             const std::vector<std::uint64_t>& active_controllers);

/// Whether `chain` has a step to take: the measured chain until its rounds have ended, the
/// twin's while its arrays run.
bool has_step(const StudyState& state, Chain chain);

/// The controllers that carry the study on, the ones `study run --wait` watches: the
/// measured chain's while it runs, each twin array's while the twin's chain runs.
std::vector<std::uint64_t> awaited_controllers(const StudyState& state);

/// Why the study failed, naming the stage (the twin's chain's prefixed "twin: "); none
/// while neither chain has failed.
std::optional<std::string> study_failure(const StudyState& state);

/// After round `round` of every experiment is collected: another refinement round while
/// `round < max_rounds` (when it has sizes to run), then the equalized re-run when asked,
/// then the end (psi table, forecasts, twin, report).
enum class AfterRound { refine, rerun, finish };
AfterRound after_round(std::uint32_t round, std::uint32_t max_rounds, bool equalize);

/// The experiments of `spec` whose twin has not begun (TwinChain::begun), in the spec's
/// order; none without a twin or once its chain is done.
std::vector<std::string> twin_experiments_to_begin(const StudyState& state, const StudySpec& spec);

/// Whether the measured chain's step begins twins now (those twin_experiments_to_begin
/// names, every one at first, after a begin that failed partway the rest): a twin that
/// starts beside the measured rounds as soon as round 0's records exist (any step of the
/// measured chain, which collects first); one that starts after them, once they have ended
/// (`measured_rounds_ended`: the psi table and forecasts are written).
bool twin_begins(const StudyState& state, const StudySpec& spec, bool measured_rounds_ended);

/// Whether the twin's chain has ended: no experiment's twin runs and none is left to begin.
bool twin_chain_ends(const StudyState& state, const StudySpec& spec);

/// After the measured chain's forecasts: the report now (no twin, or its chain done), or
/// the study waits for the twin's chain (phase twin), which writes the report when it ends.
enum class AfterMeasured { report, wait_for_twin };
AfterMeasured after_measured(const StudyState& state);

/// After the twin's chain has ended: the report now when the measured rounds have ended
/// too (phase twin), else nothing (the measured chain writes it when it ends).
bool twin_writes_report(const StudyState& state);

}  // namespace hetscale::study
