// hetscale db migrate: applies the migrations embedded in this binary (docs/schema.md).
#include <fmt/format.h>

#include "commands.hpp"
#include "configured_settings.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/session.hpp"

namespace hetscale::cli {
namespace {

struct MigrateArgs {
  std::string db;
  int to = 0;  // 0: the latest
};

std::string joined(const std::vector<int>& versions) {
  std::string out;
  for (int v : versions) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

void run_migrate(const MigrateArgs& args, Context& context) {
  collector::Session session(args.db, {});
  const auto report = collector::migrate(session.connection(),
                                         args.to > 0 ? std::optional<int>(args.to) : std::nullopt);
  if (report.applied.empty()) {
    context.out << fmt::format("database at schema version {}: nothing to apply\n",
                               report.to_version);
  } else {
    context.out << fmt::format("database at schema version {} (was {}; applied {})\n",
                               report.to_version, report.from_version, joined(report.applied));
  }
  for (const std::string& warning : report.warnings)
    context.err << "hetscale db migrate: warning: " << warning << '\n';
}

}  // namespace

void register_db(CLI::App& app, Context& context) {
  auto* db = app.add_subcommand("db", "Database administration");
  db->require_subcommand(1);
  auto args = std::make_shared<MigrateArgs>();
  auto* migrate = db->add_subcommand(
      "migrate", "Apply pending schema migrations (safe to run twice or concurrently)");
  migrate->add_option("--db", args->db,
                      "libpq connection URI, e.g. postgresql://host/hetscale (default: HETSCALE_DB or the "
                      "config file)");
  migrate->add_option("--to", args->to, "Stop at this schema version (default: the latest)")
      ->check(CLI::PositiveNumber);
  migrate->callback([args, &context] {
    args->db = required_database(args->db);
    run_migrate(*args, context);
  });
}

}  // namespace hetscale::cli
