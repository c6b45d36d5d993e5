// The migration runner against a real server: from empty, step by step, twice, from two
// processes at once, refusing a newer or edited database; roles.
#include "hetscale/collector/migrations.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hetscale/site/run_record.hpp"
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

std::string sqlstate_of(pg::Connection& conn, const std::string& sql) {
  try {
    conn.exec(sql);
    return "no error";
  } catch (const pg::DbError& e) {
    return e.sqlstate();
  }
}

TEST(Migrations, EmbedsTheNumberedFilesInOrder) {
  const auto all = embedded_migrations();
  ASSERT_EQ(all.size(), 27u);
  EXPECT_EQ(all[0].version, 1);
  EXPECT_STREQ(all[0].name, "tables");
  EXPECT_STREQ(all[1].name, "roles");
  EXPECT_STREQ(all[2].name, "views");
  EXPECT_STREQ(all[3].name, "partitions_predictions");
  EXPECT_STREQ(all[4].name, "within_tolerance");
  EXPECT_STREQ(all[5].name, "plan_rounds");
  EXPECT_STREQ(all[6].name, "explicit_grants");
  EXPECT_STREQ(all[7].name, "run_engine");
  EXPECT_STREQ(all[8].name, "availability");
  EXPECT_STREQ(all[9].name, "slurm_cluster");
  EXPECT_STREQ(all[10].name, "owners");
  EXPECT_STREQ(all[11].name, "view_owners");
  EXPECT_STREQ(all[12].name, "shared_rows");
  EXPECT_STREQ(all[13].name, "writer_logins");
  EXPECT_STREQ(all[14].name, "weights_digest");
  EXPECT_STREQ(all[15].name, "run_outcome");
  EXPECT_STREQ(all[16].name, "task_times");
  EXPECT_STREQ(all[17].name, "set_time_split");
  EXPECT_STREQ(all[18].name, "public_schema");
  EXPECT_STREQ(all[19].name, "private_columns");
  EXPECT_STREQ(all[20].name, "intervals");
  EXPECT_STREQ(all[21].name, "forecast_intervals");
  EXPECT_EQ(all[22].version, 23);
  EXPECT_STREQ(all[22].name, "interval_reasons");
  EXPECT_EQ(all[23].version, 24);
  EXPECT_STREQ(all[23].name, "forecast_interval_reasons");
  EXPECT_EQ(all[24].version, 25);
  EXPECT_STREQ(all[24].name, "refine_precision");
  EXPECT_EQ(all[25].version, 26);
  EXPECT_STREQ(all[25].name, "network_probes");
  EXPECT_EQ(all[26].version, 27);
  EXPECT_STREQ(all[26].name, "group_hardware");
  EXPECT_EQ(latest_schema_version(), 27);
}

TEST(Migrations, FromEmptyAppliesAllAndRecordsTheVersion) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  EXPECT_EQ(collector::schema_version(conn), 0);
  const MigrationReport report = migrate(conn);
  EXPECT_EQ(report.from_version, 0);
  EXPECT_EQ(report.to_version, 27);
  EXPECT_EQ(report.applied, (std::vector<int>{1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                                              15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27}));
  EXPECT_EQ(collector::schema_version(conn), 27);
  EXPECT_EQ(
      db.scalar("SELECT string_agg(name, ',' ORDER BY version) FROM hetscale.schema_migrations"),
      "tables,roles,views,partitions_predictions,within_tolerance,plan_rounds,explicit_grants,"
      "run_engine,availability,slurm_cluster,owners,view_owners,shared_rows,writer_logins,weights_digest,"
      "run_outcome,task_times,set_time_split,public_schema,private_columns,intervals,forecast_intervals,"
      "interval_reasons,forecast_interval_reasons,refine_precision,network_probes,group_hardware");
  EXPECT_NO_THROW(collector::require_current_schema(conn));
}

TEST(Migrations, StepByStep) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  EXPECT_EQ(migrate(conn, 1).applied, (std::vector<int>{1}));
  EXPECT_EQ(db.scalar("SELECT to_regclass('hetscale.runs') IS NOT NULL"), "t");
  EXPECT_EQ(db.scalar("SELECT to_regclass('hetscale.run_efficiency') IS NOT NULL"), "f");
  EXPECT_EQ(error_of([&] { collector::require_current_schema(conn); }),
            "database: schema version 1, this hetscale needs 27; run 'hetscale db migrate --db "
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
            std::to_string(embedded_migrations().size()));
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
  const std::size_t count = embedded_migrations().size();  // versions may skip a number
  EXPECT_EQ(first.applied.size() + second.applied.size(), count);
  EXPECT_EQ(first.to_version, latest);
  EXPECT_EQ(second.to_version, latest);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.schema_migrations"), std::to_string(count));
}

TEST(Migrations, RefusesADatabaseNewerThanTheBinary) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  migrate(conn);
  const int latest = latest_schema_version();
  conn.exec(
      "INSERT INTO hetscale.schema_migrations (version, name, checksum) VALUES ($1, "
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

// Migrations 1-4 and 9 had comment lines reworded after release: a database that recorded
// their former checksums migrates on, and an edit of their code is still refused.
TEST(Migrations, AcceptsTheChecksumsRecordedBeforeCommentsWereReworded) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  migrate(conn);
  const std::pair<int, std::string> former[] = {{1, "24032d01f42d01ac6d4e32d608accd69"},
                                                {2, "35daf25c1ab8c09c9a03ff35e4432ffc"},
                                                {3, "59a6245b20583c9c8ae35838730ebf79"},
                                                {4, "9e9ded0b311ee1fe4aec321ad8ec764b"},
                                                {9, "0757d6f5813562e251c8486461c9fd85"}};
  for (const auto& [version, checksum] : former)
    conn.exec("UPDATE hetscale.schema_migrations SET checksum = $2 WHERE version = $1",
              {std::to_string(version), checksum});
  EXPECT_TRUE(migrate(conn).applied.empty());

  // The same recorded checksum with a code line added to migration 3 is an edit.
  std::vector<collector::Migration> edited(embedded_migrations().begin(), embedded_migrations().end());
  const std::string changed = std::string(edited[2].sql) + "\nSELECT 1;\n";
  edited[2].sql = changed.c_str();
  EXPECT_EQ(error_of([&] { migrate(conn, edited); }),
            "database: migration 3 (views) differs from the one applied to this database; "
            "migrations must never be edited, add a new one");
  // A comment line added is not.
  const std::string commented = std::string(embedded_migrations()[2].sql) + "-- a remark\n";
  edited[2].sql = commented.c_str();
  EXPECT_TRUE(migrate(conn, edited).applied.empty());
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

// Migration 24 on top of 22 and 23: a forecast row stored before 22 has no interval
// stored (`not stored`), a row stored under 22 gets the short reason its note gives, and
// an interval with a bound, or open at both ends, none.
TEST(Migrations, ForecastIntervalReasonsFillTheRowsStoredBefore) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  migrate(conn, 21);
  conn.exec("INSERT INTO hetscale.experiments (name) VALUES ('e')");
  const auto insert = [&](const std::string& columns, int batch, int position, double target,
                          const std::string& psi, const std::string& values) {
    conn.exec(fmt::format(
        "INSERT INTO hetscale.predictions (batch, position, experiment_id, target_efficiency, "
        "kind, label, node_count, marked_speed, predicted_parameter, predicted_psi, model{}) "
        "SELECT {}, {}, experiment_id, {}, 'doubling', 'd', 2, 1, 100, {}, 'm'{} "
        "FROM hetscale.experiments",
        columns, batch, position, target, psi, values));
  };
  insert("", 1, 0, 0.5, "0.9", "");  // before migration 22
  EXPECT_EQ(migrate(conn, 22).applied, (std::vector<int>{22}));
  const std::string intervals =
      ", predicted_parameter_low, predicted_parameter_high, interval_level, interval_method, "
      "interval_resamples, interval_note, psi_interval_note";
  const std::string too_few =
      "'no interval: 2 runs for 3 fitted coefficients of the time model; an interval needs "
      "more runs than coefficients'";
  insert(intervals, 2, 0, 0.6, "0.9", ", NULL, NULL, 0.9, 'b', 10, " + too_few + ", " + too_few);
  insert(intervals, 2, 1, 0.6, "NULL",
         ", NULL, NULL, 0.9, 'b', 10, 'no interval: the forecast has no parameter at the "
         "target', NULL");
  insert(intervals, 2, 2, 0.6, "0.9",
         ", NULL, NULL, 0.9, 'b', 10, 'lower bound open: 9 of 10 fall below; upper bound open: "
         "1 of 10 fall above', NULL");
  insert(intervals, 2, 3, 0.6, "0.9",
         ", 90, NULL, 0.9, 'b', 10, 'upper bound open: 1 of 10 fall above', NULL");
  EXPECT_EQ(migrate(conn, 23).applied, (std::vector<int>{23}));
  EXPECT_EQ(migrate(conn, 24).applied, (std::vector<int>{24}));
  EXPECT_EQ(db.scalar("SELECT string_agg(target_efficiency || ' ' || position || ': ' || "
                      "coalesce(interval_reason, '-') || ', ' || "
                      "coalesce(psi_interval_reason, '-'), '; ' "
                      "ORDER BY target_efficiency, position) FROM hetscale.capacity_forecast"),
            "0.5 0: not stored, not stored; 0.6 0: too few runs, too few runs; "
            "0.6 1: no parameter, -; 0.6 2: -, -; 0.6 3: -, -");
  // The table holds the reasons of the rows stored under migration 22 only.
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.predictions WHERE interval_reason IS NOT "
                      "NULL"),
            "2");
}

// Migration 25: a round loaded before it keeps the precision and budget its plan asks in
// columns of their own, and set_required_work shows those of the experiment's latest plan
// (NULL when it asks none), read by hetscale_reader, which may not read the plan.
TEST(Migrations, RefinePrecisionFillsTheRoundsLoadedBeforeFromTheirPlan) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  migrate(conn, 24);
  conn.exec("INSERT INTO hetscale.experiments (name) VALUES ('e'), ('f')");
  const auto round = [&](const std::string& experiment, int number, const std::string& created,
                         const std::string& refine) {
    conn.exec(fmt::format(
        "INSERT INTO hetscale.plan_rounds (experiment_id, round, plan, plan_created) "
        "SELECT experiment_id, {}, '{{\"experiment\": {{\"refine\": {}}}}}', '{}' "
        "FROM hetscale.experiments WHERE name = '{}'",
        number, refine, created, experiment));
  };
  round("e", 0, "2026-12-01", R"({"precision": 0.2, "max_runs_per_set": 8})");
  round("e", 1, "2026-12-02", R"({"precision": 0.1, "max_runs_per_set": 16})");  // the latest
  round("f", 0, "2026-12-01", R"({"tolerance": 0.05})");
  for (const char* name : {"e", "f"})
    conn.exec(fmt::format(
        "INSERT INTO hetscale.required_work (experiment_id, set_index, target_efficiency, "
        "node_count, marked_speed, status, explanation) SELECT experiment_id, 0, 0.5, 2, 1, "
        "'too_few_points', 'x' FROM hetscale.experiments WHERE name = '{}'",
        name));
  EXPECT_EQ(migrate(conn, 25).applied, (std::vector<int>{25}));
  EXPECT_EQ(db.scalar("SELECT string_agg(round || ': ' || coalesce(refine_precision::text, '-') "
                      "|| ' ' || coalesce(refine_max_runs_per_set::text, '-'), '; ' "
                      "ORDER BY experiment_id, round) FROM hetscale.plan_rounds"),
            "0: 0.2 8; 1: 0.1 16; 0: - -");
  conn.exec("SET ROLE hetscale_reader");
  EXPECT_EQ(db.scalar("SELECT string_agg(experiment || ': ' || coalesce(precision::text, '-') || "
                      "' ' || coalesce(max_runs_per_set::text, '-'), '; ' ORDER BY experiment) "
                      "FROM hetscale.set_required_work"),
            "e: 0.1 16; f: - -");
  conn.exec("RESET ROLE");
  // A budget without a precision is refused, as the plan reader refuses it.
  EXPECT_EQ(sqlstate_of(conn, "UPDATE hetscale.plan_rounds SET refine_precision = NULL"),
            "23514");  // check_violation
}

TEST(Migrations, RunEngineMakesStoredRunsSlurmRunsAndChecksWhatTheRecordReaderChecks) {
  TestDatabase db;
  pg::Connection conn = db.connect();
  migrate(conn, 7);
  conn.exec("INSERT INTO hetscale.experiments (name) VALUES ('e')");
  conn.exec(
      "INSERT INTO hetscale.runs (run_key, experiment_id, code, workload, parameters, work, "
      "wall_seconds, marked_speed, speed_unit, weights_source, repetition, node_list, verified, "
      "fingerprint, source_file, source_line) "
      "SELECT '\\x00', experiment_id, 'mm', 'mm', '{}', 1, 1, 0, '', 'equal', 0, '', true, "
      "'{}', 'f', 1 FROM hetscale.experiments");
  EXPECT_EQ(migrate(conn, 8).applied, (std::vector<int>{8}));
  EXPECT_EQ(db.scalar("SELECT engine || ' ' || (platform_hash IS NULL) FROM hetscale.runs"),
            "slurm true");
  // The CHECKs accept exactly what the site library's reader accepts.
  for (const std::string engine : {"slurm", "mpirun", "simgrid", "docker", "Slurm", ""}) {
    EXPECT_EQ(sqlstate_of(conn, "UPDATE hetscale.runs SET engine = '" + engine + "'"),
              is_run_engine(engine) ? "no error" : "23514")  // check_violation
        << engine;
  }
  EXPECT_EQ(sqlstate_of(conn, "UPDATE hetscale.runs SET engine = NULL"), "23502");
  for (const std::string hash :
       {"00aF19", "9f86d081884c7d65", "ABCDEF", "", "sha256:00ff", "not hex", "12 34", "0x12"}) {
    EXPECT_EQ(sqlstate_of(conn, "UPDATE hetscale.runs SET platform_hash = '" + hash + "'"),
              is_platform_hash(hash) ? "no error" : "23514")
        << hash;
  }
  // The dashboards' role reads both through the views of runs.
  conn.exec(
      "UPDATE hetscale.runs SET engine = 'simgrid', platform_hash = '00ff', "
      "slurm_job_id = 5");
  conn.exec("SET ROLE hetscale_reader");
  for (const std::string view : {"hetscale.run_efficiency", "hetscale.run_slurm_jobs"}) {
    EXPECT_EQ(conn.exec("SELECT engine || ' ' || platform_hash FROM " + view).text(0, 0),
              "simgrid 00ff")
        << view;
  }
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
  conn.exec("INSERT INTO hetscale.experiments (name, code) VALUES ($1, $2)", {"e", "mm"});
  try {
    conn.exec("DROP TABLE hetscale.rank_timings");
    FAIL() << "the writer dropped a table";
  } catch (const pg::DbError& e) {
    EXPECT_EQ(e.sqlstate(), "42501");
  }
}

TEST(Roles, TheWriterLoginCannotTouchTheMigrationBookkeeping) {
  TestDatabase db;
  db.migrate();
  // A login role that holds only hetscale_writer, as a deployment gives the collector.
  const TestLogin writer(db, "writer", "hetscale_writer");
  pg::Connection conn = writer.connect();
  EXPECT_NO_THROW(collector::require_current_schema(conn));  // it may read the version
  for (const std::string sql :
       {"INSERT INTO hetscale.schema_migrations (version, name, checksum) VALUES (99, 'x', 'y')",
        "UPDATE hetscale.schema_migrations SET checksum = 'x'",
        "DELETE FROM hetscale.schema_migrations", "TRUNCATE hetscale.schema_migrations",
        "DROP TABLE hetscale.schema_migrations"}) {
    EXPECT_EQ(sqlstate_of(conn, sql), "42501") << sql;  // insufficient_privilege
  }
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.schema_migrations"),
            std::to_string(embedded_migrations().size()));
}

TEST(Roles, TheWriterLoginCannotChangeHistory) {
  TestDatabase db;
  db.migrate();
  // A login role that holds only hetscale_writer, as a deployment gives the collector.
  const TestLogin writer(db, "writer", "hetscale_writer");
  pg::Connection conn = writer.connect();
  for (const std::string table :
       {"hetscale.runs", "hetscale.rank_timings", "hetscale.benchmark_history",
        "hetscale.availability_history", "hetscale.slurm_jobs", "hetscale.predictions",
        "hetscale.speed_units"}) {
    EXPECT_EQ(sqlstate_of(conn, "DELETE FROM " + table), "42501") << table;
    EXPECT_EQ(sqlstate_of(conn, "TRUNCATE " + table), "42501") << table;
    EXPECT_EQ(sqlstate_of(conn, "ALTER TABLE " + table + " ADD COLUMN x int"), "42501") << table;
  }
  EXPECT_EQ(sqlstate_of(conn, "UPDATE hetscale.runs SET wall_seconds = 1"), "42501");
  EXPECT_EQ(sqlstate_of(conn, "UPDATE hetscale.rank_timings SET wall_seconds = 1"), "42501");
  EXPECT_EQ(sqlstate_of(conn, "UPDATE hetscale.benchmark_history SET marked_speed = 1"), "42501");
  EXPECT_EQ(sqlstate_of(conn, "UPDATE hetscale.availability_history SET th = 1"), "42501");
  EXPECT_EQ(sqlstate_of(conn, "INSERT INTO hetscale.speed_units VALUES ('x')"), "42501");
  EXPECT_EQ(sqlstate_of(conn, "CREATE TABLE hetscale.mine (x int)"), "42501");
}

TEST(Roles, TheWriterLoginLoadsPlansRunsAndJobsAndAnalyzes) {
  TestDatabase db;
  db.migrate();
  // A login role that holds only hetscale_writer, as a deployment gives the collector.
  const TestLogin writer(db, "writer", "hetscale_writer");
  pg::Connection conn = writer.connect();
  // What a load and a re-load do: upserts, appends, replaced results. The private column
  // code (migration 20) is set from the value, as the collector does: EXCLUDED.code would
  // read it.
  conn.exec(
      "INSERT INTO hetscale.experiments (name, code) VALUES ('e', 'mm') "
      "ON CONFLICT (cluster, owner, name) DO UPDATE SET code = 'mm'");
  conn.exec(
      "INSERT INTO hetscale.experiments (name, code) VALUES ('e', 'ge') "
      "ON CONFLICT (cluster, owner, name) DO UPDATE SET code = 'ge'");
  EXPECT_EQ(sqlstate_of(conn,
                        "INSERT INTO hetscale.experiments (name, code) VALUES ('e', 'lu') "
                        "ON CONFLICT (cluster, owner, name) DO UPDATE SET code = EXCLUDED.code"),
            "42501");
  EXPECT_EQ(conn.exec("SELECT code FROM hetscale.own_experiments").text(0, 0), "ge");
  EXPECT_EQ(sqlstate_of(conn, "DELETE FROM hetscale.required_work"), "no error");
  EXPECT_EQ(sqlstate_of(conn, "DELETE FROM hetscale.partitions"), "no error");
}

}  // namespace
}  // namespace hetscale::test
