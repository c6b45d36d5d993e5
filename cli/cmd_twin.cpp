// hetscale twin: the SimGrid twin of a site (docs/twin.md). `twin platform` writes the
// platform and host file that smpirun takes, made by the twin library from the site table; `twin
// study` plans a study on the twin and runs it (library hetscale::twin); `twin refine`
// plans and runs its next refinement round from the database; `twin run` runs the
// simulations of a written study (all, or one array task of twin.sbatch); `twin probe`
// probes the network of its machine sets.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/study/twin_rounds.hpp"
#include "hetscale/twin/conduct.hpp"
#include "hetscale/twin/simulated_round.hpp"
#include "hetscale/twin/twin_platform.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct AvailabilityArgs {
  std::vector<std::string> availability;  // MEAN:SD or GROUP=MEAN:SD
  double max_interval = 20;
  double horizon = 3600;
  std::uint64_t seed = 1;
};

struct PlatformArgs {
  std::string site;
  std::string output_dir;
  std::optional<double> flops_per_unit;
  AvailabilityArgs availability;
};

/// The profiles asked for, or none when no --availability is given.
std::optional<TwinAvailability> platform_availability(const AvailabilityArgs& args) {
  if (args.availability.empty()) return std::nullopt;
  if (!(args.max_interval > 0 && std::isfinite(args.max_interval)))
    throw UsageError(
        fmt::format("--max-interval must be positive and finite, not {}", args.max_interval));
  if (!(args.horizon > 0 && std::isfinite(args.horizon)))
    throw UsageError(fmt::format("--horizon must be positive and finite, not {}", args.horizon));
  TwinAvailability availability;
  availability.max_interval = args.max_interval;
  availability.horizon = args.horizon;
  availability.seed = args.seed;
  try {
    for (const std::string& value : args.availability)
      add_availability_option(availability, value);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  return availability;
}

void run_platform(const PlatformArgs& args, Context& context) {
  if (args.flops_per_unit && !(*args.flops_per_unit > 0 && std::isfinite(*args.flops_per_unit)))
    throw UsageError(
        fmt::format("--flops-per-unit must be positive and finite, not {}", *args.flops_per_unit));
  const std::optional<TwinAvailability> availability = platform_availability(args.availability);
  const SiteTable table = load_site_table(args.site);
  const TwinPlatform platform = make_twin_platform(table, {args.flops_per_unit, availability});
  const TwinPlatformFiles files = write_twin_platform(platform, args.output_dir);
  const Network& n = platform.network;
  if (platform.default_network)
    context.err << fmt::format(
        "hetscale twin platform: {} has no [network]; using the defaults: topology {}, "
        "latency {} us, bandwidth {} MBps per host link\n",
        args.site, to_string(n.topology), n.latency_us, n.bandwidth_MBps);
  if (args.flops_per_unit)
    context.err << fmt::format("hetscale twin platform: 1 {} = {} flop/s (--flops-per-unit)\n",
                               table.speed_unit, platform.flops_per_unit);
  context.out << fmt::format("platform: {} ({} hosts, {})\n", files.platform.string(),
                             platform.hosts, to_string(n.topology));
  if (availability)
    context.out << fmt::format(
        "availability: {} of {} hosts profiled (intervals uniform in [0, {}] s, repeating "
        "every {} s, seed {})\n",
        platform.profiled_hosts, platform.hosts, availability->max_interval, availability->horizon,
        availability->seed);
  context.out << fmt::format("hostfile: {}\n", files.hostfile.string());
  context.out << fmt::format("sha256: {}\n", platform.sha256);
}

struct RunnerArgs {
  std::string kernel_dir;
  std::string smpirun = "smpirun";
  unsigned jobs = 0;  // 0: one per processor
  bool rerun = false;
};

struct StudyArgs {
  std::string spec;
  std::string site;
  std::string output_dir;
  std::optional<std::size_t> nodes;
  std::vector<std::string> calibrate_from;  // measured records' files or directories
  AvailabilityArgs availability;
  twin::SimulatedRoundOptions options;  // bin_dir from the runner's --kernel-dir
  RunnerArgs runner;
  bool probe = false;
};

struct RefineArgs {
  std::string db;
  std::string from;
  std::string output_dir;
  bool sbatch = false;
  RunnerArgs runner;
};

struct RunArgs {
  std::string dir;
  std::vector<std::size_t> tasks;
  RunnerArgs runner;
};

struct ProbeArgs {
  std::string dir;
  std::vector<std::string> commbench;  // hetscale-twin-commbench's options, after --
  RunnerArgs runner;
};

twin::TwinRunnerOptions runner_options(const RunnerArgs& args) {
  twin::TwinRunnerOptions options;
  options.kernel_dir = kernel_dir_from(args.kernel_dir);
  options.smpirun = args.smpirun;
  options.jobs = args.jobs;  // 0: one per processor
  options.rerun = args.rerun;
  return options;
}

void run_study(const StudyArgs& args, Context& context) {
  const std::optional<double>& flops_per_unit = args.options.flops_per_unit;
  if (flops_per_unit && !(*flops_per_unit > 0 && std::isfinite(*flops_per_unit)))
    throw UsageError(fmt::format("--flops-per-unit must be positive and finite, not {}", *flops_per_unit));
  if (!args.calibrate_from.empty() && args.options.compute_efficiency)
    throw UsageError("give --compute-efficiency or --calibrate-from, not both");
  twin::TwinStudyRequest request;
  request.spec = args.spec;
  request.site = args.site;
  request.output_dir = args.output_dir;
  request.nodes = args.nodes;
  request.availability = platform_availability(args.availability);
  request.calibrate_from.assign(args.calibrate_from.begin(), args.calibrate_from.end());
  request.options = args.options;
  request.options.bin_dir = kernel_dir_from(args.runner.kernel_dir);
  request.runner = runner_options(args.runner);
  request.probe = args.probe;
  const twin::SimulatedRoundOutcome outcome = twin::conduct_twin_study(request, print_lines(context));
  twin::require_no_failed_runs(outcome);
  if (outcome.probes) twin::require_no_failed_probes(*outcome.probes, outcome.dir);
}

// The next refinement round of a twin study, from the runs of every round collected into
// the database (as jobgen --refine --db plans it), simulated on the same platform.
void run_refine(const RefineArgs& args, Context& context) {
  const twin::SimulatedRound previous = twin::load_simulated_round(args.from);
  const auto next = study::next_twin_round(args.db, previous, std::nullopt, print_lines(context));
  if (!next) return;
  twin::SimulatedRoundOptions options;
  options.sbatch = args.sbatch;
  options.bin_dir = kernel_dir_from(args.runner.kernel_dir);
  twin::require_no_failed_runs(twin::write_and_run_later_round(args.output_dir, *next, args.from, options,
                                                               runner_options(args.runner), print_lines(context)));
}

void run_run(const RunArgs& args, Context& context) {
  const twin::SimulatedRound simulated = twin::load_simulated_round(args.dir);
  twin::require_no_failed_runs(
      twin::simulate_twin_runs(args.dir, simulated, args.tasks, runner_options(args.runner), print_lines(context)),
      args.dir);
}

// The network probe of every machine set of a written twin study (twin_probe.hpp).
void run_probe(const ProbeArgs& args, Context& context) {
  const twin::SimulatedRound simulated = twin::load_simulated_round(args.dir);
  twin::require_no_failed_probes(
      twin::probe_twin_sets(args.dir, simulated, runner_options(args.runner), args.commbench, print_lines(context)),
      args.dir);
}

void add_availability_options(CLI::App* command, AvailabilityArgs& args) {
  command->add_option("--availability", args.availability,
                      "Speed profile from the shared-computer model: MEAN:SD for every host or "
                      "GROUP=MEAN:SD for a site-table group (repeatable; a group's overrides "
                      "every host's); availability uniform with that mean and sd, within [0, 1]");
  command->add_option("--max-interval", args.max_interval,
                      "Availability intervals are uniform in [0, this] seconds of simulated time")
      ->capture_default_str();
  command->add_option("--horizon", args.horizon,
                      "Length of the profiles in simulated seconds; they repeat after it")
      ->capture_default_str();
  command->add_option("--seed", args.seed, "Seed of the profiles (same seed, same platform bytes)")
      ->capture_default_str();
}

void add_runner_options(CLI::App* command, RunnerArgs& args) {
  command->add_option("--kernel-dir", args.kernel_dir,
                      "Directory of hetscale-twin-mm, -ge, -conv2d, -lu (default: the config file's kernel_dir, else "
                      "beside hetscale)");
  command->add_option("--smpirun", args.smpirun, "SimGrid's smpirun (default: found in PATH)");
  command->add_option("-j,--jobs", args.jobs, "Simulations at once (default: one per processor)")
      ->check(CLI::PositiveNumber);
  command->add_flag("--rerun", args.rerun, "Simulate again runs whose record is there already");
}

}  // namespace

void register_twin(CLI::App& app, Context& context) {
  auto* twin = app.add_subcommand("twin", "The SimGrid twin of the site");
  twin->require_subcommand(1);

  auto args = std::make_shared<PlatformArgs>();
  auto* platform = twin->add_subcommand(
      "platform",
      "Write a SimGrid platform (platform.xml), an smpirun host file (hostfile) and the "
      "platform's SHA-256 (platform.sha256) from a site table");
  platform->add_option("--site", args->site, "Site table (TOML; default: the config file's site)");
  platform->add_option("-o,--output", args->output_dir, "Directory to write into (created)")
      ->required();
  platform->add_option("--flops-per-unit", args->flops_per_unit,
                       "flop/s of one unit of the site's speed_unit; needed when that unit is "
                       "not an operation rate (e.g. speed-factor), replaces the unit's own "
                       "scale otherwise");
  add_availability_options(platform, args->availability);
  platform->callback([args, &context] {
    args->site = required_site_table(args->site);
    run_platform(*args, context);
  });

  auto study_args = std::make_shared<StudyArgs>();
  auto* study = twin->add_subcommand(
      "study",
      "Plan an experiment spec's study on the twin of a site and simulate every machine set x "
      "size x repetition (or, with --sbatch, write them as a Slurm array)");
  study->add_option("spec", study_args->spec, "Experiment spec (TOML)")->required();
  study->add_option("--site", study_args->site, "Site table (TOML; default: the config file's site)");
  study->add_option("-o,--output", study_args->output_dir, "Study directory to create (new or empty)")
      ->required();
  study->add_option("--experiment", study_args->options.experiment,
                    "Name of the twin experiment (default: the spec's name with -twin)");
  study->add_option("--flops-per-unit", study_args->options.flops_per_unit,
                    "flop/s of one unit of the site's speed_unit (as for twin platform)");
  study->add_option("--nodes", study_args->nodes,
                    "Simulate the site grown to this many nodes of the same mix (each group in "
                    "proportion; new nodes copy the group's first node)");
  study->add_option("--max-set-nodes", study_args->options.max_set_nodes,
                    "Largest machine set, in nodes, instead of the spec's [machine_sets] max (0: "
                    "as far as the site goes)");
  study->add_option("--repetitions", study_args->options.repetitions,
                    "Runs of every size instead of the spec's repetitions (the twin's charged runs "
                    "are deterministic)")
      ->check(CLI::Range(1u, 1000u));
  study->add_option("--psi-floor", study_args->options.psi_floor,
                    "The spec's [parameter] psi_floor for the twin (how far larger sets' sizes reach)");
  study->add_option("--compute-efficiency", study_args->options.compute_efficiency,
                    "The fraction of its hosts' marked speed the kernel attains, in (0, 2] (default 1)");
  study->add_option("--calibrate-from", study_args->calibrate_from,
                    "Measured run records (files or directories) of the same kernel: the compute "
                    "efficiency is their median rank's (instead of --compute-efficiency)");
  study->add_option("--start-spread", study_args->options.start_spread,
                    "Start each run at its own simulated moment in [0, SECONDS) (hetscale-twin-* --start-at), "
                    "so that runs meet the --availability profiles at different moments and repetitions "
                    "differ as on a shared cluster (default 0: every run starts at 0); later rounds keep it")
      ->check(CLI::Range(0.0, 1e6));
  study->add_flag("--sbatch", study_args->options.sbatch,
                  "Write twin.sbatch (one serial array task per run) instead of running the simulations");
  study->add_flag("--probe", study_args->probe,
                  "Also probe the network of every machine set (hetscale-twin-commbench) after the simulations; "
                  "probes/set<k>.commbench.json in the study directory");
  add_availability_options(study, study_args->availability);
  add_runner_options(study, study_args->runner);
  study->callback([study_args, &context] {
    study_args->site = required_site_table(study_args->site);
    run_study(*study_args, context);
  });

  auto refine_args = std::make_shared<RefineArgs>();
  auto* refine = twin->add_subcommand(
      "refine",
      "The next refinement round of a twin study (as jobgen --refine --db does for a real one), from the runs "
      "of every round collected into the database, simulated on the same platform");
  refine->add_option("--db", refine_args->db,
                     "libpq connection URI the study's rounds were collected into (default: HETSCALE_DB or the "
                     "config file)");
  refine->add_option("--from", refine_args->from, "The twin study directory of any earlier round")->required();
  refine->add_option("-o,--output", refine_args->output_dir, "Directory for the new round (new or empty)")
      ->required();
  refine->add_flag("--sbatch", refine_args->sbatch,
                   "Write twin.sbatch (one serial array task per run) instead of running the simulations");
  add_runner_options(refine, refine_args->runner);
  refine->callback([refine_args, &context] {
    refine_args->db = required_database(refine_args->db);
    run_refine(*refine_args, context);
  });

  auto run_args = std::make_shared<RunArgs>();
  auto* run = twin->add_subcommand("run", "Run the simulations of a twin study directory");
  run->add_option("dir", run_args->dir, "Twin study directory (written by twin study)")->required();
  run->add_option("--task", run_args->tasks, "Only these runs (0-based; the array task of twin.sbatch)");
  add_runner_options(run, run_args->runner);
  run->callback([run_args, &context] { run_run(*run_args, context); });

  auto probe_args = std::make_shared<ProbeArgs>();
  auto* probe = twin->add_subcommand(
      "probe",
      "Probe the network of every machine set of a twin study directory with hetscale-twin-commbench on its "
      "platform: probes/set<k>.commbench.json, collected with the study's records");
  probe->add_option("dir", probe_args->dir, "Twin study directory (written by twin study)")->required();
  probe->add_option("commbench", probe_args->commbench,
                    "Options of hetscale-twin-commbench, after -- (e.g. -- --budget-seconds 30)");
  add_runner_options(probe, probe_args->runner);
  probe->callback([probe_args, &context] { run_probe(*probe_args, context); });
}

}  // namespace hetscale::cli
