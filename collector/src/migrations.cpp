// Applying the embedded migrations in order, under an advisory lock.
#include "hetscale/collector/migrations.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace hetscale::collector {
namespace {

// Arbitrary but fixed: every hetscale migrator of a database takes this session lock.
constexpr const char* lock_key = "7209381468312577";  // "hetscale" as a small number

constexpr const char* create_bookkeeping = R"sql(
CREATE SCHEMA IF NOT EXISTS hetscale;
CREATE TABLE IF NOT EXISTS hetscale.schema_migrations (
  version     integer PRIMARY KEY,
  name        text NOT NULL,
  checksum    text NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now()
);)sql";

// Holds the advisory lock for the life of the object, also across transactions.
class MigrationLock {
 public:
  explicit MigrationLock(pg::Connection& conn) : conn_(conn) {
    conn_.exec("SELECT pg_advisory_lock($1::bigint)", {lock_key});
  }
  MigrationLock(const MigrationLock&) = delete;
  MigrationLock& operator=(const MigrationLock&) = delete;
  ~MigrationLock() {
    if (!conn_.ok()) return;  // a lost session has lost its lock too
    try {
      conn_.exec("SELECT pg_advisory_unlock($1::bigint)", {lock_key});
    } catch (const Error&) {
      // Released when the session ends.
    }
  }

 private:
  pg::Connection& conn_;
};

std::map<int, std::string> applied_checksums(pg::Connection& conn) {
  const pg::Result r = conn.exec("SELECT version, checksum FROM hetscale.schema_migrations");
  std::map<int, std::string> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.emplace(static_cast<int>(r.integer(i, 0)), std::string(r.text(i, 1)));
  }
  return out;
}

std::string checksum(pg::Connection& conn, const Migration& m) {
  return std::string(conn.exec("SELECT md5($1)", {std::string(m.sql)}).text(0, 0));
}

std::string label(const Migration& m) {
  return std::to_string(m.version) + " (" + m.name + ")";
}

void check_not_newer(const std::map<int, std::string>& applied,
                     std::span<const Migration> migrations) {
  const int known = migrations.empty() ? 0 : migrations.back().version;
  if (!applied.empty() && applied.rbegin()->first > known) {
    throw Error("database: schema version " + std::to_string(applied.rbegin()->first) +
                " is newer than this hetscale knows (" + std::to_string(known) +
                "); use a newer hetscale");
  }
}

void apply(pg::Connection& conn, const Migration& m, const std::string& sum) {
  pg::Transaction tx(conn);
  conn.exec(m.sql);
  conn.exec("INSERT INTO hetscale.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
            {std::to_string(m.version), std::string(m.name), sum});
  tx.commit();
}

}  // namespace

int latest_schema_version() {
  const auto all = embedded_migrations();
  return all.empty() ? 0 : all.back().version;
}

MigrationReport migrate(pg::Connection& conn, std::span<const Migration> migrations,
                        std::optional<int> up_to) {
  MigrationLock lock(conn);
  conn.exec(create_bookkeeping);
  const std::map<int, std::string> applied = applied_checksums(conn);
  check_not_newer(applied, migrations);
  MigrationReport report;
  report.from_version = applied.empty() ? 0 : applied.rbegin()->first;
  report.to_version = report.from_version;
  for (const Migration& m : migrations) {
    if (up_to && m.version > *up_to) break;
    const std::string sum = checksum(conn, m);
    if (auto it = applied.find(m.version); it != applied.end()) {
      if (it->second != sum) {
        throw Error("database: migration " + label(m) +
                    " differs from the one applied to this database; migrations must never "
                    "be edited, add a new one");
      }
      continue;
    }
    apply(conn, m, sum);
    report.applied.push_back(m.version);
    report.to_version = std::max(report.to_version, m.version);
  }
  return report;
}

MigrationReport migrate(pg::Connection& conn, std::optional<int> up_to) {
  return migrate(conn, embedded_migrations(), up_to);
}

int schema_version(pg::Connection& conn) {
  const pg::Result exists =
      conn.exec("SELECT to_regclass('hetscale.schema_migrations') IS NOT NULL");
  if (exists.text(0, 0) != "t") return 0;
  const pg::Result r =
      conn.exec("SELECT coalesce(max(version), 0) FROM hetscale.schema_migrations");
  return static_cast<int>(r.integer(0, 0));
}

void require_current_schema(pg::Connection& conn) {
  const int version = schema_version(conn);
  const int latest = latest_schema_version();
  if (version < latest) {
    throw Error("database: schema version " + std::to_string(version) + ", this hetscale needs " +
                std::to_string(latest) + "; run 'hetscale db migrate --db URI' first");
  }
  if (version > latest) {
    throw Error("database: schema version " + std::to_string(version) +
                " is newer than this hetscale knows (" + std::to_string(latest) +
                "); use a newer hetscale");
  }
}

}  // namespace hetscale::collector
