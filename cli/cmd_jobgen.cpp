// hetscale jobgen: sbatch array scripts, a submit script and the plan file of a
// scalability study (logic in jobgen/, docs/experiment-spec.md).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "commands.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/refine.hpp"
#include "hetscale/jobgen/study_files.hpp"
#include "hetscale/site_table.hpp"

namespace hetscale::cli {
namespace {

namespace fs = std::filesystem;

struct JobgenArgs {
  std::string site;
  std::string experiment;  // a spec file, or with --refine the experiment's name
  std::string output;
  std::string kernel_dir;
  bool refine = false;
  std::string db;
  std::vector<std::string> from;  // study directories whose records --refine reads
};

// The bundled kernels are installed (or built) next to the hetscale executable.
std::string own_directory() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/usr/local/bin") : self.parent_path().string();
}

std::string now_utc() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string summary(const jobgen::Study& study, const std::string& dir) {
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

void generate(const JobgenArgs& args, Context& context) {
  if (args.site.empty()) throw UsageError("--site is required (the site table)");
  const auto spec = jobgen::load_experiment_spec(args.experiment);
  const auto site = load_site_table(args.site);
  const auto study = jobgen::plan_study(spec, site);
  auto files = jobgen::study_files(study, {args.kernel_dir.empty() ? own_directory() : args.kernel_dir}, now_utc());
  // Copies of the inputs make the study directory self-contained (and refinable).
  files.push_back({"experiment.toml", file_text(args.experiment), false});
  files.push_back({"site.toml", file_text(args.site), false});
  jobgen::write_study(args.output, files);
  context.out << summary(study, args.output);
}

// The next round from the records of the first study and the rounds after it.
void refine_from_records(const JobgenArgs& args, Context& context) {
  const fs::path first = args.from.front();
  const auto spec = jobgen::load_experiment_spec(first / "experiment.toml");
  if (spec.name != args.experiment)
    throw UsageError(fmt::format("{} holds experiment '{}', not '{}'", first.string(), spec.name, args.experiment));
  const auto site = load_site_table(first / "site.toml");
  const auto study = jobgen::plan_study(spec, site);
  std::map<std::size_t, std::vector<EfficiencyPoint>> measured;
  for (const fs::path dir : args.from)
    for (auto& [set, points] : jobgen::read_measurements(dir / "records", study))
      measured[set].insert(measured[set].end(), points.begin(), points.end());
  const auto settings = jobgen::RefineSettings::from(spec, static_cast<std::uint32_t>(args.from.size() - 1));
  std::vector<jobgen::SetRefinement> refinements;
  for (const auto& set : study.sets) {
    refinements.push_back(jobgen::refine_set(set.set.index, measured[set.set.index], spec.workload, settings));
    context.out << refinements.back().explanation << '\n';
  }
  const auto next = jobgen::refined_study(study, refinements);
  const bool any = std::any_of(next.sets.begin(), next.sets.end(), [](const auto& s) { return !s.parameter_values.empty(); });
  if (!any) {
    context.out << "nothing to refine: no files written\n";
    return;
  }
  auto files = jobgen::study_files(next, {args.kernel_dir.empty() ? own_directory() : args.kernel_dir}, now_utc());
  files.push_back({"experiment.toml", file_text((first / "experiment.toml").string()), false});
  files.push_back({"site.toml", file_text((first / "site.toml").string()), false});
  jobgen::write_study(args.output, files);
  context.out << summary(next, args.output);
}

void run_jobgen(const JobgenArgs& args, Context& context) {
  if (!args.refine) {
    if (!args.db.empty() || !args.from.empty()) throw UsageError("--db and --from are only for --refine");
    generate(args, context);
    return;
  }
  if (!args.from.empty()) {
    refine_from_records(args, context);
    return;
  }
  if (args.db.empty())
    throw UsageError("--refine needs --from DIR (the study and its rounds so far) or --db URI (the database the runs "
                     "were collected into)");
  // The estimate per set is jobgen::refine_set; what is missing is the query of the
  // collected runs, which belongs to the collector's database layer.
  throw Error("--refine: reading the collected runs needs the collector's database layer, which this build "
              "does not include yet");
}

}  // namespace

void register_jobgen(CLI::App& app, Context& context) {
  auto args = std::make_shared<JobgenArgs>();
  auto* cmd = app.add_subcommand(
      "jobgen", "Slurm array scripts of a scalability study over doubling machine sets (docs/experiment-spec.md)");
  cmd->add_option("--site", args->site, "Site table (TOML)");
  cmd->add_option("--experiment", args->experiment, "Experiment spec (TOML); with --refine, the experiment's name")
      ->required();
  cmd->add_option("-o,--output", args->output, "Directory to write the study into (new or empty)")->required();
  cmd->add_option("--kernel-dir", args->kernel_dir,
                  "Where the bundled kernels are (default: next to this hetscale executable)");
  cmd->add_flag("--refine", args->refine, "Follow-up arrays around each set's estimated target size");
  cmd->add_option("--db", args->db, "Database the runs were collected into (with --refine)");
  cmd->add_option("--from", args->from,
                  "With --refine: a study directory whose records to read; give the first study and every round "
                  "since, in order");
  cmd->callback([args, &context] { run_jobgen(*args, context); });
}

}  // namespace hetscale::cli
