// hetscale report: a self-contained HTML report (inline SVG charts, tables, CSV/JSON
// downloads; no script, no network) from the documented views (docs/dashboards.md).
#include <fmt/format.h>

#include <map>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/base/error.hpp"
#include "report_file.hpp"

namespace hetscale::cli {
namespace {

struct ReportArgs {
  std::string db;
  std::vector<std::string> experiments;
  std::vector<std::string> twins;  // EXPERIMENT=TWIN
  std::string output_dir;
  std::string title = "hetscale scalability report";
};

/// The --twin pairs, experiment -> twin.
std::map<std::string, std::string> twin_pairs(const std::vector<std::string>& given) {
  std::map<std::string, std::string> pairs;
  for (const auto& pair : given) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
      throw UsageError(fmt::format("--twin {}: expected EXPERIMENT=TWIN", pair));
    const std::string measured = pair.substr(0, eq);
    if (measured == pair.substr(eq + 1))
      throw UsageError(fmt::format("--twin {}: an experiment is not its own twin", pair));
    if (!pairs.emplace(measured, pair.substr(eq + 1)).second)
      throw UsageError(fmt::format("--twin: two twins for experiment '{}'", measured));
  }
  return pairs;
}

void run_report(const ReportArgs& args, Context& context) {
  if (args.output_dir.empty()) throw UsageError("-o needs a directory");
  const report::ReportResult result = report::write_report(
      {.db = args.db, .experiments = args.experiments, .twins = twin_pairs(args.twins),
       .output_dir = args.output_dir, .title = args.title});
  context.out << fmt::format("report written to {}\n", result.file.string());
}

}  // namespace

void register_report(CLI::App& app, Context& context) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand(
      "report",
      "Self-contained HTML report (DIR/index.html) of E_s curves, psi, node map, heterogeneity, "
      "partitions and forecasts, from the database views");
  cmd->add_option("--db", args->db,
                  "libpq connection URI (the read-only role is enough; default: HETSCALE_DB or the config file)");
  cmd->add_option("--experiment", args->experiments,
                  "Experiment to report on: NAME, or OWNER/NAME (CLUSTER:OWNER/NAME) where users "
                  "share a name (repeatable; default: every experiment with data)");
  cmd->add_option("--twin", args->twins,
                  "EXPERIMENT=TWIN: show the twin experiment TWIN (all runs simulated) next to "
                  "EXPERIMENT (named as --experiment; repeatable; default: the experiment named "
                  "EXPERIMENT-twin of the same owner and cluster)");
  cmd->add_option("-o,--output", args->output_dir, "Directory to write index.html into")
      ->required();
  cmd->add_option("--title", args->title, "Title of the report")->capture_default_str();
  cmd->callback([args, &context] {
    args->db = required_database(args->db);
    run_report(*args, context);
  });
}

}  // namespace hetscale::cli
