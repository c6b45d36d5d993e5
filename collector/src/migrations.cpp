// Applying the embedded migrations in order, under an advisory lock.
#include "hetscale/collector/migrations.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <string_view>

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

// Migrations whose comment lines were reworded after databases had applied them: the
// checksum those databases recorded, and the checksum of the text without its comment
// lines, which the migration as embedded must still have (only comments changed).
struct RewordedMigration {
  int version;
  std::string_view applied_checksum;
  std::string_view code_checksum;
};
constexpr RewordedMigration reworded_migrations[] = {
    {1, "24032d01f42d01ac6d4e32d608accd69", "d6e54966c99fca15dfd11ee5d8493aa5"},
    {2, "35daf25c1ab8c09c9a03ff35e4432ffc", "32d62cdb883b7eed06c16137d8d2338b"},
    {3, "59a6245b20583c9c8ae35838730ebf79", "9f206fe2dc355f590bd9af015fdbd7fa"},
    {4, "9e9ded0b311ee1fe4aec321ad8ec764b", "fe0e76ae3bb1f6052baf486f1e9aa0cf"},
    {9, "0757d6f5813562e251c8486461c9fd85", "600d59670401ae5f12bc3892c3f4680c"},
};

// The text without the lines whose first non-blank characters are "--".
std::string without_comment_lines(std::string_view sql) {
  std::string code;
  while (!sql.empty()) {
    const std::size_t end = sql.find('\n');
    const std::string_view line = sql.substr(0, end == std::string_view::npos ? sql.size() : end + 1);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line.substr(first, 2) != "--") code += line;
    sql.remove_prefix(line.size());
  }
  return code;
}

// A database that recorded `applied` for `m` before its comments were reworded.
bool applied_before_rewording(pg::Connection& conn, const Migration& m, const std::string& applied) {
  for (const RewordedMigration& r : reworded_migrations) {
    if (r.version != m.version || r.applied_checksum != applied) continue;
    return conn.exec("SELECT md5($1)", {without_comment_lines(m.sql)}).text(0, 0) == r.code_checksum;
  }
  return false;
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

// Who may create objects in the schema public besides its owner: PUBLIC, else those of
// hetscale's roles and logins (the writer and reader roles, writer logins, members of the
// reader role) that may; the direct grants a REVOKE must take to stop it; the owner (the
// database's, where the schema belongs to pg_database_owner, PostgreSQL 15). A
// superuser or a member of the owner may create anyway: not counted. {writer_logins}: the
// writer logins' condition where the database lists them (migration 14).
constexpr const char* public_schema_creators = R"sql(
WITH s AS (SELECT oid, nspowner, nspacl FROM pg_namespace WHERE nspname = 'public'),
logins AS (
  SELECT r.oid, r.rolname FROM pg_roles r
  WHERE r.rolname IN ('hetscale_writer', 'hetscale_reader')
     OR r.oid IN (SELECT m.member FROM pg_auth_members m
                  JOIN pg_roles g ON g.oid = m.roleid
                  WHERE g.rolname = 'hetscale_reader')
     {writer_logins}),
creators AS (
  SELECT 'PUBLIC' AS name, 0::oid AS oid FROM s
  WHERE has_schema_privilege('public', s.oid, 'CREATE')
  UNION ALL
  SELECT quote_ident(l.rolname), l.oid FROM logins l, s
  WHERE NOT has_schema_privilege('public', s.oid, 'CREATE')
    AND has_schema_privilege(l.oid, s.oid, 'CREATE')
    AND NOT pg_has_role(l.oid, s.nspowner, 'USAGE')
    AND NOT (SELECT rolsuper FROM pg_roles WHERE oid = l.oid)),
grants AS (
  SELECT DISTINCT CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END AS name
  FROM s, aclexplode(s.nspacl) a
  WHERE a.privilege_type = 'CREATE' AND a.grantee <> s.nspowner
    AND EXISTS (SELECT FROM creators c
                WHERE c.oid = a.grantee
                   OR (c.oid <> 0 AND a.grantee <> 0 AND pg_has_role(c.oid, a.grantee, 'USAGE'))))
SELECT (SELECT string_agg(name, ', ' ORDER BY oid <> 0, name) FROM creators),
       (SELECT string_agg(name, ', ' ORDER BY name <> 'PUBLIC', name) FROM grants),
       (SELECT CASE WHEN s.nspowner = to_regrole('pg_database_owner')::oid
                    THEN (SELECT d.datdba::regrole::text FROM pg_database d
                          WHERE d.datname = current_database())
                    ELSE s.nspowner::regrole::text END
        FROM s))sql";

// A warning when someone besides the owner may create objects in the schema public.
std::optional<std::string> public_schema_warning(pg::Connection& conn) {
  const bool logins =
      conn.exec("SELECT to_regclass('hetscale.writer_logins') IS NOT NULL").text(0, 0) == "t";
  const pg::Result r = conn.exec(fmt::format(
      fmt::runtime(public_schema_creators),
      fmt::arg("writer_logins",
               logins ? "OR r.rolname IN (SELECT login FROM hetscale.writer_logins)" : "")));
  if (r.is_null(0, 0)) return std::nullopt;
  const std::string grantees = r.is_null(0, 1) ? "PUBLIC" : std::string(r.text(0, 1));
  return fmt::format(
      "{} may create objects in schema public, where a function or operator can take over a "
      "name that other users' sessions call (docs/admin.md, \"PostgreSQL settings\"); as its "
      "owner ({}) run: REVOKE CREATE ON SCHEMA public FROM {};",
      r.text(0, 0), r.text(0, 2), grantees);
}


// Functions and operators in schema public whose owner is neither a superuser nor a
// member of the schema's owner: created by someone who could create there, they take over
// any name they share in a session that does not pin its search_path, whether or not
// that right has been taken back since.
constexpr const char* public_schema_strangers = R"sql(
WITH s AS (SELECT oid, nspowner FROM pg_namespace WHERE nspname = 'public'),
objects AS (
  SELECT p.oid::regprocedure::text AS name, p.proowner AS owner
  FROM pg_proc p, s WHERE p.pronamespace = s.oid
  UNION ALL
  SELECT o.oid::regoperator::text, o.oprowner
  FROM pg_operator o, s WHERE o.oprnamespace = s.oid)
SELECT string_agg(o.name || ' (' || quote_ident(r.rolname) || ')', ', ' ORDER BY o.name)
FROM objects o JOIN pg_roles r ON r.oid = o.owner, s
WHERE NOT r.rolsuper AND NOT pg_has_role(o.owner, s.nspowner, 'USAGE'))sql";

// A warning naming the functions and operators of schema public that others than its
// owner and the superusers own.
std::optional<std::string> public_schema_strangers_warning(pg::Connection& conn) {
  const pg::Result r = conn.exec(public_schema_strangers);
  if (r.is_null(0, 0)) return std::nullopt;
  return fmt::format(
      "schema public holds functions or operators that neither its owner nor a superuser "
      "owns, which take over the names they share in any session that does not pin its "
      "search_path (docs/admin.md, \"PostgreSQL settings\"): {}; drop those the centre "
      "did not create on purpose",
      r.text(0, 0));
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
      if (it->second != sum && !applied_before_rewording(conn, m, it->second)) {
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
  // Writer logins hold hetscale_writer's rights themselves (migration 14): what the
  // migrations just applied gave or took from hetscale_writer reaches them too.
  if (!report.applied.empty() &&
      conn.exec("SELECT to_regprocedure('hetscale.grant_writer_rights()') IS NOT NULL")
              .text(0, 0) == "t")
    conn.exec("SELECT hetscale.grant_writer_rights()");
  if (auto warning = public_schema_warning(conn)) report.warnings.push_back(std::move(*warning));
  if (auto warning = public_schema_strangers_warning(conn))
    report.warnings.push_back(std::move(*warning));
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
