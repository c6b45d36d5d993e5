// The throwaway PostgreSQL server: libpq connects with the fixture's URI, and a table
// can be created, written and read back.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>

#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Conn = std::unique_ptr<PGconn, ConnDeleter>;
using Result = std::unique_ptr<PGresult, ResultDeleter>;

Result exec(PGconn* conn, const char* sql, std::vector<const char*> params = {}) {
  return Result(PQexecParams(conn, sql, static_cast<int>(params.size()), nullptr, params.data(),
                             nullptr, nullptr, 0));
}

TEST(Postgres, CreateInsertAndReadBack) {
  Conn conn(PQconnectdb(test_db_uri().c_str()));
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  EXPECT_STREQ(PQdb(conn.get()), "hetscale");

  auto r = exec(conn.get(),
                "CREATE TEMP TABLE testbed_check (id integer PRIMARY KEY, host text NOT NULL)");
  ASSERT_EQ(PQresultStatus(r.get()), PGRES_COMMAND_OK) << PQerrorMessage(conn.get());
  r = exec(conn.get(), "INSERT INTO testbed_check VALUES ($1, $2), ($3, $4)",
           {"1", "n1", "2", "n4"});
  ASSERT_EQ(PQresultStatus(r.get()), PGRES_COMMAND_OK) << PQerrorMessage(conn.get());
  EXPECT_STREQ(PQcmdTuples(r.get()), "2");

  r = exec(conn.get(), "SELECT id, host FROM testbed_check ORDER BY id");
  ASSERT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK) << PQerrorMessage(conn.get());
  ASSERT_EQ(PQntuples(r.get()), 2);
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 0), "1");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 1), "n1");
  EXPECT_STREQ(PQgetvalue(r.get(), 1, 0), "2");
  EXPECT_STREQ(PQgetvalue(r.get(), 1, 1), "n4");
}

TEST(Postgres, TheServerIsOnLoopbackWithoutFsync) {
  Conn conn(PQconnectdb(test_db_uri().c_str()));
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  EXPECT_STREQ(PQhost(conn.get()), "127.0.0.1");
  auto r = exec(conn.get(), "SHOW fsync");
  ASSERT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK);
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 0), "off");
}

}  // namespace
}  // namespace hetscale::test
