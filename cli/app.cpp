// The top-level app: subcommand wiring, exit codes and one-line error messages.
#include <iostream>

#include "commands.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/version.hpp"

namespace hetscale::cli {

namespace {

void register_all(CLI::App& app, Context& context) {
  register_classify(app, context);
  register_efficiency(app, context);
  register_jobgen(app, context);
  register_groups(app, context);
  register_psi(app, context);
  register_sets(app, context);
  register_simulate(app, context);
  register_equalize(app, context);
  register_db(app, context);
  register_collect(app, context);
  register_analyze(app, context);
  register_predict(app, context);
  register_report(app, context);
  register_twin(app, context);
  register_status(app, context);
  register_config(app, context);
  register_study(app, context);
  register_record(app, context);
}

std::string command_path(const CLI::App& app) {
  std::string path = "hetscale";
  for (const CLI::App* sub = &app; sub != nullptr;) {
    const auto chosen = sub->get_subcommands();
    if (chosen.empty()) break;
    sub = chosen.front();
    path += ' ' + sub->get_name();
  }
  return path;
}

// CLI11 reads an unknown first word as a stray positional and reports "a subcommand is
// required"; say what is wrong instead, and list the commands.
void reject_unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  const std::string word = argv[1];
  std::string names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->check_name(word)) return;
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  throw UsageError("unknown command '" + word + "' (commands: " + names + ")");
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"hetscale: isospeed-e scalability on heterogeneous Slurm clusters", "hetscale"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hetscale " + std::string(version()));
  Context context{out, err};
  register_all(app, context);
  try {
    reject_unknown_command(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << app.version() << '\n';
    return 0;
  } catch (const CLI::ParseError& e) {
    // Subcommand --help arrives here too: CLI11 raises CallForHelp from the subcommand.
    if (e.get_exit_code() == 0) return 0;
    err << command_path(app) << ": " << e.what() << " (see --help)\n";
    return 2;
  } catch (const UsageError& e) {
    err << command_path(app) << ": " << e.what() << " (see --help)\n";
    return 2;
  } catch (const Error& e) {
    err << command_path(app) << ": " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    err << command_path(app) << ": internal error: " << e.what() << '\n';
    return 1;
  }
  return context.exit_code;
}

}  // namespace hetscale::cli
