// The study as Slurm jobs (docs/study.md): `run` validates everything, plans round 0 of
// every experiment, loads the plans and submits the arrays (one after another: the
// experiments must not share the machine's cores) with a controller job that depends on
// them. The controller runs `step` through the named stages (controller_stage_names):
// collect, then the next refinement round and its own successor, or the equalized re-run,
// or the end (psi table, forecasts, twin, report). `resume` finishes a study whose
// controller was cancelled or crashed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/collector/analysis.hpp"
#include "hetscale/study/study_spec.hpp"
#include "hetscale/study/study_state.hpp"

namespace hetscale::study {

struct RunOptions {
  std::filesystem::path spec;
  std::filesystem::path site;
  std::string db;
  std::filesystem::path dir;         // new or empty; holds the state, every round and the report
  std::filesystem::path kernel_dir;  // the bundled kernels
  std::filesystem::path partitions;  // where equalize writes partition files
  std::filesystem::path hetscale;    // the executable the controller jobs run
  std::optional<std::uint32_t> twin_nodes;  // instead of the spec's [twin] nodes (0: no twin)
};

/// Checks the spec, every experiment spec, the site table, the database (reachable and
/// migrated) and every generated script (sbatch --test-only) before submitting anything;
/// the first fault throws with nothing submitted. Then loads round 0's plans, submits the
/// arrays and the controller, and writes the state. Holds the study's lock (DIR/study.lock)
/// throughout, as a step does: a step started meanwhile is refused.
StudyState run_study(const RunOptions& options, std::ostream& out);

/// What a controller job does: collect the phase's arrays, then submit the next round (or
/// re-run) with a successor controller, or finish the study. A failure marks the study
/// failed (the stage named) and is thrown. Run by hand (not as the state's controller job,
/// runs_as_controller), it is refused, the study untouched, while that controller is
/// pending or running.
StudyState step_study(const std::filesystem::path& dir, std::ostream& out);

/// After a cancelled or crashed controller: nothing while a controller of the study is
/// pending or running; a new controller while the phase's arrays still run; else the step.
StudyState resume_study(const std::filesystem::path& dir, std::ostream& out);

/// The stages a controller's step runs through, by name, in order: collect, refine,
/// equalize, re-run, compare, analyze, predict, twin, report (docs/architecture.md). A step
/// runs those its state asks for and ends at the first that submits jobs.
std::vector<std::string_view> controller_stage_names();

/// The psi table of the study's experiments (one line per pair of consecutive sets):
/// psi_table_header, then psi_table_lines of each experiment's analysis.
std::string psi_table(const StudySpec& spec, const std::string& db);

/// The psi table's header: code, experiment, target, set->set, C->C', psi with the level of
/// its interval.
std::string psi_table_header();

/// The psi table's lines of one experiment (`code`, its name, its target): one per pair of
/// `psi`, psi with its interval as every output writes it (interval_text: "0.912 [0.8471,
/// 0.9733]", "0.912 (too few runs)"), "n/a" without psi; "(no pair of sets)" without pairs.
std::string psi_table_lines(const std::string& code, const std::string& experiment, double target,
                            const std::vector<collector::PsiPair>& psi);

/// The controller jobs' name: `<study>-controller`.
std::string controller_job_name(const StudySpec& spec);

/// The controller job's script: `hetscale study step --dir DIR`, one task, not exclusive,
/// named controller_job_name, with the spec's controller_time_limit as its --time.
std::string controller_script(const StudySpec& spec, const StudyState& state, const std::filesystem::path& dir);

}  // namespace hetscale::study
