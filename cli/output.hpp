// The `--format table|json|csv` option every tabular subcommand takes.
#pragma once

#include <CLI/CLI.hpp>

#include "hetscale/base/text_table.hpp"

namespace hetscale::cli {

/// Adds `--format table|json|csv` to a subcommand.
void add_format_option(CLI::App& command, TableFormat& format);

}  // namespace hetscale::cli
