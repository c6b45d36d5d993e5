// The study as Slurm jobs (docs/study.md): `run` validates everything, plans round 0 of
// every experiment, loads the plans and submits the arrays (one after another: the
// experiments must not share the machine's cores) with a controller job that depends on
// them. The controller runs `step` through the named stages (controller_stage_names):
// collect, then the next refinement round and its own successor, or the equalized re-run,
// or the end (psi table, forecasts, report). A study with a twin has a second chain of
// arrays and controllers, the twin's, begun beside the measured rounds or after them;
// whichever chain ends last writes the report. `resume` carries on either chain whose
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
#include "hetscale/study/study_step.hpp"

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

/// What a controller job of `chain` does. The measured chain's: collect the phase's arrays
/// (and begin the twin's chain beside them), then submit the next round (or re-run) with a
/// successor controller, or end the measured rounds (psi table, forecasts; the twin's
/// chain begun after them). The twin's: collect its round's arrays, then submit its next
/// round with a successor controller, or end. The chain that ends last writes the report
/// and the study is done. A failure marks the chain failed (the stage named) and is thrown.
/// Run by hand (not as the state's controller job of the chain, runs_as_controller), it is
/// refused, the study untouched, while that controller is pending or running. Inside a
/// Slurm job it waits for the study's lock while the other chain's step holds it.
StudyState step_study(const std::filesystem::path& dir, Chain chain, std::ostream& out);

/// After a cancelled or crashed controller, for each chain: nothing while its controller is
/// pending or running; a new controller while its arrays still run; else its step.
StudyState resume_study(const std::filesystem::path& dir, std::ostream& out);

/// The stages a controller's step of `chain` runs through, by name, in order: the measured
/// chain's collect, twin beside, refine, equalize, re-run, compare, analyze, predict, twin,
/// report; the twin's twin collect, twin refine, report (docs/architecture.md). A step runs
/// those its state asks for and ends at the first that submits jobs.
std::vector<std::string_view> controller_stage_names(Chain chain = Chain::measured);

/// One experiment's part of the psi table: its code, name, target and pairs of sets.
struct PsiTableExperiment {
  std::string code;
  std::string experiment;
  double target = 0;
  std::vector<collector::PsiPair> psi;
};

/// The psi table (psi.txt), columns aligned to their widest cell: code, experiment, target,
/// set->set, C->C', psi with its interval as every output writes it (interval_text: "0.912
/// [0.8471, 0.9733]", "0.912 (too few runs)"; the level in the header), "n/a" without psi;
/// "(no pair of sets)" in the psi column, `-` in the pairs', for an experiment without pairs.
std::string psi_table_text(const std::vector<PsiTableExperiment>& experiments);

/// What the analyze stage writes (psi.txt): the psi table of the study's experiments
/// (psi_table_text of each experiment's analysis), and for each
/// experiment with [refine] precision one line per set: whether its required parameter
/// reached the precision ("<experiment> set <k>: precision_not_reached (precision 10% not
/// reached: half-width 14% after 60 runs; budget 60 runs per set)"), also kept in the
/// history as stage "precision".
struct StudyFigures {
  std::string psi_table;
  std::vector<std::string> precision;
};
StudyFigures study_figures(const StudySpec& spec, const std::string& db);

/// The controller jobs' names: `<study>-controller`; the twin's chain's,
/// `<study>-twin-controller`.
std::string controller_job_name(const StudySpec& spec, Chain chain = Chain::measured);

/// The controller job's script: `hetscale study step --dir DIR`, one task, not exclusive,
/// named controller_job_name, with the spec's controller_time_limit as its --time; the
/// twin's: `... --chain twin`, in the twin's partition.
std::string controller_script(const StudySpec& spec, const StudyState& state, const std::filesystem::path& dir,
                              Chain chain = Chain::measured);

}  // namespace hetscale::study
