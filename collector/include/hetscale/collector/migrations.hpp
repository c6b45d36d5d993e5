// The migration runner (docs/schema.md): db/migrations/NNNN_name.sql
// embedded into the binary at build time, applied in order, one transaction each, the
// version recorded in hetscale.schema_migrations. Safe to run twice and from several
// processes at once (a session advisory lock serialises them).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

struct Migration {
  int version;       // NNNN of the file name
  const char* name;  // the rest of the file name, without .sql
  const char* sql;   // the file's text
};

/// Every migration of db/migrations, ascending (generated at build time).
std::span<const Migration> embedded_migrations();

/// Highest version this binary knows.
int latest_schema_version();

struct MigrationReport {
  int from_version = 0;      // before: 0 for an empty database
  int to_version = 0;        // after
  std::vector<int> applied;  // versions applied by this call, ascending
  /// What the database's owner should change, one line each: a schema `public` in which
  /// others than its owner may create objects (migration 19 takes that right away where
  /// the migrating role can); functions or operators in `public` that neither its owner
  /// nor a superuser owns, named with their owners.
  std::vector<std::string> warnings;
};

/// Applies pending migrations up to `up_to` (all when absent), then checks the schema
/// `public` (MigrationReport::warnings). Throws Error when the database is newer than
/// `migrations` or when an applied migration's text changed.
MigrationReport migrate(pg::Connection& conn, std::span<const Migration> migrations,
                        std::optional<int> up_to = std::nullopt);
MigrationReport migrate(pg::Connection& conn, std::optional<int> up_to = std::nullopt);

/// Version recorded in the database; 0 when hetscale was never migrated there.
int schema_version(pg::Connection& conn);

/// Throws Error unless the database is at latest_schema_version(), saying what to do.
void require_current_schema(pg::Connection& conn);

}  // namespace hetscale::collector
