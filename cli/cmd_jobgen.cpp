// hetscale jobgen: sbatch array scripts, a submit script and the plan file of a
// scalability study (logic in jobgen/, docs/experiment-spec.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/session.hpp"
#include "hetscale/collector/stored_experiment.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/refine.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/study/round_check.hpp"
#include "hetscale/study/round_files.hpp"
#include "hetscale/study/slurm_query.hpp"
#include "hetscale/study/stored_rounds.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

using study::StoredRounds;
using study::ExperimentProgress;
using study::latest_round;
using study::measured_runs;
using study::next_round;
using study::read_stored_rounds;
using study::experiment_progress;
using study::submit_round;

namespace fs = std::filesystem;

struct JobgenArgs {
  std::string site;
  std::string experiment;  // a spec file, or with --refine the experiment's name
  std::string output;
  std::string kernel_dir;
  bool refine = false;
  bool resubmit = false;
  bool no_submit = false;
  std::string db;
  std::vector<std::string> from;  // study directories whose records --refine reads
  std::string partition;          // overrides the spec's [slurm] partition
  bool replace_unavailable = false;  // swap members Slurm reports unavailable
};

std::string summary(const jobgen::Round& study, const std::string& dir) {
  std::string sizes;
  std::size_t tasks = 0;
  std::size_t sets = 0;
  for (const auto& s : study.sets) {
    if (s.parameter_values.empty()) continue;
    ++sets;
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(s.members.size());
    tasks += s.parameter_values.size();
  }
  return fmt::format("wrote {}: {} machine set{} ({} nodes), {} array tasks x {} repetition{}; submit with {}/submit.sh\n",
                     dir, sets, sets == 1 ? "" : "s", sizes, tasks,
                     study.spec.repetitions, study.spec.repetitions == 1 ? "" : "s", dir);
}

// The spec's partition, or --partition's (pasted into #SBATCH lines like the spec's).
std::string partition_named_at(const JobgenArgs& args, jobgen::ExperimentSpec& spec) {
  if (args.partition.empty()) return spec.slurm.partition_where.str();
  const bool safe = std::all_of(args.partition.begin(), args.partition.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || std::string_view("._-").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (!safe)
    throw UsageError(fmt::format("--partition may hold only letters, digits and ._- (got '{}')", args.partition));
  spec.slurm.partition = args.partition;
  return "--partition";
}

// How jobgen checks a round against Slurm: a new study may swap unavailable members
// (--replace-unavailable), a later round runs on the sets measured before.
study::RoundCheck round_check(const jobgen::Round& round, const std::string& named_at, bool replace) {
  study::RoundCheck check;
  check.partition_named_at = named_at;
  check.partition_by_option = named_at == "--partition";
  check.replace_unavailable = replace;
  check.refusal = round.number == 0 ? "nothing written (--replace-unavailable swaps them for available nodes of their "
                                     "groups)"
                                   : "nothing written (resume the nodes: a round runs on the sets measured before)";
  check.note_prefix = "hetscale jobgen: note: ";
  return check;
}

// The sets against Slurm (the partition, the members' states, the replacements). Where
// Slurm cannot be asked (no scontrol, no slurm.conf, controller down) nothing is checked
// or tested, and one note says so.
study::CheckedRound check_against_slurm(jobgen::Round round, const study::RoundCheck& check, Context& context) {
  try {
    auto checked = study::check_round_against_slurm(std::move(round), check, context.out, context.err);
    if (!checked.unreachable.empty()) {
      const std::string& partition = checked.round.spec.slurm.partition;
      context.err << fmt::format("hetscale jobgen: note: Slurm not reachable ({}); machine sets not checked against "
                                 "its node states{}, scripts not tested with sbatch --test-only\n",
                                 checked.unreachable,
                                 partition.empty() ? "" : fmt::format(" and partition '{}'", partition));
    }
    return checked;
  } catch (const study::OptionValueError& e) {
    throw UsageError(e.what());
  }
}

void generate(const JobgenArgs& args, Context& context) {
  auto spec = jobgen::load_experiment_spec(args.experiment);
  const std::string named_at = partition_named_at(args, spec);
  const auto site = load_site_table(args.site);
  const jobgen::Round planned = jobgen::plan_round(spec, site);
  const study::RoundCheck check = round_check(planned, named_at, args.replace_unavailable);
  const auto checked = check_against_slurm(planned, check, context);
  const jobgen::Round& study = checked.round;
  // Copies of the inputs make the study directory self-contained (and refinable).
  const auto files = study::round_files(study, kernel_dir_from(args.kernel_dir),
                                        {{"experiment.toml", read_text_file(args.experiment, "experiment spec"), false},
                                         {"site.toml", read_text_file(args.site, "site table"), false}});
  if (checked.unreachable.empty()) {
    std::string unreachable;
    try {
      unreachable = study::test_set_scripts(study, files, check);
    } catch (const study::OptionValueError& e) {
      throw UsageError(e.what());
    }
    if (!unreachable.empty())
      context.err << fmt::format("hetscale jobgen: note: Slurm not reachable ({}); scripts not tested with "
                                 "sbatch --test-only\n", unreachable);
  }
  jobgen::write_round_directory(args.output, files);
  context.out << summary(study, args.output);
}

// The first study of --from, planned again from the spec and site copies it holds; its
// round is that of the last directory (the runs of every round are read).
jobgen::Round first_study(const JobgenArgs& args) {
  const fs::path first = args.from.front();
  const auto spec = jobgen::load_experiment_spec(first / "experiment.toml");
  if (spec.name != args.experiment)
    throw UsageError(fmt::format("{} holds experiment '{}', not '{}'", first.string(), spec.name, args.experiment));
  auto study = jobgen::plan_round(spec, load_site_table(first / "site.toml"));
  study.number = static_cast<std::uint32_t>(args.from.size() - 1);
  return study;
}

std::vector<jobgen::MeasuredRun> runs_from_records(const JobgenArgs& args, const jobgen::Round& study) {
  std::vector<jobgen::MeasuredRun> runs;
  for (const fs::path dir : args.from) {
    auto more = jobgen::read_record_runs(dir / "records", study);
    runs.insert(runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return runs;
}

// The runs collected into the database, for the study of --from.
std::vector<jobgen::MeasuredRun> runs_from_database(const JobgenArgs& args, const jobgen::Round& study) {
  const StoredRounds stored = read_stored_rounds(args.db, args.experiment);
  if (!stored.experiment)
    throw Error(fmt::format("experiment '{}' is not in the database: collect the study first (hetscale collect "
                            "--db URI {})", study.spec.name, args.from.front()));
  return measured_runs(stored, study, args.from.front());
}

// Writes a round's files with `inputs` into the output directory; false, and `nothing`
// said, when no set of the round has sizes to run.
bool write_round(const JobgenArgs& args, const jobgen::Round& round, const std::vector<jobgen::GeneratedFile>& inputs,
                 std::string_view nothing, Context& context) {
  if (!jobgen::has_jobs(round)) {
    context.out << nothing << '\n';
    return false;
  }
  jobgen::write_round_directory(args.output, study::round_files(round, kernel_dir_from(args.kernel_dir), inputs));
  context.out << summary(round, args.output);
  return true;
}

// A later round against Slurm: on the sets measured before, at the spec's partition.
jobgen::Round checked_later_round(jobgen::Round round, Context& context) {
  const auto check = round_check(round, round.spec.slurm.partition_where.str(), false);
  return check_against_slurm(std::move(round), check, context).round;
}

// The next round from the runs of the first study and the rounds after it.
void write_next_round(const JobgenArgs& args, const jobgen::Round& study,
                      const std::vector<jobgen::MeasuredRun>& runs, const std::vector<jobgen::GeneratedFile>& inputs,
                      Context& context) {
  const auto next = checked_later_round(next_round(study, runs, context.out), context);
  write_round(args, next, inputs, "nothing to refine: no files written", context);
}

// --from: the study directories give the spec, the site and, by their number, the round;
// the runs come from their records or, with --db, from the database.
void refine_from_directories(const JobgenArgs& args, Context& context) {
  const jobgen::Round study = first_study(args);
  const auto runs = args.db.empty() ? runs_from_records(args, study) : runs_from_database(args, study);
  const fs::path first = args.from.front();
  write_next_round(args, study, runs,
                   {{"experiment.toml", read_text_file(first / "experiment.toml", "experiment spec"), false},
                    {"site.toml", read_text_file(first / "site.toml", "site table"), false}},
                   context);
}

// --db alone: the latest round collected gives the spec, the site and sets, and the round.
// The round's directory gets the spec (experiment.toml); the site is in its plan.json.
void refine_from_database(const JobgenArgs& args, Context& context) {
  const StoredRounds stored = read_stored_rounds(args.db, args.experiment);
  const jobgen::Round study = latest_round(args.experiment, stored);
  const auto runs = measured_runs(stored, study, fmt::format("round {} of the database", study.number));
  write_next_round(args, study, runs, {{"experiment.toml", study.spec.text, false}}, context);
}

// --resubmit: the array tasks that failed, completed without records or were never
// submitted, as the next round; its plan is loaded into the database at once (so that
// `hetscale status` follows it) and the round submitted.
void resubmit(const JobgenArgs& args, Context& context) {
  const ExperimentProgress progress = experiment_progress(args.db, args.experiment, print_lines(context));
  // Without sacct, pending and running tasks are not seen: they would run twice.
  if (progress.job_source != "sacct")
    throw Error("--resubmit needs Slurm's accounting (sacct) to tell failed tasks from pending and running ones; "
                "where none runs, write the round with hetscale jobgen --refine or resubmit the failed scripts by "
                "hand");
  const jobgen::Round next = checked_later_round(jobgen::resubmitted_round(progress.latest, progress.tasks), context);
  for (const auto& t : progress.tasks) {
    if (t.state == jobgen::TaskState::collected) continue;
    context.out << fmt::format("round {} set {} array task {} ({}={:g}): {}{}; runs repetition(s) {} again\n",
                               t.task.round, t.task.set_index, t.task.array_index, next.spec.parameter.name,
                               t.task.parameter, jobgen::to_string(t.state),
                               t.job_id ? fmt::format(" ({}, job {})", t.slurm_state, *t.job_id) : std::string(),
                               fmt::join(t.missing, " "));
  }
  if (!write_round(args, next, {{"experiment.toml", next.spec.text, false}},
                   "nothing to resubmit: every array task's records are collected; no files written", context))
    return;
  collector::CollectOptions plan;
  plan.inputs = {(fs::path(args.output) / "plan.json").string()};
  std::istringstream no_stdin;
  collector::collect(args.db, plan, no_stdin, context.err);
  context.out << fmt::format("round {} loaded into the database\n", next.number);
  if (args.no_submit) return;
  context.out << submit_round(args.output);
}

void run_jobgen(const JobgenArgs& args, Context& context) {
  if (args.resubmit) {
    if (args.refine) throw UsageError("--resubmit and --refine plan different rounds: give one");
    if (args.replace_unavailable)
      throw UsageError("--replace-unavailable is for a new study; a resubmitted round runs on the sets planned before");
    if (args.db.empty()) throw UsageError("--resubmit needs a database (--db URI, HETSCALE_DB or the config file's `database`: the "
                       "plans and runs collected so far)");
    if (!args.from.empty() || !args.partition.empty() || !args.site.empty())
      throw UsageError("--resubmit takes the study from the database: no --from, --site or --partition");
    resubmit(args, context);
    return;
  }
  if (args.no_submit) throw UsageError("--no-submit is for --resubmit");
  if (!args.refine) {
    if (!args.db.empty() || !args.from.empty()) throw UsageError("--db and --from are only for --refine");
    generate(args, context);
    return;
  }
  if (!args.partition.empty()) throw UsageError("--partition is for a new study; rounds submit to the spec's [slurm] partition");
  if (args.replace_unavailable)
    throw UsageError("--replace-unavailable is for a new study; a round runs on the sets measured before");
  if (args.from.empty() && args.db.empty())
    throw UsageError("--refine needs a database (--db URI, HETSCALE_DB or the config file's `database`: the runs, "
                     "spec and plans collected into it) or --from DIR... (the first study and every round since, "
                     "with their records)");
  if (args.from.empty()) {
    refine_from_database(args, context);
  } else {
    refine_from_directories(args, context);
  }
}

}  // namespace

void register_jobgen(CLI::App& app, Context& context) {
  auto args = std::make_shared<JobgenArgs>();
  auto* cmd = app.add_subcommand(
      "jobgen", "Slurm array scripts of a scalability study over doubling machine sets (docs/experiment-spec.md)");
  cmd->add_option("--site", args->site, "Site table (TOML; default: the config file's site)");
  cmd->add_option("--experiment", args->experiment, "Experiment spec (TOML); with --refine or --resubmit, the experiment's name")
      ->required();
  cmd->add_option("-o,--output", args->output, "Directory to write the study into (new or empty)")->required();
  cmd->add_option("--kernel-dir", args->kernel_dir,
                  "Where the bundled kernels are (default: the config file's kernel_dir, else next to this hetscale "
                  "executable)");
  cmd->add_option("--partition", args->partition,
                  "Submit to this partition (instead of the spec's); the sets are checked against its nodes "
                  "when Slurm is reachable");
  cmd->add_flag("--replace-unavailable", args->replace_unavailable,
                "Swap members that Slurm reports drained, down, failed, not responding or reserved for available "
                "nodes of the same group (the same swap in every set; C and sizes recomputed)");
  cmd->add_flag("--refine", args->refine, "Follow-up arrays around each set's estimated target size");
  cmd->add_flag("--resubmit", args->resubmit,
                "Write and submit, as the study's next round, only the array tasks that failed, completed without "
                "records or were never submitted, with only their missing repetitions (needs --db; job states "
                "from sacct)");
  cmd->add_flag("--no-submit", args->no_submit, "With --resubmit: write the round and load its plan, but do not submit it");
  cmd->add_option("--db", args->db,
                  "With --refine or --resubmit: the database the study and its rounds were collected into (hetscale collect): "
                  "runs, and without --from the latest round's spec, plan and number");
  cmd->add_option("--from", args->from,
                  "With --refine: the first study directory, then every round since, in order (spec, site table, "
                  "round number and, without --db, the records)");
  cmd->callback([args, &context] {
    // A new study needs the site table; a resubmission and a refinement without --from
    // need the database.
    if (!args->refine && !args->resubmit) args->site = required_site_table(args->site);
    if (args->resubmit || (args->refine && args->from.empty())) args->db = configured_database(args->db);
    run_jobgen(*args, context);
  });
}

}  // namespace hetscale::cli
