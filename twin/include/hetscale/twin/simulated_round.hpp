// A round of an experiment simulated on the SimGrid twin (docs/twin.md, "Studies on the
// twin"): the machine sets that jobgen plans for an experiment spec (or refines from the
// runs of earlier rounds), every set x size x repetition simulated under smpirun on the
// twin platform of the site, written into the round's directory as ordinary run records
// and a plan file, so that collect, analyze, predict and report read twin results as they
// read measured ones. A twin study (`hetscale twin study`, conduct.hpp) is its round 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/base/say.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/site/run_record.hpp"
#include "hetscale/twin/twin_platform.hpp"

namespace hetscale::twin {

/// One simulation: machine set `set_index` at its `value_index`-th size, one repetition.
struct TwinRun {
  std::size_t task = 0;  // position in the round's run list (also the sbatch array task)
  std::size_t set_index = 0;
  std::size_t value_index = 0;
  double value = 0;
  std::uint32_t repetition = 0;
  std::uint32_t ranks = 0;
};

struct SimulatedRound {
  jobgen::Round round;  // the round jobgen plans, its experiment named for the twin
  std::string platform_hash;
  /// The fraction of marked speed the kernel attains (hetscale-twin-* --compute-efficiency):
  /// 1 charges the operations at the hosts' marked speeds.
  double compute_efficiency = 1;
  /// Simulated seconds over which the runs' starts are spread (hetscale-twin-* --start-at,
  /// twin_run_start): 0, every run starts at 0 and meets the same moments of the hosts'
  /// speed profiles, so that repetitions are identical; above 0, each run starts at its own
  /// moment and meets availability of its own, as runs on a shared cluster do.
  double start_spread = 0;
  std::vector<TwinRun> runs;  // set by set, size by size, repetition by repetition
};

/// The simulated second at which `run` starts: start_spread times a fraction in [0, 1)
/// drawn from the run's set index, size and repetition (SplitMix64): the same run starts
/// at the same moment in every round and on every machine, two repetitions at different ones.
double twin_run_start(const TwinRun& run, double start_spread);

struct SimulatedRoundOptions {
  /// The twin experiment's name in records, plan and database; empty: "<spec name>-twin",
  /// so that twin and measured runs of one spec never merge.
  std::string experiment;
  std::optional<double> flops_per_unit;  // as for `hetscale twin platform`
  /// Replaces the spec's [machine_sets] max (the largest set, in nodes; 0 = no limit):
  /// the twin goes beyond the machine the spec was written for.
  std::optional<std::size_t> max_set_nodes;
  /// Replaces the spec's [parameter] psi_floor, which sets how far the sizes of larger sets
  /// reach: a low floor, chosen for two or three sets, grows sizes past what the twin
  /// folds on dozens of nodes.
  std::optional<double> psi_floor;
  /// Replaces the spec's repetitions: charged runs are deterministic, so one is enough.
  std::optional<std::uint32_t> repetitions;
  /// The largest set, in nodes, that round 0 simulates; the larger ones get no sizes there
  /// and begin in later rounds (begin_next_set). Absent: every set.
  std::optional<std::size_t> first_round_nodes;
  /// The kernel's compute efficiency on the twin, in (0, 2]; 1 when absent.
  std::optional<double> compute_efficiency;
  /// SimulatedRound::start_spread, in [0, 1e6] seconds; 0 when absent.
  std::optional<double> start_spread;
  /// Also write twin.sbatch: the runs as a Slurm array of serial tasks.
  bool sbatch = false;
  /// The partition of twin.sbatch instead of the spec's [slurm] partition; its reservation
  /// and constraint, which choose the measured nodes, are then left out.
  std::optional<std::string> partition;
  /// Directory of the hetscale executable named in twin.sbatch.
  std::string bin_dir = "/usr/local/bin";
};

/// The file names inside a simulated round's directory.
inline constexpr const char* twin_spec_file = "spec.toml";
inline constexpr const char* twin_site_file = "site.toml";
inline constexpr const char* twin_plan_file = "plan.json";
inline constexpr const char* twin_sbatch_file = "twin.sbatch";
inline constexpr const char* twin_status_file = "status.tsv";
inline constexpr const char* twin_compute_efficiency_file = "compute-efficiency";
// SimulatedRound::start_spread when above 0; later rounds keep it.
inline constexpr const char* twin_start_spread_file = "start-spread";
// Repetitions of each (set, size) when they are not the spec's (`--repetitions`): the
// array tasks and `twin run` count the runs with them.
inline constexpr const char* twin_repetitions_file = "repetitions";

/// The name a twin experiment gets from its spec's when none is given.
std::string default_twin_experiment(const std::string& spec_name);

/// Plans round 0 of `spec` on `site` for the twin: the sets jobgen plans, the runs in
/// order. The spec must name a bundled kernel (the twin runs hetscale-twin-<kernel>) and
/// one weights, `marked`, `off` or a file. Throws ConfigError at the spec's key otherwise.
SimulatedRound plan_simulated_round(jobgen::ExperimentSpec spec, const SiteTable& site, const TwinPlatform& platform,
                                    const SimulatedRoundOptions& options);

/// Everything a simulated round's directory holds before its runs: the spec and site table as
/// given (`site_text`), plan.json, the platform files, hosts/set<k>.txt (one line per
/// rank) and, with options.sbatch, twin.sbatch. `created` is the plan's ISO 8601 UTC time.
std::vector<jobgen::GeneratedFile> simulated_round_files(const SimulatedRound& simulated,
                                                         const TwinPlatform& platform, const std::string& site_text,
                                                         const SimulatedRoundOptions& options,
                                                         const std::string& created);

/// The sizes of the next set to begin in `next` (a later round of a twin study whose round
/// 0 left its larger sets without sizes, first_round_nodes): the smallest set with no runs
/// yet, once the two sets below it read their targets within their runs (the fitted curve,
/// EfficiencyCurve). Its target's work is placed as the psi between those two puts it,
/// W_k = W_j (C_k / C_j) / psi, and it runs at half, once and twice that work. One set
/// per round; says which as a result. Returns the set begun, if any.
std::optional<std::size_t> begin_next_set(jobgen::Round& next, const std::vector<jobgen::MeasuredRun>& runs,
                                          const Say& say);

/// A planned round (e.g. the next refinement round of a twin study, study::next_round) as
/// a round simulated as `previous` was (its platform, compute efficiency and start
/// spread): its runs in order.
SimulatedRound simulated_round_of(jobgen::Round round, const SimulatedRound& previous);

/// The refinement of a twin round plans from `latest` (its spec's [refine]): the spec's
/// precision only where the runs vary (start_spread above 0). Deterministic runs repeat
/// each other, so repetitions add nothing and a precision would spend the set's budget.
void twin_refinement_spec(jobgen::Round& latest, const SimulatedRound& previous);

/// The files of `next`, a later round of the twin study whose earlier round is in
/// `previous_dir`: that round's spec, site table, platform, compute efficiency and start
/// spread, `next`'s
/// plan and host files.
std::vector<jobgen::GeneratedFile> later_round_files(const SimulatedRound& next,
                                                     const std::filesystem::path& previous_dir,
                                                     const SimulatedRoundOptions& options, const std::string& created);

/// Reads a simulated round back from its directory (spec.toml, plan.json,
/// platform.sha256): the same runs in the same order. Throws Error/ConfigError.
SimulatedRound load_simulated_round(const std::filesystem::path& dir);

/// The compute efficiency of `code` as measured runs of it show: per rank, the operations
/// it was given (weight x W) over its compute seconds, as a fraction of its marked speed
/// (`flops_per_unit` flop/s per unit); the median over the ranks of every machine set's
/// runs at that set's largest size (long runs: the least overhead). Runs of another code,
/// simulated runs and ranks without a marked speed or compute time are left out.
struct ComputeCalibration {
  double efficiency = 1;
  std::size_t runs = 0;
  std::size_t ranks = 0;
};
ComputeCalibration measured_compute_efficiency(const std::vector<RunRecord>& records, const std::string& code,
                                               double flops_per_unit);

/// The record file of one run, relative to the round's directory.
std::string twin_record_file(const TwinRun& run);
/// The log file of one run (smpirun's and the kernel's output), relative to the directory.
std::string twin_log_file(const TwinRun& run);
/// The status line of one run simulated alone (`twin run --task`, an array task), as
/// status.tsv has it, relative to the directory.
std::string twin_run_status_file(const TwinRun& run);

struct TwinRunnerOptions {
  std::string smpirun = "smpirun";  // found in PATH unless a path
  std::string kernel_dir;           // where hetscale-twin-<kernel> is
  unsigned jobs = 1;                // simulations at once; 0: one per processor
  bool rerun = false;               // run again runs whose record exists
};

struct TwinRunOutcome {
  TwinRun run;
  bool skipped = false;      // its record was there already
  bool succeeded = false;
  int exit_status = 0;       // smpirun's exit status; -1 not started, 128+n killed by signal n
  double host_seconds = 0;   // how long the simulation took on this machine
  double simulated_seconds = 0;  // the run's wall_seconds in its record
};

/// The outcomes of a round whose runs were simulated one by one (the array tasks of
/// twin.sbatch), read from their status files: a run without one never ended (cancelled,
/// out of time) and counts as failed (exit -1). Writes status.tsv, as a run of all the
/// simulations does, and returns them in task order.
std::vector<TwinRunOutcome> gather_run_statuses(const std::filesystem::path& dir, const SimulatedRound& simulated);

/// `options` with smpirun resolved to a path, the directories made absolute and jobs 0
/// made one per processor; throws Error when smpirun or the round's twin kernel cannot
/// be run (checked again by run_simulated_round before any run starts).
TwinRunnerOptions resolve_twin_tools(const SimulatedRound& simulated, const TwinRunnerOptions& options);

/// The smpirun command line up to the program: the platform of the round's directory
/// `dir`, `hostfile` (relative to it), `ranks` ranks and the configuration every program
/// of the twin runs with (absolute paths).
std::vector<std::string> smpirun_command(const std::filesystem::path& dir, const std::filesystem::path& hostfile,
                                         std::uint32_t ranks, const TwinRunnerOptions& options);

/// The smpirun command line of one run in the round's directory `dir` (absolute paths).
std::vector<std::string> twin_run_command(const std::filesystem::path& dir, const SimulatedRound& simulated,
                                          const TwinRun& run, const TwinRunnerOptions& options);

/// Runs `tasks` (all runs when empty) of the round in `dir`, `options.jobs` at a time. Each
/// run's record goes to a temporary file that becomes records/run-<task>.jsonl only when
/// smpirun succeeds; a failed run leaves no record, its log, and a line in status.tsv (with
/// `tasks` given, in the run's own status file instead: twin_run_status_file).
/// `progress` is called after each run, in completion order. Throws Error when smpirun or
/// the kernel is missing (before any run starts).
std::vector<TwinRunOutcome> run_simulated_round(const std::filesystem::path& dir, const SimulatedRound& simulated,
                                                const std::vector<std::size_t>& tasks,
                                                const TwinRunnerOptions& options,
                                                const std::function<void(const TwinRunOutcome&, std::size_t done,
                                                                         std::size_t total)>& progress);

}  // namespace hetscale::twin
