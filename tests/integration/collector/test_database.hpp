// A fresh database per test on the fixture's PostgreSQL server (HETSCALE_TEST_DB_URI),
// dropped at the end, so that tests never see each other's rows.
#pragma once

#include <string>

#include "hetscale/collector/pg.hpp"

namespace hetscale::test {

/// `uri` with its database name replaced (query parameters kept).
std::string with_database(const std::string& uri, const std::string& database);

class TestDatabase {
 public:
  TestDatabase();  // CREATE DATABASE hetscale_test_<pid>_<n>
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;
  ~TestDatabase();  // DROP DATABASE ... WITH (FORCE)

  [[nodiscard]] const std::string& uri() const noexcept { return uri_; }
  [[nodiscard]] pg::Connection connect() const { return pg::Connection::open(uri_); }
  /// A migrated database, ready for loading.
  void migrate() const;
  /// First column of the first row of a query, as text.
  [[nodiscard]] std::string scalar(const std::string& sql) const;

 private:
  std::string server_uri_;
  std::string name_;
  std::string uri_;
};

/// db/add_login.sql run verbatim by psql as the server's superuser in `db` (docs/admin.md,
/// "Database users"): `login` becomes a login of `kind` (writer, reader, admin).
void add_login(const TestDatabase& db, const std::string& login, const std::string& kind);

/// A LOGIN role of the test server, member of `member_of` (hetscale_reader, hetscale_admin;
/// for hetscale_writer, a writer login set up by db/add_login.sql; "" a member of no role),
/// named hetscale_test_<what>_<pid>; dropped (with what it owns in `db`) at the end. Roles
/// belong to the whole server: the pid keeps test processes that run at once apart.
class TestLogin {
 public:
  TestLogin(const TestDatabase& db, const std::string& what, const std::string& member_of);
  /// db/add_login.sql for this login as `kind` (writer, reader, admin).
  void add_as(const std::string& kind) const;
  TestLogin(const TestLogin&) = delete;
  TestLogin& operator=(const TestLogin&) = delete;
  ~TestLogin();

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The database's URI with this role as the user (the test server trusts local users).
  [[nodiscard]] const std::string& uri() const noexcept { return uri_; }
  [[nodiscard]] pg::Connection connect() const { return pg::Connection::open(uri_); }

 private:
  const TestDatabase& db_;
  std::string name_;
  std::string uri_;
};

}  // namespace hetscale::test
