// hetscale collect: run records (JSON Lines) and plan files into the database.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "hetscale/collector/collect.hpp"

namespace hetscale::cli {
namespace {

struct CollectArgs {
  std::string db;
  collector::CollectOptions options;
  std::string rejects = "hetscale-rejects.jsonl";
};

void run_collect(CollectArgs& args, Context& context) {
  args.options.rejects = args.rejects;
  if (args.options.inputs.empty() && args.options.jobcomp.empty()) {
    throw UsageError("give run record or plan files, directories, - or --jobcomp FILE");
  }
  const auto r = collector::collect(args.db, args.options, std::cin, context.err);
  context.out << fmt::format(
      "collected {} record file(s) and {} plan(s): {} runs added ({} rank rows), {} already "
      "present, {} rejected\n",
      r.record_files, r.plans, r.runs_added, r.rank_rows_added, r.runs_present, r.rejected);
  if (!args.options.jobcomp.empty()) {
    context.out << fmt::format("job completions: {} read, {} added, {} already present\n",
                               r.jobs_read, r.jobs_added,
                               static_cast<long long>(r.jobs_read) - r.jobs_added);
  }
  if (r.held_back > 0) {
    context.out << fmt::format(
        "{} unterminated last line(s) held back: collect again once they are complete\n",
        r.held_back);
  }
  if (r.rejected > 0) {
    context.out << fmt::format("rejected lines were appended to {}\n", args.rejects);
  }
}

}  // namespace

void register_collect(CLI::App& app, Context& context) {
  auto args = std::make_shared<CollectArgs>();
  auto* cmd = app.add_subcommand(
      "collect",
      "Load run records (*.jsonl, or - for standard input) and plan files (*.json); "
      "directories are searched recursively");
  cmd->add_option("--db", args->db, "libpq connection URI")->required();
  cmd->add_flag("--skip-invalid", args->options.skip_invalid,
                "Set invalid lines aside in the rejects file and load the rest");
  cmd->add_option("--rejects", args->rejects, "Rejects file (with --skip-invalid)")
      ->capture_default_str();
  cmd->add_option("--batch-size", args->options.batch_size, "Records per transaction")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--jobcomp", args->options.jobcomp,
                  "Slurm job completion file (jobcomp/filetxt) to load into slurm_jobs; "
                  "may be repeated")
      ->expected(1)
      ->take_all();
  cmd->add_option("inputs", args->options.inputs, "Files, directories or -");
  cmd->callback([args, &context] { run_collect(*args, context); });
}

}  // namespace hetscale::cli
