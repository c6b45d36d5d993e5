// The migration runner against a real server: from empty, step by step, twice, from two
// processes at once, refusing a newer or edited database; roles.
#include "hetscale/collector/migrations.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "test_database.hpp"

namespace hetscale::test {
namespace {

using collector::embedded_migrations;
using collector::latest_schema_version;
using collector::migrate;
using collector::MigrationReport;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Migrations, EmbedsTheNumberedFilesInOrder) {
  const auto all = embedded_migrations();
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0].version, 1);
  EXPECT_STREQ(all[0].name, "tables");
  EXPECT_STREQ(all[1].name, "roles");
  EXPECT_STREQ(all[2].name, "views");
  EXPECT_STREQ(all[3].name, "partitions_predictions");
  EXPECT_STREQ(all[4].name, "within_tolerance");
  EXPECT_STREQ(all[5].name, "plan_rounds");
  EXPECT_EQ(latest_schema_version(), 6);
}

TEST(Migrations, FromEmptyAppliesAllAndRecordsTheVersion) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  EXPECT_EQ(collector::schema_version(conn), 0);
  const MigrationReport report = migrate(conn);
  EXPECT_EQ(report.from_version, 0);
  EXPECT_EQ(report.to_version, 6);
  EXPECT_EQ(report.applied, (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(collector::schema_version(conn), 6);
  EXPECT_EQ(
      db.scalar("SELECT string_agg(name, ',' ORDER BY version) FROM hetscale.schema_migrations"),
      "tables,roles,views,partitions_predictions,within_tolerance,plan_rounds");
  EXPECT_NO_THROW(collector::require_current_schema(conn));
}

TEST(Migrations, StepByStep) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  EXPECT_EQ(migrate(conn, 1).applied, (std::vector<int>{1}));
  EXPECT_EQ(db.scalar("SELECT to_regclass('hetscale.runs') IS NOT NULL"), "t");
  EXPECT_EQ(db.scalar("SELECT to_regclass('hetscale.run_efficiency') IS NOT NULL"), "f");
  EXPECT_EQ(error_of([&] { collector::require_current_schema(conn); }),
            "database: schema version 1, this hetscale needs 6; run 'hetscale db migrate --db "
            "URI' first");
  EXPECT_EQ(migrate(conn, 2).applied, (std::vector<int>{2}));
  EXPECT_EQ(db.scalar("SELECT count(*) FROM pg_roles WHERE rolname IN "
                      "('hetscale_writer', 'hetscale_reader')"),
            "2");
  const MigrationReport last = migrate(conn);
  EXPECT_EQ(last.from_version, 2);
  EXPECT_EQ(last.applied.front(), 3);
  EXPECT_EQ(last.to_version, latest_schema_version());
  EXPECT_EQ(db.scalar("SELECT to_regclass('hetscale.set_psi') IS NOT NULL"), "t");
}

TEST(Migrations, TwiceAppliesNothingTheSecondTime) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  migrate(conn);
  const MigrationReport again = migrate(conn);
  EXPECT_TRUE(again.applied.empty());
  EXPECT_EQ(again.from_version, latest_schema_version());
  EXPECT_EQ(again.to_version, latest_schema_version());
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.schema_migrations"),
            std::to_string(latest_schema_version()));
}

TEST(Migrations, TwoProcessesAtOnce) {
  TestDatabase db;
  MigrationReport first;
  MigrationReport second;
  std::string errors;
  std::mutex mutex;
  auto run = [&](MigrationReport& out) {
    try {
      pg::Connection conn = db.connect();
      out = migrate(conn);
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex);
      errors += e.what();
    }
  };
  std::thread a(run, std::ref(first));
  std::thread b(run, std::ref(second));
  a.join();
  b.join();
  EXPECT_EQ(errors, "");
  const int latest = latest_schema_version();
  EXPECT_EQ(first.applied.size() + second.applied.size(), static_cast<std::size_t>(latest));
  EXPECT_EQ(first.to_version, latest);
  EXPECT_EQ(second.to_version, latest);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.schema_migrations"),
            std::to_string(latest));
}

TEST(Migrations, RefusesADatabaseNewerThanTheBinary) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  migrate(conn);
  const int latest = latest_schema_version();
  conn.exec("INSERT INTO hetscale.schema_migrations (version, name, checksum) VALUES ($1, "
            "'future', 'x')",
            {std::to_string(latest + 1)});
  const std::string expected = "database: schema version " + std::to_string(latest + 1) +
                               " is newer than this hetscale knows (" + std::to_string(latest) +
                               "); use a newer hetscale";
  EXPECT_EQ(error_of([&] { migrate(conn); }), expected);
  EXPECT_EQ(error_of([&] { collector::require_current_schema(conn); }), expected);
}

TEST(Migrations, RefusesAnEditedMigration) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  const collector::Migration original[] = {{1, "first", "CREATE TABLE hetscale.t (a int);"}};
  const collector::Migration edited[] = {{1, "first", "CREATE TABLE hetscale.t (a bigint);"}};
  migrate(conn, original);
  EXPECT_EQ(error_of([&] { migrate(conn, edited); }),
            "database: migration 1 (first) differs from the one applied to this database; "
            "migrations must never be edited, add a new one");
}

TEST(Migrations, AFailingMigrationLeavesNoTrace) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  const collector::Migration broken[] = {
      {1, "good", "CREATE TABLE hetscale.a (x int);"},
      {2, "bad", "CREATE TABLE hetscale.b (x int); SELECT * FROM nowhere;"}};
  EXPECT_EQ(error_of([&] { migrate(conn, broken); }),
            "database: query failed: ERROR:  relation \"nowhere\" does not exist\n"
            "LINE 1: CREATE TABLE hetscale.b (x int); SELECT * FROM nowhere;\n"
            "                                                       ^");
  EXPECT_EQ(collector::schema_version(conn), 1);
  EXPECT_EQ(db.scalar("SELECT to_regclass('hetscale.b') IS NULL"), "t");
}

TEST(Roles, TheReaderCannotWrite) {
  TestDatabase db;
  db.migrate();
  pg::Connection conn = db.connect();
  conn.exec("SET ROLE hetscale_reader");
  EXPECT_EQ(conn.exec("SELECT count(*) FROM hetscale.run_efficiency").text(0, 0), "0");
  EXPECT_EQ(conn.exec("SELECT count(*) FROM hetscale.set_psi").text(0, 0), "0");
  try {
    conn.exec("INSERT INTO hetscale.sites (name, speed_unit, benchmark) VALUES ($1, $2, $3)",
              {"s", "Mflops", "dgemm"});
    FAIL() << "the reader wrote";
  } catch (const pg::DbError& e) {
    EXPECT_EQ(e.sqlstate(), "42501");  // insufficient_privilege
  }
}

TEST(Roles, TheWriterCanLoadButNotMigrate) {
  TestDatabase db;
  db.migrate();
  pg::Connection conn = db.connect();
  conn.exec("SET ROLE hetscale_writer");
  conn.exec("INSERT INTO hetscale.sites (name, speed_unit, benchmark) VALUES ($1, $2, $3)",
            {"s", "Mflops", "dgemm"});
  try {
    conn.exec("DROP TABLE hetscale.rank_timings");
    FAIL() << "the writer dropped a table";
  } catch (const pg::DbError& e) {
    EXPECT_EQ(e.sqlstate(), "42501");
  }
}

}  // namespace
}  // namespace hetscale::test
