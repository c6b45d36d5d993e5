// The settings a command takes from its options or, when an option is not given, from
// HETSCALE_DB and the config files (settings.hpp, docs/configuration.md). Every
// command reads --db, --site and --kernel-dir through these functions.
#pragma once

#include <string>

#include "settings.hpp"

namespace hetscale::cli {

/// The settings of this process (environment and config files) with the options given
/// applied over them, and the kernel directory defaulting to this executable's own.
Settings effective_settings(const std::string& db_option, const std::string& site_option,
                            const std::string& kernel_dir_option);

/// --db's value, else HETSCALE_DB, else the config files' `database`; "" when none gives one.
std::string configured_database(const std::string& db_option);
/// As configured_database, but a UsageError naming --db, HETSCALE_DB and the config files
/// when none gives one.
std::string required_database(const std::string& db_option);
/// --site's value, else the config files' `site`; a UsageError naming both when neither.
std::string required_site_table(const std::string& site_option);
/// --kernel-dir's value, else the config files' `kernel_dir`, else this executable's directory.
std::string kernel_dir_from(const std::string& kernel_dir_option);

}  // namespace hetscale::cli
