// hetscale jobgen: sbatch array scripts, a submit script and the plan file of a round of
// an experiment: round 0 of a new study, the next refinement round, or the tasks to run
// again (logic in jobgen/ and study/, docs/experiment-spec.md).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/jobgen/record_program.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/site/study_token.hpp"
#include "hetscale/slurm/queries.hpp"
#include "hetscale/study/round_check.hpp"
#include "hetscale/study/rounds.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {


struct JobgenArgs {
  std::string site;
  std::string experiment;  // a spec file, or with --refine the experiment's name
  std::string output;
  std::string kernel_dir;
  bool refine = false;
  bool resubmit = false;
  bool no_submit = false;
  std::string db;
  std::vector<std::string> from;  // round directories whose records --refine reads
  std::string partition;          // overrides the spec's [slurm] partition
  bool replace_unavailable = false;  // swap members Slurm reports unavailable
};

// --partition, checked and put into the spec (pasted into #SBATCH lines like the spec's);
// returns the option's name, or empty when the spec names the partition.
std::string partition_option(const JobgenArgs& args, jobgen::ExperimentSpec& spec) {
  if (args.partition.empty()) return {};
  const bool safe = std::all_of(args.partition.begin(), args.partition.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || std::string_view("._-").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (!safe)
    throw UsageError(fmt::format("--partition may hold only letters, digits and ._- (got '{}')", args.partition));
  spec.slurm.partition = args.partition;
  return "--partition";
}

// Where the round goes: the kernel directory is asked for when the round's files are made.
study::RoundOutput round_output(const JobgenArgs& args) {
  return {args.output, [kernel_dir = args.kernel_dir] { return kernel_dir_from(kernel_dir); }};
}

void generate(const JobgenArgs& args, Context& context) {
  auto spec = jobgen::load_experiment_spec(args.experiment);
  const std::string option = partition_option(args, spec);
  // The job runs in the study directory, with the environment of the shell that submits it.
  if (const auto warning = jobgen::record_program_warning(
          spec, {std::filesystem::absolute(args.output), jobgen::environment_variable}))
    context.err << "hetscale jobgen: " << *warning << '\n' << std::flush;
  const jobgen::Round planned = jobgen::plan_round(spec, load_site_table(args.site), new_study_token());
  // Copies of the inputs make the round's directory self-contained (and refinable).
  study::write_new_round(planned, study::jobgen_round_check(planned, option, args.replace_unavailable),
                         round_output(args),
                         {jobgen::spec_copy("experiment.toml", read_text_file(args.experiment, "experiment spec")),
                          {"site.toml", read_text_file(args.site, "site table"), false}},
                         print_lines(context));
}

// --from: the round directories give the spec, the site and, by their number, the round;
// the runs come from their records or, with --db, from the database. --db alone: the
// latest round collected.
void refine(const JobgenArgs& args, Context& context) {
  const study::RefinementInput input =
      args.from.empty() ? study::refinement_from_database(args.db, args.experiment)
                        : study::refinement_from_directories(args.experiment, {args.from.begin(), args.from.end()},
                                                             args.db);
  study::write_refined_round(input, round_output(args), print_lines(context));
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
    study::resubmit_round({args.db, args.experiment, round_output(args), !args.no_submit}, print_lines(context));
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
  refine(args, context);
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
    try {
      run_jobgen(*args, context);
    } catch (const study::OptionValueError& e) {  // a value of an option Slurm or the rounds refuse
      throw UsageError(e.what());
    }
  });
}

}  // namespace hetscale::cli
