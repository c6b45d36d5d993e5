// hetscale config: the effective settings (database, site table, kernel directory) and
// where each comes from (docs/configuration.md). Passwords are never printed.
#include <fmt/format.h>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/base/redaction.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct ConfigArgs {
  std::string db;
  std::string site;
  std::string kernel_dir;
  TableFormat format = TableFormat::table;
};

Table settings_table(const Settings& settings) {
  Table table{{"setting", "value", "origin"}, {}};
  const auto row = [&](const char* key, const Setting& setting, bool is_connection) {
    Cell value;
    if (setting.is_set()) value = is_connection ? redact_connection_passwords(setting.value) : setting.value;
    table.rows.push_back({std::string(key), value, setting.origin.str()});
  };
  row("database", settings.database, true);
  row("site", settings.site, false);
  row("kernel_dir", settings.kernel_dir, false);
  return table;
}

void run_config(const ConfigArgs& args, Context& context) {
  const Settings settings = effective_settings(args.db, args.site, args.kernel_dir);
  const Table table = settings_table(settings);
  if (args.format == TableFormat::json) {
    auto files = nlohmann::json::array();
    for (const ConfigFile& f : settings.files) files.push_back({{"path", f.path.string()}, {"found", f.found}});
    context.out << nlohmann::json{{"settings", table_json(table)}, {"files", files}}.dump(2) << '\n';
    return;
  }
  print_table(context.out, table, args.format);
  if (args.format == TableFormat::table) {
    context.out << "\nconfig files, later ones override earlier:\n";
    for (const ConfigFile& f : settings.files)
      context.out << fmt::format("  {} ({})\n", f.path.string(), f.found ? "read" : "not found");
  }
}

}  // namespace

void register_config(CLI::App& app, Context& context) {
  auto args = std::make_shared<ConfigArgs>();
  auto* cmd = app.add_subcommand(
      "config",
      "The effective settings (database, site table, kernel directory) and where each comes from: an option, "
      "HETSCALE_DB, a config file or the default (docs/configuration.md); passwords are masked");
  cmd->add_option("--db", args->db, "libpq connection URI or conninfo, as the other commands take it");
  cmd->add_option("--site", args->site, "Site table (TOML)");
  cmd->add_option("--kernel-dir", args->kernel_dir, "Directory of the bundled kernels");
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] { run_config(*args, context); });
}

}  // namespace hetscale::cli
