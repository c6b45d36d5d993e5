// hetscale status: how far the rounds of an experiment have come, per machine set and array
// task (logic in jobgen's task_status and the study library's stored_rounds;
// docs/experiment-spec.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/study/stored_rounds.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

using study::ExperimentProgress;
using study::experiment_progress;

struct StatusArgs {
  std::string experiment;
  std::string db;
  bool tasks = false;
  TableFormat format = TableFormat::table;
};

std::string repetitions_text(const std::vector<std::uint32_t>& reps) {
  return fmt::format("{}", fmt::join(reps, " "));
}

Table set_table(const std::vector<jobgen::SetStatus>& sets) {
  Table t{{"round", "set", "nodes", "tasks", "collected", "running", "pending", "completed_uncollected", "failed",
           "not_submitted", "summary"},
          {}};
  for (const auto& s : sets) {
    const auto n = [](std::size_t v) { return static_cast<std::int64_t>(v); };
    t.rows.push_back({n(s.round), n(s.set_index), n(s.nodes), n(s.tasks), n(s.collected), n(s.running),
                      n(s.pending), n(s.uncollected), n(s.failed), n(s.not_submitted), s.summary});
  }
  return t;
}

Table task_table(const std::vector<jobgen::TaskStatus>& tasks, const std::string& parameter) {
  Table t{{"round", "set", "array_task", parameter, "state", "job_id", "slurm_state", "collected", "missing", "note"},
          {}};
  for (const auto& s : tasks) {
    const auto n = [](std::size_t v) { return static_cast<std::int64_t>(v); };
    t.rows.push_back({n(s.task.round), n(s.task.set_index), n(s.task.array_index), s.task.parameter,
                      std::string(jobgen::to_string(s.state)),
                      s.job_id ? Cell(static_cast<std::int64_t>(*s.job_id)) : Cell(),
                      s.slurm_state.empty() ? Cell() : Cell(s.slurm_state), repetitions_text(s.collected),
                      repetitions_text(s.missing), s.note.empty() ? Cell() : Cell(s.note)});
  }
  return t;
}

void run_status(const StatusArgs& args, Context& context) {
  const ExperimentProgress progress = experiment_progress(args.db, args.experiment, print_lines(context));
  const auto sets = jobgen::set_statuses(progress.tasks);
  const std::string& parameter = progress.latest.spec.parameter.name;
  if (args.format == TableFormat::json) {
    nlohmann::json out = {{"experiment", args.experiment},
                          {"job_states_from", progress.job_source},
                          {"sets", table_json(set_table(sets))},
                          {"tasks", table_json(task_table(progress.tasks, parameter))}};
    context.out << out.dump(2) << '\n';
    return;
  }
  if (args.format == TableFormat::table) {
    context.out << fmt::format("experiment {}: {} array tasks in {} set(s) of {} round(s); job states from {}\n",
                               args.experiment, progress.tasks.size(), sets.size(),
                               progress.latest.number + 1, progress.job_source);
    for (const auto& s : sets) context.out << s.summary << '\n';
    if (!args.tasks) return;
    context.out << '\n';
  }
  print_table(context.out, args.tasks ? task_table(progress.tasks, parameter) : set_table(sets), args.format);
}

}  // namespace

void register_status(CLI::App& app, Context& context) {
  auto args = std::make_shared<StatusArgs>();
  auto* cmd = app.add_subcommand(
      "status",
      "How far a study has come: per machine set and array task of every round, its Slurm job's state (sacct) "
      "and whether its records are collected (docs/study.md)");
  cmd->add_option("experiment", args->experiment, "The experiment's name")->required();
  cmd->add_option("--db", args->db,
                  "The database its plans and runs were collected into (default: HETSCALE_DB or the config file)");
  cmd->add_flag("--tasks", args->tasks, "One row per array task (default: one per set)");
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] {
    args->db = required_database(args->db);
    run_status(*args, context);
  });
}

}  // namespace hetscale::cli
