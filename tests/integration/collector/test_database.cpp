// Per-test databases on the fixture's server.
#include "test_database.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>

#include "hetscale/collector/migrations.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

std::string unique_name() {
  static std::atomic<int> counter{0};
  return "hetscale_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
}

}  // namespace

std::string with_database(const std::string& uri, const std::string& database) {
  const auto query = uri.find('?');
  const std::string base = uri.substr(0, query);
  const std::string rest = query == std::string::npos ? "" : uri.substr(query);
  const auto scheme = base.find("://");
  const auto slash = base.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return (slash == std::string::npos ? base : base.substr(0, slash)) + "/" + database + rest;
}

TestDatabase::TestDatabase() : server_uri_(test_db_uri()), name_(unique_name()) {
  pg::Connection::open(server_uri_).exec("CREATE DATABASE " + name_);
  uri_ = with_database(server_uri_, name_);
}

TestDatabase::~TestDatabase() {
  try {
    pg::Connection::open(server_uri_).exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  } catch (const std::exception&) {
    // Left for the throwaway server to take away.
  }
}

void TestDatabase::migrate() const {
  pg::Connection conn = connect();
  collector::migrate(conn);
}

std::string TestDatabase::scalar(const std::string& sql) const {
  pg::Connection conn = connect();
  const pg::Result r = conn.exec(sql);
  return r.is_null(0, 0) ? "NULL" : std::string(r.text(0, 0));
}

TestLogin::TestLogin(const TestDatabase& db, const std::string& what, const std::string& member_of)
    : db_(db), name_("hetscale_test_" + what + "_" + std::to_string(::getpid())) {
  const std::string& uri = db_.uri();
  const auto at = uri.find("://postgres@");
  if (at == std::string::npos) throw std::runtime_error("test: expected a postgres@ URI: " + uri);
  uri_ = std::string(uri).replace(at, 12, "://" + name_ + "@");
  if (member_of == "hetscale_writer") {
    add_login(db_, name_, "writer");  // as docs/admin.md sets a user up
  } else if (member_of.empty()) {
    db_.connect().exec("CREATE ROLE " + name_ + " LOGIN");
  } else {
    db_.connect().exec("CREATE ROLE " + name_ + " LOGIN IN ROLE " + member_of);
  }
}

void TestLogin::add_as(const std::string& kind) const {
  add_login(db_, name_, kind);
}

void add_login(const TestDatabase& db, const std::string& login, const std::string& kind) {
  const std::string command = "psql -X -q -v ON_ERROR_STOP=1 -d '" + db.uri() + "' -v login='" +
                              login + "' -v kind='" + kind + "' -f '" HETSCALE_SOURCE_DIR
                              "/db/add_login.sql' >/dev/null";
  if (std::system(command.c_str()) != 0)
    throw std::runtime_error("test: db/add_login.sql failed: " + command);
}

TestLogin::~TestLogin() {
  try {
    db_.connect().exec("DROP OWNED BY " + name_ + "; DROP ROLE " + name_);
  } catch (const std::exception&) {
    // Left for the throwaway server to take away.
  }
}

}  // namespace hetscale::test
