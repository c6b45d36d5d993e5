// The rounds of one experiment: what a refinement starts from, the next round, and
// jobgen's rounds checked against Slurm and written.
#include "hetscale/study/rounds.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "hetscale/base/text_file.hpp"
#include "hetscale/base/utc_time.hpp"
#include "hetscale/collector/collect.hpp"
#include "hetscale/jobgen/refine.hpp"
#include "hetscale/jobgen/task_status.hpp"
#include "hetscale/site/round_plan.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/slurm/queries.hpp"
#include "hetscale/study/stored_rounds.hpp"

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

// The round's files (made now), then copies of its inputs.
std::vector<jobgen::GeneratedFile> files_of(const jobgen::Round& round, const std::string& kernel_dir,
                                            const std::vector<jobgen::GeneratedFile>& inputs) {
  auto files = jobgen::round_files(round, {kernel_dir}, utc_time_now());
  files.insert(files.end(), inputs.begin(), inputs.end());
  return files;
}

// Writes a later round into `output.dir` with `inputs`; none, and `nothing` said, when no
// set of it has sizes to run.
std::optional<jobgen::Round> write_later_round(const jobgen::Round& round, const RoundOutput& output,
                                               const std::vector<jobgen::GeneratedFile>& inputs,
                                               std::string_view nothing, const Say& say) {
  if (!jobgen::has_jobs(round)) {
    say(LineKind::result, fmt::format("{}\n", nothing));
    return std::nullopt;
  }
  jobgen::write_round_directory(output.dir, files_of(round, output.kernel_dir(), inputs));
  say(LineKind::result, round_summary(round, output.dir.string()));
  return round;
}

// A later round against Slurm: on the sets measured before, at the spec's partition.
jobgen::Round checked_later_round(jobgen::Round round, const Say& say) {
  const RoundCheck check = jobgen_round_check(round, {}, false);
  return check_round_against_slurm(std::move(round), check, say).round;
}

}  // namespace

RefinementInput refinement_from_database(const std::string& db, const std::string& experiment) {
  const StoredRounds stored = read_stored_rounds(db, experiment);
  RefinementInput input;
  input.latest = latest_round(experiment, stored);
  input.runs = measured_runs(stored, input.latest, fmt::format("round {} of the database", input.latest.number));
  input.inputs = {{"experiment.toml", input.latest.spec.text, false}};
  return input;
}

RefinementInput refinement_from_directories(const std::string& experiment, const std::vector<fs::path>& dirs,
                                            const std::string& db) {
  const fs::path& first = dirs.front();
  const auto spec = jobgen::load_experiment_spec(first / "experiment.toml");
  if (spec.name != experiment)
    throw OptionValueError(fmt::format("{} holds experiment '{}', not '{}'", first.string(), spec.name, experiment));
  RefinementInput input;
  // The study's token from the first round's plan: every round of the study carries it.
  const std::string token = load_round_plan(first / "plan.json").study_token.value_or("");
  input.latest = jobgen::plan_round(spec, load_site_table(first / "site.toml"), token);
  input.latest.number = static_cast<std::uint32_t>(dirs.size() - 1);
  if (db.empty()) {
    for (const fs::path& dir : dirs) {
      auto more = jobgen::read_record_runs(dir / "records", input.latest);
      input.runs.insert(input.runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
  } else {
    const StoredRounds stored = read_stored_rounds(db, experiment);
    if (!stored.experiment)
      throw Error(fmt::format("experiment '{}' is not in the database: collect the study first (hetscale collect "
                              "--db URI {})", input.latest.spec.name, first.string()));
    input.runs = measured_runs(stored, input.latest, first.string());
  }
  input.inputs = {{"experiment.toml", read_text_file(first / "experiment.toml", "experiment spec"), false},
                  {"site.toml", read_text_file(first / "site.toml", "site table"), false}};
  return input;
}

jobgen::Round next_round(const jobgen::Round& latest, const std::vector<jobgen::MeasuredRun>& runs, const Say& say) {
  auto measured = jobgen::measured_points(runs, latest);
  auto next_repetitions = jobgen::next_repetitions(runs);
  const auto settings = jobgen::RefineSettings::from(latest.spec, latest.number);
  std::vector<jobgen::SetRefinement> refinements;
  for (const auto& set : latest.sets) {
    refinements.push_back(jobgen::refine_set(set.set.index, measured[set.set.index], next_repetitions[set.set.index],
                                             latest.spec.workload, settings));
    say(LineKind::result, refinements.back().explanation + '\n');
  }
  auto next = jobgen::refined_round(latest, refinements);
  jobgen::apply_measured_time_limits(next, runs);
  return next;
}

std::string round_summary(const jobgen::Round& round, const std::string& dir) {
  std::string sizes;
  std::size_t tasks = 0;
  std::size_t sets = 0;
  std::size_t listed = 0;  // repetitions of the tasks that list theirs
  bool lists = false;
  for (const auto& s : round.sets) {
    if (s.parameter_values.empty()) continue;
    ++sets;
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(s.members.size());
    tasks += s.parameter_values.size();
    lists = lists || !s.repetitions.empty();
    for (std::size_t i = 0; i < s.parameter_values.size(); ++i) listed += jobgen::task_repetitions(round, s, i).size();
  }
  const std::string repetitions =
      lists ? fmt::format("{} repetitions in all", listed)
            : fmt::format("x {} repetition{}", round.spec.repetitions, round.spec.repetitions == 1 ? "" : "s");
  return fmt::format("wrote {}: {} machine set{} ({} nodes), {} array tasks {}; submit with {}/submit.sh\n", dir, sets,
                     sets == 1 ? "" : "s", sizes, tasks, repetitions, dir);
}

jobgen::Round write_new_round(jobgen::Round planned, const RoundCheck& check, const RoundOutput& output,
                              const std::vector<jobgen::GeneratedFile>& inputs, const Say& say) {
  const CheckedRound checked = check_round_against_slurm(std::move(planned), check, say);
  const auto files = files_of(checked.round, output.kernel_dir(), inputs);
  if (checked.unreachable.empty()) test_set_scripts(checked.round, files, check, say);
  jobgen::write_round_directory(output.dir, files);
  say(LineKind::result, round_summary(checked.round, output.dir.string()));
  return checked.round;
}

std::optional<jobgen::Round> write_refined_round(const RefinementInput& input, const RoundOutput& output,
                                                 const Say& say) {
  const jobgen::Round next = checked_later_round(next_round(input.latest, input.runs, say), say);
  return write_later_round(next, output, input.inputs, "nothing to refine: no files written", say);
}

std::optional<jobgen::Round> resubmit_round(const Resubmission& request, const Say& say) {
  const ExperimentProgress progress = experiment_progress(request.db, request.experiment, say);
  // Without sacct, pending and running tasks are not seen: they would run twice.
  if (progress.job_source != "sacct")
    throw Error("--resubmit needs Slurm's accounting (sacct) to tell failed tasks from pending and running ones; "
                "where none runs, write the round with hetscale jobgen --refine or resubmit the failed scripts by "
                "hand");
  const jobgen::Round next = checked_later_round(jobgen::resubmitted_round(progress.latest, progress.tasks), say);
  for (const auto& t : progress.tasks) {
    if (t.state == jobgen::TaskState::collected) continue;
    say(LineKind::result,
        fmt::format("round {} set {} array task {} ({}={:g}): {}{}; runs repetition(s) {} again\n", t.task.round,
                    t.task.set_index, t.task.array_index, next.spec.parameter.name, t.task.parameter,
                    jobgen::to_string(t.state),
                    t.job_id ? fmt::format(" ({}, job {})", t.slurm_state, *t.job_id) : std::string(),
                    fmt::join(t.missing, " ")));
  }
  const auto written = write_later_round(next, request.output, {{"experiment.toml", next.spec.text, false}},
                                         "nothing to resubmit: every array task's records are collected; no files "
                                         "written",
                                         say);
  if (!written) return written;
  collector::CollectOptions plan;
  plan.inputs = {(request.output.dir / "plan.json").string()};
  std::istringstream no_stdin;
  std::ostringstream log;
  collector::collect(request.db, plan, no_stdin, log);
  if (!log.str().empty()) say(LineKind::note, log.str());
  say(LineKind::result, fmt::format("round {} loaded into the database\n", next.number));
  if (!request.submit) return written;
  try {
    say(LineKind::result, slurm::submit_round(request.output.dir.string()));
  } catch (const slurm::SubmissionOutcomeUnknown& e) {
    // The round is in the database as written: whether its sets are in Slurm is what the
    // user must know before anything is submitted again.
    throw slurm::SubmissionOutcomeUnknown(
        fmt::format("round {} is written in {} and loaded into the database, but {}. Submit none of its sets by "
                    "hand before looking them up in Slurm; --resubmit refuses while any task of the study is "
                    "pending or running, and writes a set Slurm did not take into its next round",
                    next.number, request.output.dir.string(), e.what()));
  }
  return written;
}

}  // namespace hetscale::study
