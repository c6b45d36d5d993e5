// A study on the twin from its inputs to its records (docs/twin.md, "Studies on the
// twin"): an experiment spec planned on the twin of a site table (grown, its compute
// efficiency calibrated from measured records), the study directory written, its
// simulations run, and what happens said line by line as it happens. `hetscale twin
// study`, `twin refine` and `twin run` and the study's twin stage are callers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/base/say.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/twin/simulated_round.hpp"
#include "hetscale/twin/twin_platform.hpp"

namespace hetscale::twin {

// What a twin study says (through `say`, hetscale/base/say.hpp): notes: the calibration,
// a site without [network], a line per finished run; results: the study written, how to
// submit its array, the count of its runs.

/// The runs of one pass of simulations.
struct TwinRunCounts {
  std::size_t simulated = 0;  // run now, and their record kept
  std::size_t kept = 0;       // their record was there already
  std::size_t failed = 0;     // no record (see status.tsv and the run's log)
  unsigned jobs = 1;          // simulations at once
  std::optional<std::uint64_t> array_job;  // simulated as the tasks of this Slurm array instead
};

/// "runs: 28 simulated, 2 kept, 0 failed (2 at a time)", or "(array job 812)" for the
/// runs of an array, without a newline.
std::string to_string(const TwinRunCounts& counts);

/// Throws Error, naming the logs in the study directory `dir`, when any run failed.
void require_no_failed_runs(const TwinRunCounts& counts, const std::filesystem::path& dir);

/// Runs `tasks` (all runs when empty) of the study written in `dir` with run_twin_study: a
/// note per finished run, then the counts as a result. Failed runs are counted, not
/// thrown; a missing smpirun or kernel throws Error before any run starts.
TwinRunCounts simulate_twin_runs(const std::filesystem::path& dir, const SimulatedRound& simulated,
                                 const std::vector<std::size_t>& tasks, const TwinRunnerOptions& runner,
                                 const Say& say);

/// The probes of a round's machine sets (twin_probe.hpp).
struct TwinProbeCounts {
  std::size_t written = 0;
  std::size_t failed = 0;  // no output (see the probe's log)
};

/// "probes: 3 written, 0 failed", without a newline.
std::string to_string(const TwinProbeCounts& counts);

/// Probes every machine set of the round in `dir` (run_twin_probes, `arguments` given to
/// hetscale-twin-commbench): a note per probe, then the counts as a result. Failed probes
/// are counted, not thrown; a missing smpirun or program throws Error before any starts.
TwinProbeCounts probe_twin_sets(const std::filesystem::path& dir, const SimulatedRound& simulated,
                                const TwinRunnerOptions& runner, const std::vector<std::string>& arguments,
                                const Say& say);

/// Throws Error, naming the logs in `dir`, when any probe failed.
void require_no_failed_probes(const TwinProbeCounts& counts, const std::filesystem::path& dir);

/// The runs of the round in `dir` once `array_job` (its twin.sbatch) has ended, each array
/// task having simulated one (gather_run_statuses, which writes status.tsv): a note per
/// run, then the counts as a result. A run that never ended counts as failed.
TwinRunCounts count_array_runs(const std::filesystem::path& dir, const SimulatedRound& simulated,
                               std::uint64_t array_job, const Say& say);

/// A simulated round written into its directory, and its simulations run.
struct SimulatedRoundOutcome {
  std::filesystem::path dir;
  std::string experiment;  // the twin experiment's name in the records
  std::size_t runs = 0;    // the runs planned
  /// The simulations run; none with options.sbatch (twin.sbatch written, nothing run).
  std::optional<TwinRunCounts> counts;
  /// The probes of its sets, when asked for (TwinStudyRequest::probe) and run.
  std::optional<TwinProbeCounts> probes;
};

/// Throws Error, naming the logs in the round's directory, when any run of it failed.
void require_no_failed_runs(const SimulatedRoundOutcome& outcome);

/// Writes `files` (of `simulated`) into `dir` (new or empty) and reports `summary` (a result
/// line), then simulates every run, or with options.sbatch reports how to submit
/// twin.sbatch. Without options.sbatch, smpirun and the kernel are checked before
/// anything is written.
SimulatedRoundOutcome write_and_run_simulated_round(const std::filesystem::path& dir, const SimulatedRound& simulated,
                                                    const SimulatedRoundOptions& options,
                                                    const std::vector<jobgen::GeneratedFile>& files,
                                                    const std::string& summary, const TwinRunnerOptions& runner,
                                                    const Say& say);

/// The next round of the twin study whose latest round is `previous`, as planned from the
/// runs collected so far (e.g. study::next_round), on the same platform (its hash and
/// compute efficiency kept) and with the same repetitions of each size as `previous` (a
/// planner reading the spec from the database gives the spec's): its runs in order. None,
/// and "nothing to refine: no files written" said as a result, when it has no runs.
std::optional<SimulatedRound> next_simulated_round(const SimulatedRound& previous, jobgen::Round next,
                                                   const Say& say);

/// Writes `next` (a later round of the twin study whose earlier round is in `previous_dir`)
/// into `dir` (new or empty) with that round's spec, site table and platform, says where
/// ("twin study: DIR (experiment E, round R, N runs, platform HASH)"), then simulates its
/// runs or, with options.sbatch, says how to submit twin.sbatch (write_and_run_simulated_round).
SimulatedRoundOutcome write_and_run_later_round(const std::filesystem::path& dir, const SimulatedRound& next,
                                                const std::filesystem::path& previous_dir,
                                                const SimulatedRoundOptions& options, const TwinRunnerOptions& runner,
                                                const Say& say);

struct TwinStudyRequest {
  std::filesystem::path spec;        // the experiment spec (TOML)
  std::filesystem::path site;        // the site table (TOML)
  std::filesystem::path output_dir;  // the study directory to create (new or empty)
  /// Simulate the site grown to this many nodes of the same mix (grow_site_table).
  std::optional<std::size_t> nodes;
  /// Speed profiles on the platform's hosts (as for `hetscale twin platform`).
  std::optional<TwinAvailability> availability;
  /// Measured run records (files, or directories of *.jsonl) of the spec's code: when
  /// given, the compute efficiency is measured_compute_efficiency's, and
  /// options.compute_efficiency must be unset.
  std::vector<std::filesystem::path> calibrate_from;
  SimulatedRoundOptions options;
  TwinRunnerOptions runner;
  /// Also probe the network of every machine set (probe_twin_sets) after the simulations
  /// (not with options.sbatch), `probe_arguments` given to hetscale-twin-commbench.
  bool probe = false;
  std::vector<std::string> probe_arguments;
};

/// The study of `request.spec` on the twin of `request.site`: loads the spec, grows the
/// site table, makes the platform, calibrates the compute efficiency, plans the study,
/// writes its directory and simulates its runs (write_and_run_twin_study), then probes its
/// sets when asked, saying so through `say`. Throws Error/ConfigError on bad inputs before
/// anything is written; failed runs and probes are counted in the outcome, not thrown
/// (require_no_failed_runs, require_no_failed_probes).
SimulatedRoundOutcome conduct_twin_study(const TwinStudyRequest& request, const Say& say);

}  // namespace hetscale::twin
