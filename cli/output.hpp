// How subcommands print: the `--format table|json|csv` option every tabular subcommand
// takes, and the lines a library call says.
#pragma once

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "hetscale/base/say.hpp"
#include "hetscale/base/text_table.hpp"

namespace hetscale::cli {

/// Adds `--format table|json|csv` to a subcommand.
void add_format_option(CLI::App& command, TableFormat& format);

/// Prints what a library call says as it says it: notes on stderr, results on stdout.
Say print_lines(Context& context);

}  // namespace hetscale::cli
