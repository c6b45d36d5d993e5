// The study's stages on Slurm: plan and submit (run_study), then a controller job's step
// through the table of named stages (collect, refine, equalize, re-run, compare, analyze,
// predict, twin, report; controller_stages); each stage is a short function around one
// call of the library that owns its work.
#include "hetscale/study/study_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <span>
#include <sstream>
#include <string_view>
#include <thread>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/file_lock.hpp"
#include "hetscale/base/number_text.hpp"
#include "hetscale/base/redaction.hpp"
#include "hetscale/base/one_line_text.hpp"
#include "hetscale/base/shell_text.hpp"
#include "hetscale/base/text_table.hpp"
#include "hetscale/base/utc_time.hpp"
#include "hetscale/collector/analysis.hpp"
#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/experiment_forecast.hpp"
#include "hetscale/collector/forecast_batch.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/session.hpp"
#include "hetscale/collector/stored_set_equalization.hpp"
#include "hetscale/collector/study_queries.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/jobgen/scripts.hpp"
#include "hetscale/jobgen/time_limit.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/site/study_token.hpp"
#include "hetscale/slurm/queries.hpp"
#include "hetscale/slurm/sacct.hpp"
#include "hetscale/jobgen/record_program.hpp"
#include "hetscale/study/round_check.hpp"
#include "hetscale/study/rounds.hpp"
#include "hetscale/study/study_step.hpp"
#include "hetscale/study/study_submission.hpp"
#include "hetscale/study/twin_rounds.hpp"
#include "hetscale/twin/conduct.hpp"
#include "report_file.hpp"

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

// The study's spec, with its [twin] nodes as `study run --twin-nodes` gave them.
StudySpec spec_of(const StudyState& state) {
  StudySpec spec = load_study_spec(state.spec);
  if (state.twin_nodes) spec.twin_nodes = *state.twin_nodes;
  return spec;
}

// A read or a short write: a few quick retries.
collector::Session quick_session(const std::string& db) {
  return collector::Session(db, {3, std::chrono::milliseconds(100), std::chrono::milliseconds(400)});
}


void check_database(const std::string& db) {
  quick_session(db).run([](pg::Connection& conn) { collector::require_current_schema(conn); });
}

// A round of one experiment, written into its directory.
struct WrittenRound {
  std::string experiment;
  jobgen::Round round;
  fs::path directory;
};

fs::path round_directory(const fs::path& dir, const std::string& experiment, std::uint32_t round) {
  return dir / experiment / fmt::format("round{}", round);
}

// The twin's refinement round `round` (its first round is <experiment>/twin).
fs::path twin_refined_directory(const fs::path& dir, const std::string& experiment, std::uint32_t round) {
  return dir / experiment / fmt::format("twin-round{}", round);
}

// What the study's library calls say goes to the controller's log, results and notes alike.
Say said_to(std::ostream& out) {
  return [&out](LineKind, const std::string& line) { out << line; };
}

// The round against Slurm's partition and node states before anything of it is written
// (study_round_check: Slurm must answer; an unavailable member refuses the round unless
// `replace_unavailable`, round 0 only), each swap said on `out`.
jobgen::Round checked_round(jobgen::Round round, bool replace_unavailable, std::ostream& out) {
  const RoundCheck check = study_round_check(round, replace_unavailable);
  return check_round_against_slurm(std::move(round), check, said_to(out)).round;
}

// Writes the round's files into `directory` (with the spec, as jobgen does; without the
// plan when the round is no round of the experiment's refinement) once every set script
// passes sbatch --test-only: a refusal throws before anything is written or submitted.
WrittenRound write_tested_round(const fs::path& directory, const jobgen::Round& round, const StudyState& state,
                                std::ostream& out, bool with_plan = true) {
  auto files = jobgen::round_files(round, {state.kernel_dir}, utc_time_now());
  files.push_back(jobgen::spec_copy("experiment.toml", round.spec.text));
  if (!with_plan) std::erase_if(files, [](const auto& f) { return f.path == "plan.json"; });
  test_set_scripts(round, files, study_round_check(round, false), said_to(out));
  fs::remove_all(directory);  // a round planned again after a failed step
  jobgen::write_round_directory(directory, files);  // with its records/ and logs/
  return {round.spec.name, round, directory};
}

void load_plans(const std::string& db, const std::vector<WrittenRound>& rounds, const fs::path& dir,
                std::ostream& out) {
  collector::CollectOptions plans;
  for (const auto& r : rounds) plans.inputs.push_back((r.directory / "plan.json").string());
  plans.rejects = dir / "rejects.jsonl";
  std::istringstream no_stdin;
  collector::collect(db, plans, no_stdin, out);
}

// Every array of the rounds, each after the one before (afterany): the experiments and
// their sets never share the machine's cores. The first waits on `after`. They become the
// state's arrays, each saved the moment sbatch answers, and each submission saved before
// sbatch runs (submit_study_job): a step that dies in between (its time limit, a node, an
// sbatch that gives no answer) leaves no job the state cannot find.
void submit_arrays(const std::vector<WrittenRound>& rounds, std::vector<std::uint64_t> after, StudyState& state,
                   const fs::path& dir, std::ostream& out) {
  state.arrays.clear();
  for (const auto& r : rounds) {
    std::string jobs;
    for (const auto& set : r.round.sets) {
      if (set.parameter_values.empty()) continue;
      const std::string script = jobgen::set_script_name(set);
      PendingSubmission job;
      job.kind = PendingSubmission::Kind::array;
      job.job_name = jobgen::array_job_name(r.round, set);
      job.experiment = r.experiment;
      job.set_index = static_cast<std::uint32_t>(set.set.index);
      job.directory = r.directory.string();
      const std::uint64_t id = submit_study_job(state, dir, std::move(job), script, after);  // saved at once
      jobs += fmt::format("{} {} {}\n", set.set.index, id, script);
      out << fmt::format("submitted {} round {} set {} as job {}\n", r.experiment, r.round.number, set.set.index, id);
      after = {id};
    }
    write_file_atomically(r.directory / "jobs.txt", jobs);  // as the generated submit.sh writes it
  }
}

// The controller script of a chain, in the study's directory.
std::string controller_script_file(Chain chain) {
  return chain == Chain::twin ? "twin-controller.sbatch" : "controller.sbatch";
}

// Submits a controller job of `chain` after `after` (`job` says whose: submit_study_job
// saves it before sbatch runs and records the job where it says).
std::uint64_t submit_controller_job(const StudySpec& spec, StudyState& state, const fs::path& dir, Chain chain,
                                    PendingSubmission job, const std::vector<std::uint64_t>& after,
                                    std::ostream& out) {
  const std::string script = controller_script_file(chain);
  write_file_atomically(dir / script, controller_script(spec, state, dir, chain), 0755);
  fs::create_directories(dir / "logs");
  job.job_name = controller_job_name(spec, chain);
  const std::uint64_t id = submit_study_job(state, dir, std::move(job), (dir / script).string(), after);
  out << fmt::format("submitted controller job {} ({})\n", id, controller_job_name(spec, chain));
  return id;
}

// The measured chain's controller, saved in the state the moment sbatch answers.
std::uint64_t submit_controller(const StudySpec& spec, StudyState& state, const fs::path& dir,
                                const std::vector<std::uint64_t>& after, std::ostream& out) {
  PendingSubmission job;
  job.kind = PendingSubmission::Kind::controller;
  return submit_controller_job(spec, state, dir, Chain::measured, std::move(job), after, out);
}

// The twin's controller of `array` (an experiment's round), waiting on it, saved in the
// state the moment sbatch answers.
std::uint64_t submit_twin_controller(const StudySpec& spec, StudyState& state, const fs::path& dir,
                                     const TwinArray& array, std::ostream& out) {
  PendingSubmission job;
  job.kind = PendingSubmission::Kind::twin_controller;
  job.experiment = array.experiment;
  job.round = array.round;
  const std::vector<std::uint64_t> after = {array.job_id};  // `array` may move as the state changes
  return submit_controller_job(spec, state, dir, Chain::twin, std::move(job), after, out);
}

// How long a step inside a Slurm job (a controller's) waits for the study's lock: the two
// chains' controllers may start at once, and each step holds it for seconds.
constexpr std::chrono::minutes controller_lock_wait{15};
// Between two tries: a holder on another host is judged by asking Slurm (lock_study).
constexpr std::chrono::seconds controller_lock_retry{1};

// The study's lock for a step (lock_study): inside a Slurm job (a controller of one of the
// two chains, whose steps may meet) it waits for the other chain's step to end; run by hand
// it is refused at once when held.
ExclusiveFileLock lock_study_for_step(const fs::path& dir, const Say& say) {
  if (!slurm::own_job_id()) return lock_study(dir, say);
  const auto deadline = std::chrono::steady_clock::now() + controller_lock_wait;
  while (true) {
    try {
      return lock_study(dir, say);
    } catch (const Error&) {
      if (std::chrono::steady_clock::now() >= deadline) throw;
    }
    std::this_thread::sleep_for(controller_lock_retry);
  }
}

// A step not run by the study's own controller job (one run by hand) while that controller
// is pending or running: refused, the study untouched. The controller takes the step itself
// when it starts; a step now would act before it, and both would submit the next round.
void refuse_beside_active_controller(const StudyState& state, Chain chain, const fs::path& dir) {
  if (runs_as_controller(state, chain, slurm::own_job_id())) return;
  std::vector<std::uint64_t> controllers;
  if (chain == Chain::twin && state.twin) controllers = state.twin->controllers();
  if (chain == Chain::measured && state.controller) controllers = {*state.controller};
  const std::vector<std::uint64_t> active = slurm::active_jobs(controllers);  // ended ones, however, block nothing
  if (active.empty()) return;
  throw Error(fmt::format("{2}controller job {0} of the study in {1} is pending or running and takes the next step "
                          "itself: wait for it (hetscale study status --dir {1}), or cancel it (scancel {0}) and "
                          "run the step again",
                          active.front(), dir.string(), chain == Chain::twin ? "twin " : ""));
}

// Collects every directory of the phase's arrays (idempotent: a run already stored is
// counted, not stored again), after checking that every array task completed.
void collect_arrays(const StudyState& state, const fs::path& dir, std::ostream& out) {
  if (state.arrays.empty()) return;
  std::string ids;
  for (const auto id : state.array_job_ids()) ids += fmt::format("{}{}", ids.empty() ? "" : ",", id);
  const slurm::AccountingQuery q = slurm::query_accounting({"--allusers", "--jobs", ids});
  if (q.status == slurm::AccountingQuery::Status::answered) {
    for (const auto& job : slurm::read_sacct_json(q.json, "sacct --json").jobs)
      if (job.state != "COMPLETED")
        throw Error(fmt::format("job {} ({}) ended {}: see its log under {}", job.job_id, job.job_name, job.state,
                                dir.string()));
  } else {
    out << fmt::format("note: sacct did not answer ({}); array tasks not checked, their records collected\n",
                       q.detail);
  }
  collector::CollectOptions options;
  for (const auto& a : state.arrays)
    if (std::find(options.inputs.begin(), options.inputs.end(), a.directory) == options.inputs.end())
      options.inputs.push_back(a.directory);
  options.rejects = dir / "rejects.jsonl";
  std::istringstream no_stdin;
  const auto report = collector::collect(state.db, options, no_stdin, out);
  out << fmt::format("collected {} record(s): {} run(s) added, {} already stored\n", report.records,
                     report.runs_added, report.runs_present);
  if (report.probes > 0)
    out << fmt::format("collected {} network probe(s): {} added\n", report.probes, report.probes_added);
}

// The next refinement round of every experiment whose sets still have sizes to run, planned
// from the database (as `hetscale jobgen --refine --db` plans it), checked and written.
std::vector<WrittenRound> refinement_rounds(const StudySpec& spec, const StudyState& state, const fs::path& dir,
                                            std::ostream& out) {
  std::vector<WrittenRound> rounds;
  for (const auto& e : spec.experiments) {
    const RefinementInput input = refinement_from_database(state.db, e.spec.name);
    out << "--- " << e.spec.name << '\n';
    jobgen::Round next = next_round(input.latest, input.runs, said_to(out));
    if (!jobgen::has_jobs(next)) continue;
    next.study_token = state.study_token;  // the study's own, whichever plan the database holds last
    const jobgen::Round checked = checked_round(next, false, out);
    rounds.push_back(write_tested_round(round_directory(dir, checked.spec.name, checked.number), checked, state, out));
  }
  return rounds;
}

// Equalizes the experiment's largest set from its repeated runs (equalize_stored_set, as
// hetscale equalize --db does: writes the partition the plugin reads and stores both
// partitions' simulations; its text in equalize.txt), then plans its re-run at that size:
// one array running the size `repetitions` times, each repetition once with marked and
// then with equalized weights. Nothing when no size of the largest set was run twice (said
// in the history).
std::vector<WrittenRound> equalized_rerun(const StudySpec& spec, StudyState& state, const fs::path& dir,
                                          std::ostream& out) {
  const std::string& name = spec.equalize.experiment;
  std::optional<collector::EqualizeChoice> choice;
  quick_session(state.db).run([&](pg::Connection& conn) { choice = collector::equalize_choice(conn, name); });
  if (!choice) {
    record(state, "equalize", fmt::format("not done: no size of {}'s largest set was run twice", name));
    return {};
  }
  const RefinementInput input = refinement_from_database(state.db, name);
  jobgen::Round rerun = input.latest;
  std::erase_if(rerun.sets, [&](const auto& s) { return static_cast<int>(s.set.index) != choice->set_index; });
  rerun.sets.front().parameter_values = {choice->parameter};
  rerun.spec.repetitions = spec.equalize.repetitions;
  rerun.number += 1;  // job names of their own
  rerun.study_token = state.study_token;
  // One array whose every repetition runs marked, then equalized: both weights' runs are
  // taken side by side, so the comparison does not mix their effect with the machine's drift.
  rerun.spec.slurm.weights = {"marked", "equalized"};
  jobgen::apply_measured_time_limits(rerun, input.runs);
  // Its nodes as Slurm sees them, before anything is equalized or stored.
  rerun = checked_round(std::move(rerun), false, out);
  collector::EqualizeSetOptions options;
  options.experiment = name;
  options.set_index = choice->set_index;
  options.parameter = choice->parameter;
  options.seconds = choice->mean_seconds;
  options.partitions = state.partitions;
  options.site = load_site_table(state.site).name;
  // Not retried as a whole: it writes the partition file before it stores its rows.
  collector::Session session = quick_session(state.db);
  const std::string text =
      collector::equalized_set_text(collector::equalize_stored_set(session.connection(), options));
  write_file_atomically(dir / "equalize.txt", text);
  out << text;
  record(state, "equalize", fmt::format("{} set {} at {} = {:g}: equalize.txt", name, choice->set_index,
                                        spec.experiment(name).spec.parameter.name, choice->parameter));
  return {write_tested_round(dir / name / "rerun", rerun, state, out, false)};
}

void print_rerun_comparison(const StudySpec& spec, const StudyState& state, const fs::path& dir, std::ostream& out) {
  const std::string& name = spec.equalize.experiment;
  std::optional<collector::EqualizeChoice> choice;
  std::vector<collector::TimeComparison> rows;
  quick_session(state.db).run([&](pg::Connection& conn) {
    choice = collector::equalize_choice(conn, name);
    if (choice)
      rows = collector::rerun_comparison(conn, name, choice->set_index, choice->parameter, state.array_job_ids());
  });
  std::string text =
      "measured (the re-run's steps, marked and equalized in turn) and simulated (hetscale.latest_partitions), "
      "seconds:\n";
  for (const auto& r : rows)
    text += fmt::format("  {:<22} {:>5} {:.4f}\n", r.what, r.runs ? fmt::format("{}", *r.runs) : std::string(),
                        r.seconds);
  write_file_atomically(dir / "rerun.txt", text);
  out << text;
}

double fastest_marked_speed(const std::string& site) {
  double fastest = 0;
  for (const auto& node : load_site_table(site).nodes) fastest = std::max(fastest, node.marked_speed);
  return fastest;
}

// One step of a controller: the study, its state and directory, the log it writes to, the
// re-run the equalize stage planned, and in the twin's chain the experiment whose twin
// array it takes.
struct Step {
  const StudySpec& spec;
  StudyState& state;
  const fs::path& dir;
  std::ostream& out;
  std::vector<WrittenRound> rerun;
  std::string twin_experiment;
};

// After a stage: the next one, or the end of the step (arrays submitted, with a controller
// that waits on them, or a chain that waits for the other).
enum class After { next_stage, end_of_step };

// Submits the rounds' arrays and a controller after them: the step ends.
After submit_with_controller(Step& step, const std::vector<WrittenRound>& rounds, std::string_view what) {
  submit_arrays(rounds, {}, step.state, step.dir, step.out);
  record(step.state, "submitted", fmt::format("{}: {} array(s)", what, step.state.arrays.size()));
  submit_controller(step.spec, step.state, step.dir, step.state.array_job_ids(), step.out);
  return After::end_of_step;
}

After collect_stage(Step& step) {
  collect_arrays(step.state, step.dir, step.out);
  record(step.state, "collected", fmt::format("{} round {}", to_string(step.state.phase), step.state.round));
  return After::next_stage;
}

// What a twin round's library calls say: into the controller's log and the round's
// progress.txt.
struct TwinProgress {
  std::ostream& out;
  std::string text;
  Say say() {
    return [this](LineKind, const std::string& line) {
      out << line << std::flush;
      text += line;
    };
  }
};

// Where the twin's array tasks run (the twin's partition, else each experiment's own), the
// hetscale they run, and every round's file twin.sbatch: the runs as serial array tasks.
twin::SimulatedRoundOptions twin_array_options(const Step& step) {
  twin::SimulatedRoundOptions options;
  options.sbatch = true;
  if (!step.spec.twin_partition.empty()) options.partition = step.spec.twin_partition;
  options.bin_dir = step.state.kernel_dir;
  return options;
}

// What the array tasks run (smpirun, the twin kernel), checked here before anything is
// submitted: every task would fail alike.
void check_twin_tools(const StudyState& state, const fs::path& round_dir) {
  twin::TwinRunnerOptions runner;
  runner.kernel_dir = state.kernel_dir;
  (void)twin::resolve_twin_tools(twin::load_simulated_round(round_dir), runner);
}

// Submits an experiment's round of the twin, written into `round_dir`, as an array (its
// twin.sbatch, in the twin's partition), and the twin's controller after it, each saved
// before sbatch runs and recorded the moment it answers (submit_study_job): that
// experiment's twin goes on at its own pace.
void submit_twin_array(Step& step, const std::string& experiment, std::uint32_t round, const fs::path& round_dir) {
  StudyState& state = step.state;
  PendingSubmission job;  // recorded, the twin's chain simulates: one refused or lost leaves it as it was
  job.kind = PendingSubmission::Kind::twin_array;
  job.job_name = jobgen::twin_array_job_name(twin::load_simulated_round(round_dir).round);
  job.experiment = experiment;
  job.round = round;
  job.directory = round_dir.string();
  const std::uint64_t id = submit_study_job(state, step.dir, std::move(job), twin::twin_sbatch_file, {});
  step.out << fmt::format("submitted {}'s twin round {} as job {}\n", experiment, round, id);
  submit_twin_controller(step.spec, state, step.dir, *state.twin->array_of(experiment), step.out);
}

// Begins the twin's chain: per experiment, the study on the twin that `hetscale twin study
// --sbatch` writes (hetscale::twin's conduct_twin_study), on the site table's network, the
// site grown to twice `twin_nodes` nodes of the same mix, sets up to `twin_nodes` or the
// experiment's own smaller `twin_nodes`, one repetition (the twin's runs are deterministic),
// the first round's sizes on the larger sets reaching as far as [twin] psi_floor allows,
// the kernel's compute efficiency calibrated from its round 0's records, submitted as an
// array with the twin's controller after it. Only the experiments whose twin has not begun
// (twin_experiments_to_begin): a begin that failed partway, taken again, begins the rest.
void begin_twin_chain(Step& step) {
  const StudySpec& spec = step.spec;
  StudyState& state = step.state;
  const std::vector<std::string> to_begin = twin_experiments_to_begin(state, spec);
  for (const auto& e : spec.experiments) {
    if (std::find(to_begin.begin(), to_begin.end(), e.spec.name) == to_begin.end()) continue;
    const fs::path twin_dir = step.dir / e.spec.name / "twin";
    fs::remove_all(twin_dir);
    for (std::uint32_t r = 1; r <= kMaxTwinRounds; ++r)
      fs::remove_all(twin_refined_directory(step.dir, e.spec.name, r));
    twin::TwinStudyRequest request;
    request.spec = e.path;
    request.site = state.site;
    request.output_dir = twin_dir;
    request.nodes = 2 * spec.twin_nodes;
    request.calibrate_from = {round_directory(step.dir, e.spec.name, 0) / "records"};
    request.options = twin_array_options(step);
    request.options.max_set_nodes = std::min(e.twin_nodes.value_or(spec.twin_nodes), spec.twin_nodes);
    request.options.repetitions = 1;
    request.options.psi_floor = spec.twin_psi_floor;
    if (spec.twin_first_round_nodes > 0) request.options.first_round_nodes = spec.twin_first_round_nodes;
    TwinProgress progress{step.out, {}};
    const twin::SimulatedRoundOutcome outcome = twin::conduct_twin_study(request, progress.say());
    write_file_atomically(twin_dir / "progress.txt", progress.text);
    record(state, "twin", fmt::format("{}: round 0: {} runs", e.spec.name, outcome.runs));
    if (outcome.runs == 0) {  // no set small enough for its first round
      state.twin->mark_begun(e.spec.name);
      continue;
    }
    check_twin_tools(state, twin_dir);
    submit_twin_array(step, e.spec.name, 0, twin_dir);  // its array recorded: begun
  }
  if (twin_chain_ends(state, spec) && state.twin->phase != TwinPhase::failed)
    state.twin->phase = TwinPhase::done;  // nothing to simulate
  record(state, "twin",
         fmt::format("{} experiment(s) on {} simulated nodes, {} the measured rounds, collected as <experiment>-twin",
                     to_begin.size(), 2 * spec.twin_nodes, to_string(spec.twin_start)));
}

After begin_twin_stage(Step& step) {
  begin_twin_chain(step);
  return After::next_stage;
}

After refine_stage(Step& step) {
  const auto rounds = refinement_rounds(step.spec, step.state, step.dir, step.out);
  if (rounds.empty()) {
    record(step.state, "refine", "every set reached its target or has no estimate: no refinement jobs");
    return After::next_stage;
  }
  load_plans(step.state.db, rounds, step.dir, step.out);
  step.state.round += 1;
  return submit_with_controller(step, rounds, fmt::format("refinement round {}", step.state.round));
}

After equalize_stage(Step& step) {
  step.rerun = equalized_rerun(step.spec, step.state, step.dir, step.out);
  return After::next_stage;
}

After rerun_stage(Step& step) {
  step.state.phase = Phase::rerun;
  return submit_with_controller(step, step.rerun, "re-run with marked and equalized weights in turn");
}

After compare_stage(Step& step) {
  print_rerun_comparison(step.spec, step.state, step.dir, step.out);
  record(step.state, "re-run", "rerun.txt");
  return After::next_stage;
}

// The psi table; from here on the measured chain ends in this step: no controller follows.
After analyze_stage(Step& step) {
  step.state.controller.reset();
  const StudyFigures figures = study_figures(step.spec, step.state.db);
  std::string psi = figures.psi_table;
  if (!figures.precision.empty()) psi += fmt::format("\n{}\n", fmt::join(figures.precision, "\n"));
  write_file_atomically(step.dir / "psi.txt", psi);
  step.out << psi;
  record(step.state, "psi", "psi.txt");
  for (const std::string& line : figures.precision) record(step.state, precision_stage, line);
  return After::next_stage;
}

// The forecast of every experiment from its runs (collector::forecast_experiment, stored as
// a batch), in `hetscale predict`'s table; a kernel whose sets did not all reach the target
// has too little to fit: said in the history, not faked.
After predict_stage(Step& step) {
  const StudySpec& spec = step.spec;
  StudyState& state = step.state;
  const double fastest = fastest_marked_speed(state.site);
  for (const auto& e : spec.experiments) {
    std::ostringstream text;
    std::string history = fmt::format("{}: forecasts in predict-{}.txt", e.spec.name, e.spec.name);
    try {
      ForecastOptions options;
      options.experiment = e.spec.name;
      options.target = e.spec.target_efficiency;
      options.doublings = spec.predict.doublings;
      for (const auto& w : spec.predict.what_if)
        options.what_ifs.push_back(
            parse_what_if(fmt::format("group:{:g}:{}", w.speed_of_fastest * fastest, w.nodes)));
      ExperimentForecast forecast;
      quick_session(state.db).run([&](pg::Connection& conn) { forecast = collector::forecast_experiment(conn, options); });
      print_forecast(text, forecast, TableFormat::table);
    } catch (const pg::DbError&) {
      throw;  // the database, not the experiment's data: the stage fails
    } catch (const Error& error) {
      text << "not done: " << error.what() << '\n';
      history = fmt::format("{}: not done: {}", e.spec.name, error.what());
    }
    write_file_atomically(step.dir / fmt::format("predict-{}.txt", e.spec.name), text.str());
    step.out << "--- predict " << e.spec.name << '\n' << text.str();
    record(state, "predict", history);
  }
  return After::next_stage;
}

// The measured rounds have ended: the twin's chain begins now when it starts after them;
// the report follows at once when the twin's chain is done, else the study waits for it
// (phase twin) and its last step writes the report.
After twin_stage(Step& step) {
  if (twin_begins(step.state, step.spec, true)) begin_twin_chain(step);
  if (after_measured(step.state) == AfterMeasured::report) return After::next_stage;
  step.state.phase = Phase::twin;
  record(step.state, "twin", "the measured rounds have ended; the twin's chain writes the report when it ends");
  return After::end_of_step;
}

// Collects the twin's round of the step's experiment: its runs' outcomes from the array
// tasks' status files (status.tsv, progress.txt, the counts in the history; a failed run
// fails the step, naming the logs), then its records (`<experiment>-twin`).
After twin_collect_stage(Step& step) {
  StudyState& state = step.state;
  const TwinArray& a = *state.twin->array_of(step.twin_experiment);
  const fs::path round_dir = a.directory;
  TwinProgress progress{step.out, {}};
  const twin::TwinRunCounts counts =
      twin::count_array_runs(round_dir, twin::load_simulated_round(round_dir), a.job_id, progress.say());
  write_file_atomically(round_dir / "progress.txt", progress.text);
  record(state, "twin", fmt::format("{}: round {}: {}", a.experiment, a.round, twin::to_string(counts)));
  twin::require_no_failed_runs(counts, round_dir);
  collector::CollectOptions twins;
  twins.inputs.push_back(round_dir.string());
  twins.rejects = step.dir / "rejects.jsonl";
  std::istringstream no_stdin;
  collector::collect(state.db, twins, no_stdin, step.out);
  record(state, "collected", fmt::format("{}'s twin round {}", a.experiment, a.round));
  return After::next_stage;
}

// A twin analyzed at its experiment's target as `hetscale analyze` does: its sets that
// reach it named in the history, so that the report sets its required sizes and psi beside
// the measured ones and, past the largest measured set, beside the forecasts.
void analyze_twin(Step& step, const StudyExperiment& e, const std::string& twin_experiment) {
  collector::Analysis a;
  quick_session(step.state.db).run([&](pg::Connection& conn) {
    a = collector::analyze(conn, twin_experiment, e.spec.target_efficiency, e.spec.refine.tolerance);
  });
  std::vector<std::string> reached;
  for (const auto& set : a.sets)
    if (set.work)
      reached.push_back(fmt::format("{} nodes at {} = {:.0f}", set.node_count, a.parameter, set.reading.parameter));
  record(step.state, "twin",
         fmt::format("{} at E_s {:g}: {} of {} sets reach it{}{}", twin_experiment, e.spec.target_efficiency,
                     reached.size(), a.sets.size(), reached.empty() ? "" : ": ", fmt::join(reached, ", ")));
}

// The step's twin refined as `hetscale twin refine` refines it (its next round planned
// from the twin's runs collected so far, with one repetition, written with twin.sbatch;
// a set its first round left out begins once the sets below it have found their targets,
// twin::begin_next_set), for up to its `twin_rounds` ([twin] rounds unless the experiment
// has its own); its next round is submitted with the twin's controller after it. A twin
// with nothing left to refine is analyzed and its array leaves the chain; with none left
// and none left to begin (twin_chain_ends), the twin's chain is done.
After twin_refine_stage(Step& step) {
  const StudySpec& spec = step.spec;
  StudyState& state = step.state;
  TwinChain& twin = *state.twin;
  const TwinArray array = *state.twin->array_of(step.twin_experiment);
  const StudyExperiment& e = spec.experiment(array.experiment);
  const twin::SimulatedRound previous = twin::load_simulated_round(array.directory);
  const std::string& twin_experiment = previous.round.spec.name;
  const std::uint32_t rounds = e.twin_rounds.value_or(spec.twin_rounds);
  const std::uint32_t next_round = array.round + 1;
  if (array.round < rounds) {
    TwinProgress progress{step.out, {}};
    // The twin's bound on rounds, not the measured rounds'.
    const auto planned = study::next_twin_round(state.db, previous, rounds, progress.say());
    if (planned) {
      const fs::path round_dir = twin_refined_directory(step.dir, e.spec.name, next_round);
      fs::remove_all(round_dir);  // a round planned again after a failed step
      (void)twin::write_and_run_later_round(round_dir, *planned, array.directory, twin_array_options(step), {},
                                            progress.say());
      write_file_atomically(round_dir / "progress.txt", progress.text);
      record(state, "twin",
             fmt::format("{}: refinement round {}: {} runs", e.spec.name, next_round, planned->runs.size()));
      submit_twin_array(step, e.spec.name, next_round, round_dir);
      return After::end_of_step;
    }
    record(state, "twin", fmt::format("{}: refinement round {}: nothing to refine", e.spec.name, next_round));
  }
  analyze_twin(step, e, twin_experiment);
  std::erase_if(twin.arrays, [&](const TwinArray& a) { return a.experiment == array.experiment; });
  save_state(step.dir, state);
  if (!twin_chain_ends(state, spec)) return After::end_of_step;  // the others go on, or are yet to begin
  twin.phase = TwinPhase::done;
  record(state, "twin", "the twin's chain is done");
  return After::next_stage;
}

// The report, and the study is done.
After report_stage(Step& step) {
  report::ReportOptions options;  // every experiment with data, each with its <experiment>-twin
  options.db = step.state.db;
  options.output_dir = step.dir / "report";
  options.title = step.spec.title;
  const report::ReportResult written = report::write_report(options);
  step.out << fmt::format("report written to {}\n", written.file.string());
  record(step.state, "report", "report/index.html");
  step.state.phase = Phase::done;
  step.state.arrays.clear();
  record(step.state, "done", "study done");
  return After::next_stage;
}

// A stage of a controller's step: its name (docs/architecture.md), whether it runs in this
// step, how a failure names it (its name when `doing` is null) and what it does.
struct NamedStage {
  std::string_view name;
  bool (*runs)(const Step&);
  std::string (*doing)(const StudyState&);
  After (*run)(Step&);
};

// The measured chain's stages, in order; the first stage that submits jobs ends the step,
// and so does a twin stage that leaves the study to the twin's chain.
constexpr NamedStage controller_stages[] = {
    {"collect", [](const Step&) { return true; },
     [](const StudyState& s) { return fmt::format("collect ({} round {})", to_string(s.phase), s.round); },
     collect_stage},
    {"twin beside", [](const Step& s) { return twin_begins(s.state, s.spec, false); }, nullptr,
     begin_twin_stage},
    {"refine",
     [](const Step& s) {
       return s.state.phase == Phase::measure &&
              after_round(s.state.round, s.spec.max_rounds, s.spec.equalize.enabled) == AfterRound::refine;
     },
     [](const StudyState& s) { return fmt::format("refine round {}", s.round + 1); }, refine_stage},
    {"equalize", [](const Step& s) { return s.state.phase == Phase::measure && s.spec.equalize.enabled; }, nullptr,
     equalize_stage},
    {"re-run", [](const Step& s) { return s.state.phase == Phase::measure && !s.rerun.empty(); }, nullptr,
     rerun_stage},
    {"compare", [](const Step& s) { return s.state.phase == Phase::rerun; },
     [](const StudyState&) { return std::string("re-run comparison"); }, compare_stage},
    {"analyze", [](const Step&) { return true; }, [](const StudyState&) { return std::string("psi table"); },
     analyze_stage},
    {"predict", [](const Step&) { return true; }, nullptr, predict_stage},
    {"twin", [](const Step& s) { return s.state.twin.has_value(); }, nullptr, twin_stage},
    {"report", [](const Step&) { return true; }, nullptr, report_stage},
};

// The twin's chain's stages, in order, for one experiment's array: a step collects its
// round, then submits its next round (the step ends) or ends that twin; the last twin to
// end writes the report when the measured rounds have ended too.
constexpr NamedStage twin_controller_stages[] = {
    {"twin collect", [](const Step&) { return true; }, nullptr, twin_collect_stage},
    {"twin refine", [](const Step&) { return true; }, nullptr, twin_refine_stage},
    {"report", [](const Step& s) { return s.state.twin->phase == TwinPhase::done && twin_writes_report(s.state); },
     nullptr, report_stage},
};

std::span<const NamedStage> stages_of(Chain chain) {
  if (chain == Chain::twin) return twin_controller_stages;
  return controller_stages;
}

// A failing step marks its chain failed, its stage named; the measured chain keeps the
// phase whose step failed, which `study resume` takes again.
void mark_failed(StudyState& state, Chain chain, const std::string& failure) {
  if (chain == Chain::twin) {
    state.twin->phase = TwinPhase::failed;
    state.twin->failure = failure;
    record(state, "failed", "twin: " + failure);
    return;
  }
  state.failed_phase = state.phase;
  state.phase = Phase::failed;
  state.failure = failure;
  record(state, "failed", failure);
}

// One step of `chain`; in the twin's chain, of each experiment in `twin_experiments` in
// turn (the arrays the step takes, whose arrays have ended).
StudyState step(const fs::path& dir, StudyState state, Chain chain, std::ostream& out,
                const std::vector<std::string>& twin_experiments = {}) {
  const std::span<const NamedStage> stages = stages_of(chain);
  // A spec that cannot be read fails the step in its first stage.
  std::string doing = stages.front().doing ? stages.front().doing(state) : std::string(stages.front().name);
  if (!twin_experiments.empty()) doing += fmt::format(" ({})", twin_experiments.front());
  try {
    const StudySpec spec = spec_of(state);
    const auto run_stages = [&](Step& step) {
      for (const NamedStage& stage : stages) {
        if (!stage.runs(step)) continue;
        doing = stage.doing ? stage.doing(state) : std::string(stage.name);
        if (!step.twin_experiment.empty()) doing += fmt::format(" ({})", step.twin_experiment);
        if (stage.run(step) == After::end_of_step) return;
      }
    };
    if (chain == Chain::measured) {
      Step step{spec, state, dir, out, {}, {}};
      run_stages(step);
    }
    for (const std::string& experiment : twin_experiments) {
      Step step{spec, state, dir, out, {}, experiment};
      run_stages(step);
    }
    save_state(dir, state);
    return state;
  } catch (const std::exception& e) {
    const std::string failure = fmt::format("{}: {}", doing, e.what());
    mark_failed(state, chain, failure);
    save_state(dir, state);
    throw Error(fmt::format("study failed in stage {}{}", chain == Chain::twin ? "twin: " : "", failure));
  }
}

// The twin's arrays a step takes (twin_arrays_to_step), and a controller for each of them
// whose array still runs: the experiments whose arrays have ended.
std::vector<std::string> twin_experiments_to_step(StudyState& state, const fs::path& dir, std::ostream& out) {
  const TwinChain& twin = *state.twin;
  const std::vector<std::uint64_t> active_controllers = slurm::active_jobs(twin.controllers());
  const std::vector<std::uint64_t> active_arrays = slurm::active_jobs(twin.array_job_ids());
  std::vector<std::string> experiments;
  for (const std::size_t i : twin_arrays_to_step(twin, slurm::own_job_id(), active_controllers)) {
    TwinArray& a = state.twin->arrays[i];
    if (std::find(active_arrays.begin(), active_arrays.end(), a.job_id) == active_arrays.end()) {
      experiments.push_back(a.experiment);
    } else {  // started by hand before its array ended
      submit_twin_controller(spec_of(state), state, dir, a, out);
    }
  }
  return experiments;
}

// Resumes the measured chain (resume_action): a new controller while its arrays run, its
// step now when everything has ended. A failed chain is taken again as it failed.
StudyState resume_measured(const fs::path& dir, StudyState state, std::ostream& out) {
  const bool controller_active = state.controller && !slurm::active_jobs({*state.controller}).empty();
  const auto active_arrays = slurm::active_jobs(state.array_job_ids());
  const ResumeAction action = resume_action(state, controller_active, !active_arrays.empty());
  const bool takes_step = action == ResumeAction::wait_for_arrays || action == ResumeAction::step_now;
  if (takes_step && state.phase == Phase::failed) {  // the failed step taken again
    record(state, "resume", fmt::format("after the failure in {}", state.failure));
    state.phase = *state.failed_phase;
    state.failed_phase.reset();
    state.failure.clear();
  }
  switch (action) {
    case ResumeAction::finished:
      out << fmt::format("the measured rounds: nothing to resume (stage {})\n", to_string(state.phase));
      return state;
    case ResumeAction::controller_active:
      out << fmt::format("the measured rounds: controller job {} is pending or running: nothing to do\n",
                         *state.controller);
      return state;
    case ResumeAction::wait_for_arrays:
      record(state, "resume", "arrays still active: a new controller waits on them");
      submit_controller(spec_of(state), state, dir, active_arrays, out);
      return state;
    case ResumeAction::step_now:
      record(state, "resume", "every job ended: the step runs now");
      return step(dir, std::move(state), Chain::measured, out);
  }
  return state;
}

// Resumes the twin's chain, array by array (twin_resume_action): nothing while its
// controller is pending or running, a new controller while it runs, else its step now. A
// failed chain is taken again.
StudyState resume_twin(const fs::path& dir, StudyState state, std::ostream& out) {
  TwinChain& twin = *state.twin;
  if (twin.phase == TwinPhase::failed) {
    record(state, "resume", fmt::format("the twin's chain, after the failure in {}", twin.failure));
    twin.phase = TwinPhase::simulate;
    twin.failure.clear();
  }
  const std::vector<std::uint64_t> active_controllers = slurm::active_jobs(twin.controllers());
  const std::vector<std::uint64_t> active_arrays = slurm::active_jobs(twin.array_job_ids());
  const auto active = [](const std::vector<std::uint64_t>& ids, std::optional<std::uint64_t> id) {
    return id && std::find(ids.begin(), ids.end(), *id) != ids.end();
  };
  std::vector<std::string> now;
  const StudySpec spec = spec_of(state);
  for (TwinArray& a : twin.arrays) {
    switch (twin_resume_action(twin, active(active_controllers, a.controller), active(active_arrays, a.job_id))) {
      case ResumeAction::finished:
        break;
      case ResumeAction::controller_active:
        out << fmt::format("the twin of {}: controller job {} is pending or running: nothing to do\n", a.experiment,
                           *a.controller);
        break;
      case ResumeAction::wait_for_arrays:
        record(state, "resume", fmt::format("{}'s twin array still active: a new controller waits on it", a.experiment));
        submit_twin_controller(spec, state, dir, a, out);
        break;
      case ResumeAction::step_now:
        record(state, "resume", fmt::format("{}'s twin array ended: its step runs now", a.experiment));
        now.push_back(a.experiment);
        break;
    }
  }
  if (twin.phase == TwinPhase::waiting || twin.phase == TwinPhase::done) {
    out << fmt::format("the twin's chain: nothing to resume (stage {})\n", to_string(twin.phase));
    return state;
  }
  save_state(dir, state);
  if (now.empty()) return state;
  return step(dir, std::move(state), Chain::twin, out, now);
}

}  // namespace

std::string controller_job_name(const StudySpec& spec, Chain chain) {
  return chain == Chain::twin ? spec.name + "-twin-controller" : spec.name + "-controller";
}

std::string controller_script(const StudySpec& spec, const StudyState& state, const fs::path& dir, Chain chain) {
  const bool twin = chain == Chain::twin;
  std::string out = "#!/bin/sh\n";
  out += fmt::format("# Written by hetscale study: the {}controller of study '{}' (docs/study.md).\n",
                     twin ? "twin's " : "", one_line_text(spec.name));
  out += fmt::format("#SBATCH --job-name={}\n", controller_job_name(spec, chain));
  // The twin's controller runs where its arrays ran (they have ended when it starts).
  if (twin && !spec.twin_partition.empty()) out += fmt::format("#SBATCH --partition={}\n", spec.twin_partition);
  out += fmt::format("#SBATCH --ntasks=1\n#SBATCH --nodes=1\n#SBATCH --time={}\n", spec.controller_time_limit);
  out += fmt::format("#SBATCH --output=logs/{}controller-%j.out\n", twin ? "twin-" : "");
  // Paths are the user's: any byte, a quote or a line break included, stays one word.
  out += fmt::format("exec {} study step --dir {}{}\n", shell_quote(state.hetscale),
                     shell_quote(fs::absolute(dir).string()), twin ? " --chain twin" : "");
  return out;
}

std::vector<std::string_view> controller_stage_names(Chain chain) {
  std::vector<std::string_view> names;
  for (const NamedStage& stage : stages_of(chain)) names.push_back(stage.name);
  return names;
}

std::string psi_table_text(const std::vector<PsiTableExperiment>& experiments) {
  Table table;
  table.columns = {"code", "experiment", "target", "set->set", "C->C'",
                   fmt::format("psi [{:g}% interval]", 100 * measured_interval_level)};
  for (const PsiTableExperiment& e : experiments) {
    if (e.psi.empty()) {
      table.rows.push_back({e.code, e.experiment, e.target, Cell(), Cell(), std::string("(no pair of sets)")});
      continue;
    }
    for (const collector::PsiPair& p : e.psi)
      table.rows.push_back({e.code, e.experiment, e.target, fmt::format("{}->{}", p.set_index, p.next_set_index),
                            fmt::format("{:.0f}->{:.0f}", p.marked_speed, p.next_marked_speed),
                            p.psi ? interval_text(*p.psi, p.psi_low, p.psi_high, p.psi_interval_reason)
                                  : std::string("n/a")});
  }
  std::ostringstream out;
  print_table(out, table, TableFormat::table);
  return out.str();
}

StudyFigures study_figures(const StudySpec& spec, const std::string& db) {
  StudyFigures out;
  std::vector<PsiTableExperiment> experiments;
  for (const auto& e : spec.experiments) {
    collector::Analysis a;
    quick_session(db).run([&](pg::Connection& conn) {
      a = collector::analyze(conn, e.spec.name, e.spec.target_efficiency, e.spec.refine.tolerance);
    });
    experiments.push_back({e.spec.code.kernel ? std::string(jobgen::to_string(*e.spec.code.kernel)) : "command",
                           e.spec.name, e.spec.target_efficiency, a.psi});
    if (!e.spec.refine.precision) continue;
    for (const auto& set : a.sets) {
      const PrecisionCheck check =
          check_precision(*e.spec.refine.precision, set.reading.has_parameter() ? set.reading.parameter : 0,
                          set.reading.has_parameter() ? set.parameter_interval : ReportedInterval{}, set.runs);
      out.precision.push_back(fmt::format("{} set {}: {} ({}; budget {} runs per set)", e.spec.name, set.set_index,
                                          check.status(), check.text, e.spec.refine.max_runs_per_set));
    }
  }
  out.psi_table = psi_table_text(experiments);
  return out;
}

StudyState run_study(const RunOptions& options, std::ostream& out) {
  const fs::path dir = fs::absolute(options.dir);
  fs::create_directories(dir);
  // Held while `study run` starts the study, and for a whole step (or resume) of it: a
  // second one, a controller beside a step run by hand or a step while the study is still
  // being submitted, is refused instead of planning and submitting the same round.
  const ExclusiveFileLock lock = lock_study(dir, said_to(out));  // a step started meanwhile is refused
  if (fs::exists(state_path(dir)))
    throw Error(fmt::format("{} already holds a study: hetscale study resume --dir {}", dir.string(), dir.string()));
  // Everything checked before anything is submitted.
  const StudySpec spec = load_study_spec(options.spec);
  // A command that writes its records itself but shows no sign of it: said, not refused.
  for (const auto& e : spec.experiments)
    if (const auto warning = jobgen::record_program_warning(
            e.spec, {round_directory(dir, e.spec.name, 0), jobgen::environment_variable}))
      out << *warning << '\n';
  const SiteTable site = load_site_table(options.site);
  if (spec.equalize.enabled && options.partitions.empty())
    throw Error(fmt::format("{}: [equalize] writes the equalized partition where the SPANK plugin reads it: give "
                            "--partitions DIR (the plugin's partitions=)", spec.source.string()));
  check_database(options.db);
  if (remove_connection_passwords(options.db) != options.db)
    out << "note: the password of --db is not stored: the controller jobs connect with PGPASSWORD, PGPASSFILE or "
           "~/.pgpass\n";
  StudyState state;
  state.spec = fs::absolute(options.spec).string();
  state.site = fs::absolute(options.site).string();
  state.db = options.db;
  state.kernel_dir = fs::absolute(options.kernel_dir).string();
  state.partitions = options.partitions.empty() ? std::string() : fs::absolute(options.partitions).string();
  state.hetscale = fs::absolute(options.hetscale).string();
  state.twin_nodes = options.twin_nodes;
  state.study_token = new_study_token();
  if (options.twin_nodes.value_or(spec.twin_nodes) > 0) state.twin = TwinChain{};  // it begins later
  std::vector<jobgen::Round> planned;  // every experiment's round 0 checked before any is written
  for (const auto& e : spec.experiments)
    planned.push_back(
        checked_round(jobgen::plan_round(e.spec, site, state.study_token), spec.replace_unavailable, out));
  std::vector<WrittenRound> rounds;
  for (const auto& p : planned)
    rounds.push_back(write_tested_round(round_directory(dir, p.spec.name, 0), p, state, out));
  record(state, "plan", fmt::format("round 0 of {} experiment(s) planned and tested", rounds.size()));
  load_plans(state.db, rounds, dir, out);
  submit_arrays(rounds, {}, state, dir, out);  // each saved at once: a failure from here on is resumable
  record(state, "submitted", fmt::format("round 0: {} array(s)", state.arrays.size()));
  save_state(dir, state);
  submit_controller(spec, state, dir, state.array_job_ids(), out);
  return state;
}

StudyState step_study(const fs::path& dir, Chain chain, std::ostream& out) {
  const ExclusiveFileLock lock = lock_study_for_step(dir, said_to(out));
  StudyState state = load_state(dir);
  // A job sbatch did not confirm, of either chain: found and recorded in its chain, or dropped.
  settle_pending_submission(state, dir, said_to(out));
  if (!has_step(state, chain)) {
    if (chain == Chain::twin)
      out << fmt::format("twin's chain {}: nothing to do\n",
                         state.twin ? to_string(state.twin->phase) : std::string_view("absent"));
    else
      out << fmt::format("study {}: nothing to do\n", to_string(state.phase));
    return state;
  }
  refuse_beside_active_controller(state, chain, dir);
  if (chain == Chain::twin) {
    const std::vector<std::string> experiments = twin_experiments_to_step(state, dir, out);
    if (experiments.empty()) return state;
    return step(dir, std::move(state), Chain::twin, out, experiments);
  }
  const auto active = slurm::active_jobs(state.array_job_ids());
  if (!active.empty()) {  // started by hand before its arrays ended
    submit_controller(spec_of(state), state, dir, active, out);
    return state;
  }
  return step(dir, std::move(state), Chain::measured, out);
}

StudyState resume_study(const fs::path& dir, std::ostream& out) {
  const ExclusiveFileLock lock = lock_study(dir, said_to(out));
  StudyState state = load_state(dir);
  // Before anything is submitted again, in either chain.
  settle_pending_submission(state, dir, said_to(out));
  // The twin's chain first: its resume submits controllers or takes short steps, and the
  // measured chain's step may end the study (its report).
  std::optional<Error> failed;
  if (state.twin) {
    try {
      state = resume_twin(dir, std::move(state), out);
    } catch (const Error& e) {
      failed = e;
      state = load_state(dir);
    }
  }
  if (failed && state.pending) {  // the twin's step left a submission whose outcome is not known
    out << "the measured rounds: not resumed beside a submission whose outcome is not known: hetscale study "
           "resume again looks it up first\n";
    throw *failed;
  }
  state = resume_measured(dir, std::move(state), out);
  if (failed) throw *failed;
  return state;
}

}  // namespace hetscale::study
