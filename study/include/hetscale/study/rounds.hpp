// The rounds of one experiment as `hetscale jobgen` and the study's controller make them
// (docs/experiment-spec.md, docs/study.md): what a refinement starts from (the latest
// round and the runs of every round, read from a database or from the round directories),
// the next refinement round, and jobgen's new, refined and resubmitted rounds checked
// against Slurm and written into their directories. What a call says comes line by line
// through `say` (hetscale/base/say.hpp): results, and notes where Slurm cannot be asked.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/say.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/study/round_check.hpp"

namespace hetscale::study {

/// What the next refinement round of an experiment is planned from.
struct RefinementInput {
  jobgen::Round latest;                       // the latest round: spec, site, sets, number
  std::vector<jobgen::MeasuredRun> runs;      // the runs of every round
  std::vector<jobgen::GeneratedFile> inputs;  // copies for the next round's directory (spec, site table)
};

/// From the database alone: the latest round collected (its spec, site, sets and number)
/// and the runs of every round; the next round's directory gets the spec (its site is in
/// its plan). What `hetscale jobgen --refine --db`, `hetscale twin refine` and the study's
/// refine stage read. Throws Error saying what to collect when something is missing.
RefinementInput refinement_from_database(const std::string& db, const std::string& experiment);

/// From the round directories `dirs` (the first round's, then every round since, in
/// order): the first one's spec and site table (planned again, and copied into the next
/// round's directory) and its plan's study token, the number of the last; the runs from
/// their records or, with `db`, from the database. Throws OptionValueError when the first
/// directory holds another experiment than `experiment`.
RefinementInput refinement_from_directories(const std::string& experiment,
                                            const std::vector<std::filesystem::path>& dirs, const std::string& db);

/// The next round: each set of `latest` refined from its measured points (one explanation
/// line per set said as a result); sets with nothing to run have no parameter values. The
/// time limits come from the runs (jobgen::apply_measured_time_limits).
jobgen::Round next_round(const jobgen::Round& latest, const std::vector<jobgen::MeasuredRun>& runs, const Say& say);

/// Where `hetscale jobgen` writes a round: a new or empty directory, and where the bundled
/// kernels its scripts run are, asked for when the round's files are made (after what is
/// said before them; a round with nothing to run asks nothing).
struct RoundOutput {
  std::filesystem::path dir;
  std::function<std::string()> kernel_dir;
};

/// "wrote DIR: 2 machine sets (2, 4 nodes), 6 array tasks x 3 repetitions; submit with
/// DIR/submit.sh\n": the sets with sizes to run.
std::string round_summary(const jobgen::Round& round, const std::string& dir);

/// `hetscale jobgen`'s round 0: `planned` checked against Slurm (`check`, jobgen_round_check),
/// its files made with `inputs` (copies of the spec and site table that make the directory
/// stand alone), every set script tested with `sbatch --test-only` where Slurm answers, and
/// written into `output.dir`; says the swaps, the notes and the summary. Returns the round
/// as written.
jobgen::Round write_new_round(jobgen::Round planned, const RoundCheck& check, const RoundOutput& output,
                              const std::vector<jobgen::GeneratedFile>& inputs, const Say& say);

/// `hetscale jobgen --refine`: the next round of `input` (next_round), checked against
/// Slurm as a round that runs on the sets measured before, written into `output.dir`
/// (with `input.inputs`); none, and "nothing to refine: no files written" said, when no
/// set has sizes to run.
std::optional<jobgen::Round> write_refined_round(const RefinementInput& input, const RoundOutput& output,
                                                 const Say& say);

/// `hetscale jobgen --resubmit`: the array tasks of the experiment's rounds that failed,
/// completed without records or were never submitted, as the next round (one line said
/// per such task), checked as a later round, written into `output.dir` with the spec, its
/// plan loaded into the database `db` (so that `hetscale status` follows it) and, with
/// `submit`, the round submitted (what its submit.sh prints said). None, and "nothing to
/// resubmit: ..." said, when every task's records are collected. Throws Error when Slurm
/// keeps no accounting (sacct): pending and running tasks would not be seen;
/// slurm::SubmissionOutcomeUnknown, naming the round written and loaded, when its submit.sh
/// ended without saying whether Slurm took every set (slurm::submit_round).
struct Resubmission {
  std::string db;
  std::string experiment;
  RoundOutput output;
  bool submit = true;
};
std::optional<jobgen::Round> resubmit_round(const Resubmission& request, const Say& say);

}  // namespace hetscale::study
