// hetscale collect: run records (JSON Lines) and plan files into the database.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/collector/collect.hpp"
#include "hetscale/slurm/queries.hpp"

namespace hetscale::cli {
namespace {

using slurm::AccountingQuery;
using slurm::query_accounting;
using slurm::query_cluster_name;

struct CollectArgs {
  std::string db;
  collector::CollectOptions options;
  std::string rejects = "hetscale-rejects.jsonl";
  std::vector<std::string> sacct_files;  // saved `sacct --json` outputs
  bool sacct = false;                    // ask sacct now
  std::string since = "now-7days";       // sacct's --starttime with --sacct
};

// The jobs of every user since --since, ended ones stored; where accounting is not
// running, the message names the fallback.
collector::SacctOutput ask_sacct(const std::string& since) {
  const slurm::AccountingQuery q = slurm::query_accounting({"--allusers", "--starttime", since});
  switch (q.status) {
    case slurm::AccountingQuery::Status::answered:
      return {"sacct --json --starttime " + since, q.json};
    case slurm::AccountingQuery::Status::disabled:
      throw Error(fmt::format("--sacct: this Slurm keeps no job accounting ({}); load its job completion "
                              "file instead: --jobcomp FILE (JobCompType=jobcomp/filetxt, JobCompLoc)",
                              q.detail));
    case slurm::AccountingQuery::Status::unreachable:
      break;
  }
  throw Error(fmt::format("--sacct: sacct did not answer ({}); where no accounting runs, load the job "
                          "completion file instead: --jobcomp FILE",
                          q.detail));
}

void run_collect(CollectArgs& args, Context& context) {
  args.options.rejects = args.rejects;
  if (args.options.inputs.empty() && args.options.jobcomp.empty() && args.sacct_files.empty() && !args.sacct) {
    throw UsageError("give run record or plan files, directories, -, --jobcomp FILE, --sacct-json FILE or --sacct");
  }
  for (const std::string& file : args.sacct_files) args.options.sacct.push_back({file, read_text_file(file, "sacct output")});
  if (args.sacct) args.options.sacct.push_back(ask_sacct(args.since));
  // jobcomp/filetxt writes Cluster=unknown without accounting: Slurm's ClusterName then.
  if (!args.options.jobcomp.empty() && args.options.cluster.empty())
    args.options.cluster = slurm::query_cluster_name().value_or("");
  const auto r = collector::collect(args.db, args.options, std::cin, context.err);
  context.out << fmt::format(
      "collected {} record file(s) and {} plan(s): {} runs added ({} rank rows), {} already "
      "present, {} rejected\n",
      r.record_files, r.plans, r.runs_added, r.rank_rows_added, r.runs_present, r.rejected);
  if (r.probes > 0)
    context.out << fmt::format("network probes: {} read, {} added, {} already present\n", r.probes, r.probes_added,
                               static_cast<long long>(r.probes) - r.probes_added);
  if (!args.options.jobcomp.empty() || !args.options.sacct.empty()) {
    context.out << fmt::format("ended Slurm jobs: {} read, {} added, {} already present\n",
                               r.jobs_read, r.jobs_added,
                               static_cast<long long>(r.jobs_read) - r.jobs_added);
  }
  if (r.jobs_set_aside > 0) {
    context.out << fmt::format("{} job completion line(s) set aside, not stored: each is named above\n",
                               r.jobs_set_aside);
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
  cmd->add_option("--db", args->db, "libpq connection URI (default: HETSCALE_DB or the config file)");
  cmd->add_flag("--skip-invalid", args->options.skip_invalid,
                "Set invalid lines aside in the rejects file and load the rest");
  cmd->add_option("--rejects", args->rejects, "Rejects file (with --skip-invalid)")
      ->capture_default_str();
  cmd->add_option("--batch-size", args->options.batch_size, "Records per transaction")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--connections", args->options.connections,
                  "Batches loaded at once, each over its own connection (1: one after the other)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--jobcomp", args->options.jobcomp,
                  "Slurm job completion file (jobcomp/filetxt) to load into slurm_jobs; "
                  "may be repeated")
      ->expected(1)
      ->take_all();
  cmd->add_option("--sacct-json", args->sacct_files,
                  "Output of `sacct --json` saved to a file: its ended jobs go to slurm_jobs; may be repeated")
      ->expected(1)
      ->take_all();
  cmd->add_flag("--sacct", args->sacct,
                "Ask Slurm's accounting (sacct --json, every user) for the jobs since --since and store the "
                "ended ones");
  cmd->add_option("--since", args->since, "With --sacct: sacct's --starttime")->capture_default_str();
  cmd->add_option("--cluster", args->options.cluster,
                  "Cluster name for jobcomp lines that say Cluster=unknown (default: scontrol's ClusterName)");
  cmd->add_option("inputs", args->options.inputs, "Files, directories or -");
  cmd->callback([args, &context] {
    args->db = required_database(args->db);
    run_collect(*args, context);
  });
}

}  // namespace hetscale::cli
