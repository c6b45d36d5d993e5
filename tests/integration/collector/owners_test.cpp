// Many users in one database (migration 11; docs/schema.md, "Owners and row-level
// security"): two real login roles holding hetscale_writer collect an experiment of the
// same name through the collector, as plain users under row-level security; neither can
// change the other's rows; a reader login sees both and writes nothing; an admin login
// migrates and changes every row.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <vector>

#include "hetscale/collector/analysis.hpp"
#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/experiment_lookup.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/plan_loader.hpp"
#include "hetscale/site/round_plan.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

const fs::path plan_fixture = fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

std::string sqlstate_of(pg::Connection& conn, const std::string& sql) {
  try {
    conn.exec(sql);
    return "no error";
  } catch (const pg::DbError& e) {
    return e.sqlstate();
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

long long affected(pg::Connection& conn, const std::string& sql) {
  return conn.exec(sql).affected();
}

// Runs of set 0 (2 nodes) at N = 10, 20, 40, 80, two repetitions each: E_s brackets 0.5.
std::vector<nlohmann::json> records(int count, const std::optional<std::string>& cluster) {
  std::vector<nlohmann::json> out;
  for (int i = 0; i < count; ++i) {
    const double n = 10 << (i / 2);
    const double work = 2 * n * n * n;
    const double seconds = work / (n / (n + 40.0) * 100 * 1e6);
    nlohmann::json r = record_json("mm-scaling", n, 0, i % 2, work, seconds, 100, 2, i);
    if (cluster) r["slurm"]["cluster"] = *cluster;
    out.push_back(std::move(r));
  }
  return out;
}

// Migrated on construction, before the logins join the roles the migrations create (on a
// fresh server no role exists yet).
struct MigratedDatabase : TestDatabase {
  MigratedDatabase() { migrate(); }
};

class Owners : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-owners-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // The fixture's plan under the name both users give their study.
    nlohmann::json plan = nlohmann::json::parse(std::ifstream(plan_fixture));
    plan["experiment"]["name"] = "mm-scaling";
    plan_ = dir_ / "mm-scaling.json";
    std::ofstream(plan_) << plan.dump();
    // The site is the administrator's (`hetscale groups --db`): the users' plans name it.
    collector::store_site(db_.uri(), load_round_plan(plan_).site, {});
    // Alice's runs name their cluster, Bob's do not; Bob's 6 are the first 6 of Alice's 8,
    // record for record (the same run keys).
    alice_report_ = collect(alice_, "alice.jsonl", records(8, "alpha"));
    bob_report_ = collect(bob_, "bob.jsonl", records(6, std::nullopt));
    alice_id_ = db_.scalar("SELECT experiment_id FROM hetscale.experiments WHERE owner = '" +
                           alice_.name() + "'");
    bob_id_ = db_.scalar("SELECT experiment_id FROM hetscale.experiments WHERE owner = '" +
                         bob_.name() + "'");
  }
  void TearDown() override { fs::remove_all(dir_); }

  collector::CollectReport collect(const TestLogin& user, const std::string& file,
                                   const std::vector<nlohmann::json>& runs) {
    write_lines(dir_ / file, dump_all(runs));
    collector::CollectOptions options;
    options.inputs = {plan_.string(), (dir_ / file).string()};
    std::istringstream no_stdin;
    std::ostringstream log;
    return collector::collect(user.uri(), options, no_stdin, log);
  }

  // Declared first: dropped last, after the roles.
  MigratedDatabase db_;
  TestLogin alice_{db_, "alice", "hetscale_writer"};
  TestLogin bob_{db_, "bob", "hetscale_writer"};
  TestLogin reader_{db_, "reader", "hetscale_reader"};
  TestLogin admin_{db_, "admin", "hetscale_admin"};
  fs::path dir_;
  fs::path plan_;
  collector::CollectReport alice_report_;
  collector::CollectReport bob_report_;
  std::string alice_id_;
  std::string bob_id_;
};

TEST_F(Owners, TwoUsersCollectingTheSameNameGetTwoExperiments) {
  EXPECT_EQ(alice_report_.runs_added, 8);
  EXPECT_EQ(bob_report_.runs_added, 6);  // not taken for Alice's runs of the same keys
  EXPECT_EQ(bob_report_.runs_present, 0);
  EXPECT_NE(alice_id_, bob_id_);
  // owner/cluster/name/plan loaded/runs: the plan and the runs went to each user's own.
  EXPECT_EQ(db_.scalar(R"(
      SELECT string_agg(format('%s/%s/%s/%s/%s', owner, cluster, name, plan_created IS NOT NULL,
                               (SELECT count(*) FROM hetscale.runs r
                                WHERE r.experiment_id = e.experiment_id)),
                        ' ' ORDER BY owner)
      FROM hetscale.experiments e)"),
            alice_.name() + "/alpha/mm-scaling/t/8 " + bob_.name() + "//mm-scaling/t/6");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.rank_timings t JOIN hetscale.runs r "
                       "USING (run_id) WHERE r.experiment_id = " +
                       bob_id_),
            "12");
  EXPECT_EQ(
      db_.scalar("SELECT count(*) FROM hetscale.machine_sets WHERE experiment_id = " + bob_id_),
      db_.scalar("SELECT count(*) FROM hetscale.machine_sets WHERE experiment_id = " + alice_id_));
  // Collecting again adds nothing, through the same path.
  EXPECT_EQ(collect(alice_, "alice.jsonl", records(8, "alpha")).runs_present, 8);
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.runs"), "14");
}

TEST_F(Owners, ANameIsTheCurrentUsersOwnExperimentFirst) {
  pg::Connection alice = alice_.connect();
  pg::Connection bob = bob_.connect();
  EXPECT_EQ(std::to_string(*collector::find_experiment(alice, "mm-scaling")), alice_id_);
  EXPECT_EQ(std::to_string(*collector::find_experiment(bob, "mm-scaling")), bob_id_);
  EXPECT_FALSE(collector::find_experiment(bob, "no-such").has_value());
  pg::Connection reader = reader_.connect();
  EXPECT_EQ(error_of([&] { collector::find_experiment(reader, "mm-scaling"); }),
            "experiment 'mm-scaling' is ambiguous: several users have one of that name (owner '" +
                alice_.name() + "', cluster 'alpha'; owner '" + bob_.name() + "', cluster '')");
  // Analyze as each user: each stores its own experiment's results only.
  EXPECT_EQ(collector::analyze(alice, "mm-scaling", 0.5).sets.at(0).runs, 8u);
  EXPECT_EQ(collector::analyze(bob, "mm-scaling", 0.5).sets.at(0).runs, 6u);
  EXPECT_EQ(db_.scalar("SELECT count(DISTINCT experiment_id) FROM hetscale.required_work"), "2");
}

TEST_F(Owners, AUserCannotChangeAnotherUsersRows) {
  pg::Connection alice = alice_.connect();
  collector::analyze(alice, "mm-scaling", 0.5);
  const std::string alice_results =
      db_.scalar("SELECT count(*) FROM hetscale.required_work WHERE experiment_id = " + alice_id_);
  ASSERT_NE(alice_results, "0");
  const std::string before = db_.scalar(
      "SELECT md5(string_agg(e::text, ',')) FROM hetscale.experiments e WHERE experiment_id = " +
      alice_id_);
  pg::Connection bob = bob_.connect();
  // Rows of another user are not there for UPDATE and DELETE: 0 rows affected.
  EXPECT_EQ(affected(bob, "UPDATE hetscale.experiments SET code = 'x' WHERE experiment_id = " +
                              alice_id_),
            0);
  EXPECT_EQ(affected(bob,
                     "UPDATE hetscale.experiments SET owner = current_user "
                     "WHERE experiment_id = " +
                         alice_id_),
            0);
  EXPECT_EQ(affected(bob,
                     "UPDATE hetscale.machine_sets SET node_count = 99 "
                     "WHERE experiment_id = " +
                         alice_id_),
            0);
  EXPECT_EQ(affected(bob, "UPDATE hetscale.plan_rounds SET spec_path = 'x'"), 0);
  EXPECT_EQ(affected(bob, "DELETE FROM hetscale.required_work WHERE experiment_id = " + alice_id_),
            0);
  // ... while the user's own rows are: the same statements change Bob's.
  const std::string bob_sets =
      db_.scalar("SELECT count(*) FROM hetscale.machine_sets WHERE experiment_id = " + bob_id_);
  ASSERT_NE(bob_sets, "0");
  EXPECT_EQ(std::to_string(affected(bob,
                                    "UPDATE hetscale.machine_sets SET node_count = "
                                    "node_count WHERE experiment_id = " +
                                        bob_id_)),
            bob_sets);
  // Rows added to another user's experiment, or in another user's name, are refused.
  const std::string insert_run =
      "INSERT INTO hetscale.runs (run_key, experiment_id, code, workload, parameters, work, "
      "wall_seconds, marked_speed, speed_unit, weights_source, repetition, node_list, verified, "
      "fingerprint, source_file, source_line) VALUES ('\\x01', " +
      alice_id_ +
      ", 'mm', '2*N^3', '{}', 1, 1, 1, 'Mflops', 'marked', 0, 'n1', true, '{}', 'f', 1)";
  EXPECT_EQ(sqlstate_of(bob, insert_run), "42501");  // new row violates row-level security
  const std::string alice_run =
      db_.scalar("SELECT min(run_id) FROM hetscale.runs WHERE experiment_id = " + alice_id_);
  EXPECT_EQ(sqlstate_of(bob, "INSERT INTO hetscale.rank_timings VALUES (" + alice_run +
                                 ", 99, 'n9', 0, 0, 0, 0, 1)"),
            "42501");
  EXPECT_EQ(sqlstate_of(bob,
                        "INSERT INTO hetscale.machine_sets (experiment_id, set_index, "
                        "node_count, marked_speed, parameter_values) VALUES (" +
                            alice_id_ + ", 7, 1, 1, '{1}')"),
            "42501");
  EXPECT_EQ(sqlstate_of(bob,
                        "INSERT INTO hetscale.required_work (experiment_id, set_index, "
                        "target_efficiency, node_count, marked_speed, status, explanation) "
                        "VALUES (" +
                            alice_id_ + ", 0, 0.9, 2, 1, 'too_few_points', 'x')"),
            "42501");
  EXPECT_EQ(sqlstate_of(bob, "INSERT INTO hetscale.experiments (name, owner) VALUES ('x', '" +
                                 alice_.name() + "')"),
            "42501");
  EXPECT_EQ(sqlstate_of(bob,
                        "INSERT INTO hetscale.slurm_jobs (cluster, job_id, start_time, "
                        "job_name, user_name, state, partition, time_limit, work_dir, "
                        "fields, source_file, source_line) VALUES ('alpha', 1, now(), 'j', '" +
                            alice_.name() + "', 'COMPLETED', 'p', '1', '/', '{}', 'f', 1)"),
            "42501");
  // No DELETE on experiments or runs for any writer.
  EXPECT_EQ(sqlstate_of(bob, "DELETE FROM hetscale.experiments"), "42501");
  EXPECT_EQ(sqlstate_of(bob, "DELETE FROM hetscale.runs"), "42501");
  // Alice's rows are as she left them.
  EXPECT_EQ(db_.scalar("SELECT md5(string_agg(e::text, ',')) FROM hetscale.experiments e "
                       "WHERE experiment_id = " +
                       alice_id_),
            before);
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.runs WHERE experiment_id = " + alice_id_),
            "8");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.rank_timings WHERE rank = 99"), "0");
  EXPECT_EQ(
      db_.scalar("SELECT count(*) FROM hetscale.required_work WHERE experiment_id = " + alice_id_),
      alice_results);
  // Her own job is hers to add.
  EXPECT_EQ(sqlstate_of(alice,
                        "INSERT INTO hetscale.slurm_jobs (cluster, job_id, start_time, "
                        "job_name, user_name, state, partition, time_limit, work_dir, "
                        "fields, source_file, source_line) VALUES ('alpha', 1, now(), "
                        "'j', current_user, 'COMPLETED', 'p', '1', '/', '{}', 'f', 1)"),
            "no error");
}

TEST_F(Owners, TheReaderSeesBothAndWritesNothing) {
  pg::Connection reader = reader_.connect();
  EXPECT_EQ(
      reader.exec("SELECT count(*) FROM hetscale.experiments WHERE name = 'mm-scaling'").text(0, 0),
      "2");
  EXPECT_EQ(reader.exec("SELECT count(*) FROM hetscale.run_efficiency").text(0, 0), "14");
  EXPECT_EQ(reader.exec("SELECT count(*) FROM hetscale.rank_timings").text(0, 0), "28");
  EXPECT_EQ(sqlstate_of(reader, "UPDATE hetscale.experiments SET code = 'x'"), "42501");
  EXPECT_EQ(sqlstate_of(reader, "INSERT INTO hetscale.experiments (name) VALUES ('r')"), "42501");
  EXPECT_EQ(sqlstate_of(reader, "DELETE FROM hetscale.required_work"), "42501");
  // A writer reads every user's rows too, through the views as through the tables.
  pg::Connection bob = bob_.connect();
  EXPECT_EQ(
      bob.exec("SELECT count(DISTINCT experiment_id) FROM hetscale.run_efficiency").text(0, 0),
      "2");
  // Every view reads with the caller's rights, but the own_ views of private columns
  // (migration 20), which filter the caller's rows themselves, behind a security barrier.
  EXPECT_EQ(db_.scalar("SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class "
                       "WHERE relkind = 'v' AND relnamespace = 'hetscale'::regnamespace AND NOT "
                       "coalesce('security_invoker=true' = ANY(reloptions), false)"),
            "own_experiments,own_plan_rounds,own_runs,own_slurm_jobs");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM pg_class WHERE relname LIKE 'own\\_%' AND "
                       "relnamespace = 'hetscale'::regnamespace AND "
                       "'security_barrier=true' = ANY(reloptions)"),
            "4");
}

TEST_F(Owners, TheAdminMigratesAndChangesEveryRow) {
  pg::Connection admin = admin_.connect();
  admin.exec("SET ROLE hetscale_admin");  // docs/admin.md: what the admin's sessions do
  EXPECT_TRUE(collector::migrate(admin).applied.empty());
  std::vector<collector::Migration> next(collector::embedded_migrations().begin(),
                                         collector::embedded_migrations().end());
  next.push_back({collector::latest_schema_version() + 1, "admin_probe",
                  "CREATE TABLE hetscale.admin_probe (x integer);"
                  "UPDATE hetscale.experiments SET cluster = 'moved' WHERE name = 'mm-scaling';"});
  pg::Connection alice = alice_.connect();
  EXPECT_EQ(sqlstate_of(alice, next.back().sql), "42501");  // a writer cannot
  EXPECT_EQ(collector::migrate(admin, next).applied,
            std::vector<int>{collector::latest_schema_version() + 1});
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.experiments WHERE cluster = 'moved'"), "2");
  EXPECT_EQ(db_.scalar("SELECT pg_get_userbyid(relowner) FROM pg_class "
                       "WHERE oid = 'hetscale.admin_probe'::regclass"),
            "hetscale_admin");
}

// Migration 11 is run by a superuser and hands the schema to hetscale_admin; every later
// migration is run by the admin (docs/schema.md).
TEST(OwnersMigrations, TheAdminAppliesEveryMigrationAfterEleven) {
  TestDatabase db;
  pg::Connection superuser = db.connect();
  collector::migrate(superuser, 11);
  TestLogin admin_login{db, "admin", "hetscale_admin"};
  pg::Connection admin = admin_login.connect();
  admin.exec("SET ROLE hetscale_admin");
  const collector::MigrationReport report = collector::migrate(admin);
  EXPECT_EQ(report.from_version, 11);
  EXPECT_EQ(report.to_version, collector::latest_schema_version());
  const auto all = collector::embedded_migrations();
  EXPECT_EQ(report.applied.size(),
            static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [](const auto& m) { return m.version > 11; })));
}

TEST_F(Owners, AUserWithTwoExperimentsOfANameIsToldToChoose) {
  // Only the admin makes a second one (on another cluster): the collector never does.
  pg::Connection admin = admin_.connect();
  admin.exec("SET ROLE hetscale_admin");
  admin.exec(
      "INSERT INTO hetscale.experiments (name, owner, cluster) VALUES ('mm-scaling', $1, "
      "'beta')",
      {alice_.name()});
  pg::Connection alice = alice_.connect();
  EXPECT_EQ(error_of([&] { collector::find_experiment(alice, "mm-scaling"); }),
            "experiment 'mm-scaling' is ambiguous: you own several of that name (owner '" +
                alice_.name() + "', cluster 'alpha'; owner '" + alice_.name() +
                "', cluster 'beta')");
  write_lines(dir_ / "more.jsonl", dump_all(records(1, "alpha")));
  collector::CollectOptions options;
  options.inputs = {(dir_ / "more.jsonl").string()};
  std::istringstream no_stdin;
  std::ostringstream log;
  EXPECT_THAT(error_of([&] { collector::collect(alice_.uri(), options, no_stdin, log); }),
              ::testing::HasSubstr("you own several experiments named 'mm-scaling' (on different "
                                   "clusters, 'alpha' and 'beta')"));
  options.inputs = {plan_.string()};
  EXPECT_THAT(error_of([&] { collector::collect(alice_.uri(), options, no_stdin, log); }),
              ::testing::HasSubstr("plan: you own 2 experiments named 'mm-scaling'"));
  // Bob's name is still his alone.
  pg::Connection bob = bob_.connect();
  EXPECT_EQ(std::to_string(*collector::find_experiment(bob, "mm-scaling")), bob_id_);
}

}  // namespace
}  // namespace hetscale::test
