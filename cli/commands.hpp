// Subcommand registration. Each cmd_<name>.cpp defines one register_<name>() that adds
// its subcommand (options + callback) to the app; run() wires them all.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <stdexcept>

namespace hetscale::cli {

/// Where subcommands print; tests pass string streams.
struct Context {
  std::ostream& out;
  std::ostream& err;
  int exit_code = 0;  // a subcommand that passes on another program's exit status sets it
};

/// Bad usage found after parsing (a malformed option value): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void register_classify(CLI::App& app, Context& context);
void register_efficiency(CLI::App& app, Context& context);
void register_jobgen(CLI::App& app, Context& context);
void register_groups(CLI::App& app, Context& context);
void register_psi(CLI::App& app, Context& context);
void register_sets(CLI::App& app, Context& context);
void register_simulate(CLI::App& app, Context& context);
void register_equalize(CLI::App& app, Context& context);
void register_db(CLI::App& app, Context& context);
void register_collect(CLI::App& app, Context& context);
void register_analyze(CLI::App& app, Context& context);
void register_predict(CLI::App& app, Context& context);
void register_report(CLI::App& app, Context& context);
void register_twin(CLI::App& app, Context& context);
void register_status(CLI::App& app, Context& context);
void register_config(CLI::App& app, Context& context);
void register_study(CLI::App& app, Context& context);
void register_record(CLI::App& app, Context& context);

/// Parses argv and runs the chosen subcommand. Returns the process exit code:
/// 0 success, 1 a hetscale::Error (bad input file, failed computation), 2 bad usage.
/// Errors go to `err` as one line starting with "hetscale <subcommand>: ".
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace hetscale::cli
