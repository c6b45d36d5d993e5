// What one user can do to rows that other users' results depend on (migrations 13 and 14;
// docs/admin.md, "Database users"): two writer logins set up by db/add_login.sql, run
// verbatim by psql, as docs/admin.md says. Neither can act as a shared role, rewrite the
// centre's site, take another user's Slurm job row, choose run ids or change the other's
// rows.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/plan_loader.hpp"
#include "hetscale/collector/slurm_jobs.hpp"
#include "hetscale/site/round_plan.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

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
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

struct MigratedDatabase : TestDatabase {
  MigratedDatabase() { migrate(); }
};

// The site stored by the administrator; Alice and Bob (writer logins) each load the plan
// and two runs of their own.
class SharedRows : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-shared-rows-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    collector::store_site(db_.uri(), load_round_plan(plan_fixture).site, {});
    site_before_ = site_rows();
    collect(alice_, plan_fixture, records(2));
    collect(bob_, plan_fixture, records(2));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<nlohmann::json> records(int count) {
    std::vector<nlohmann::json> out;
    for (int i = 0; i < count; ++i)
      out.push_back(record_json("mm-small", 10 << i, 0, 0, 2000.0 * (1 << (3 * i)), 1, 100, 2, i));
    return out;
  }

  collector::CollectReport collect(const TestLogin& user, const fs::path& plan,
                                   const std::vector<nlohmann::json>& runs) {
    const fs::path file = dir_ / (user.name() + ".jsonl");
    write_lines(file, dump_all(runs));
    collector::CollectOptions options;
    options.inputs = {plan.string(), file.string()};
    std::istringstream no_stdin;
    std::ostringstream log;
    return collector::collect(user.uri(), options, no_stdin, log);
  }

  // The plan fixture with `change` applied to it.
  fs::path crafted_plan(const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json plan = nlohmann::json::parse(std::ifstream(plan_fixture));
    change(plan);
    const fs::path file = dir_ / "crafted.json";
    std::ofstream(file) << plan.dump();
    return file;
  }

  std::string site_rows() const {
    return db_.scalar(R"(
        SELECT md5(concat((SELECT string_agg(s::text, ',' ORDER BY site_id) FROM hetscale.sites s),
                          (SELECT string_agg(g::text, ',' ORDER BY group_id) FROM hetscale.groups g),
                          (SELECT string_agg(n::text, ',' ORDER BY node_id) FROM hetscale.nodes n),
                          (SELECT count(*) FROM hetscale.benchmark_history)))
      )");
  }

  MigratedDatabase db_;
  TestLogin alice_{db_, "shared_alice", "hetscale_writer"};
  TestLogin bob_{db_, "shared_bob", "hetscale_writer"};
  fs::path dir_;
  std::string site_before_;
};

TEST_F(SharedRows, AWriterLoginCannotActAsASharedRole) {
  pg::Connection alice = alice_.connect();
  for (const std::string role : {"hetscale_writer", "hetscale_admin", "hetscale_reader"})
    EXPECT_EQ(sqlstate_of(alice, "SET ROLE " + role), "42501") << role;
  // It is a member of no role: the writer's rights are its own.
  EXPECT_EQ(alice.exec("SELECT count(*) FROM pg_auth_members WHERE member = current_user::regrole")
                .text(0, 0),
            "0");
  EXPECT_EQ(sqlstate_of(alice, "INSERT INTO hetscale.experiments (name) VALUES ('x')"), "no error");
}

TEST_F(SharedRows, AddLoginTakesAnOlderSetupsSharedMembershipAway) {
  db_.connect().exec("CREATE ROLE hetscale_test_older_" + std::to_string(::getpid()) +
                     " LOGIN IN ROLE hetscale_writer");
  const TestLogin older(db_, "older", "hetscale_writer");  // add_login.sql on that role
  pg::Connection conn = older.connect();
  EXPECT_EQ(sqlstate_of(conn, "SET ROLE hetscale_writer"), "42501");
  EXPECT_EQ(sqlstate_of(conn, "INSERT INTO hetscale.experiments (name) VALUES ('x')"),
            "no error");
}

TEST_F(SharedRows, AnAdminLoginActsAsTheOwner) {
  const std::string admin = "hetscale_test_shared_admin_" + std::to_string(::getpid());
  add_login(db_, admin, "admin");
  pg::Connection conn = pg::Connection::open(
      std::string(db_.uri()).replace(db_.uri().find("://postgres@"), 12, "://" + admin + "@"));
  EXPECT_EQ(conn.exec("SELECT current_user").text(0, 0), "hetscale_admin");
  EXPECT_EQ(conn.exec("UPDATE hetscale.nodes SET state = state").affected(), 4);
  conn = pg::Connection::open(db_.uri());
  conn.exec("DROP OWNED BY " + admin + "; DROP ROLE " + admin);
}

TEST_F(SharedRows, AUserCannotChangeTheOthersRows) {
  pg::Connection alice = alice_.connect();
  const std::string bob_experiment = db_.scalar(
      "SELECT experiment_id FROM hetscale.experiments WHERE owner = '" + bob_.name() + "'");
  EXPECT_EQ(alice.exec("UPDATE hetscale.experiments SET code = 'x' WHERE experiment_id = " +
                       bob_experiment)
                .affected(),
            0);
  EXPECT_EQ(alice.exec("UPDATE hetscale.machine_sets SET node_count = 9 WHERE experiment_id = " +
                       bob_experiment)
                .affected(),
            0);
  EXPECT_EQ(sqlstate_of(alice,
                        "INSERT INTO hetscale.runs (run_key, experiment_id, code, workload, "
                        "parameters, work, wall_seconds, marked_speed, speed_unit, weights_source, "
                        "repetition, node_list, verified, fingerprint, source_file, source_line) "
                        "VALUES ('\\x01', " +
                            bob_experiment +
                            ", 'mm', 'w', '{}', 1, 1, 1, 'Mflops', 'marked', 0, 'n1', true, "
                            "'{}', 'f', 1)"),
            "42501");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.runs WHERE experiment_id = " +
                       bob_experiment),
            "2");
}

TEST_F(SharedRows, AWriterCannotRewriteTheSiteGroupsOrNodes) {
  pg::Connection alice = alice_.connect();
  for (const std::string sql :
       {"UPDATE hetscale.nodes SET marked_speed = 1", "UPDATE hetscale.nodes SET state = 'ok'",
        "UPDATE hetscale.sites SET speed_unit = 'Gflops'",
        "UPDATE hetscale.groups SET marked_speed = 1",
        "INSERT INTO hetscale.sites (name, speed_unit, benchmark) VALUES ('x', 'Mflops', 'b')",
        "INSERT INTO hetscale.benchmark_history SELECT node_id, 'dgemm', now(), 1 "
        "FROM hetscale.nodes",
        "DELETE FROM hetscale.nodes"})
    EXPECT_EQ(sqlstate_of(alice, sql), "42501") << sql;
  EXPECT_EQ(site_rows(), site_before_);
}

TEST_F(SharedRows, APlanNamingTheSiteDifferentlyIsRefusedAndChangesNothing) {
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> crafts = {
      {[](nlohmann::json& p) { p["site"]["nodes"][0]["marked_speed"] = 2000.0; },
       "node 'b1' is blade, 1 processors, 2000, ok in the plan, blade, 1 processors, 20, ok "
       "stored"},
      {[](nlohmann::json& p) { p["site"]["nodes"][3]["state"] = "ok"; }, "node 's2'"},
      {[](nlohmann::json& p) { p["site"]["speed_unit"] = "Gflops"; }, "speed unit 'Gflops'"},
      {[](nlohmann::json& p) { p["site"]["groups"][1]["marked_speed"] = 1.0; },
       "group 'server' has marked speed 1 in the plan, 40 stored"},
      {[](nlohmann::json& p) { p["site"]["name"] = "elsewhere"; },
       "site 'elsewhere' is not stored"},
  };
  for (const auto& [change, message] : crafts) {
    const fs::path plan = crafted_plan(change);
    const std::string error = error_of([&] { collect(alice_, plan, {}); });
    EXPECT_THAT(error, HasSubstr(message));
    EXPECT_THAT(error, HasSubstr("is the administrator's (hetscale groups --db)"));
  }
  EXPECT_EQ(site_rows(), site_before_);
  // The plan that says what is stored loads, referencing the stored nodes.
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.machine_set_members m "
                       "JOIN hetscale.machine_sets s USING (machine_set_id) "
                       "JOIN hetscale.experiments e USING (experiment_id) "
                       "WHERE e.owner = '" + alice_.name() + "'"),
            db_.scalar("SELECT count(*) FROM hetscale.machine_set_members m "
                       "JOIN hetscale.machine_sets s USING (machine_set_id) "
                       "JOIN hetscale.experiments e USING (experiment_id) "
                       "WHERE e.owner = '" + bob_.name() + "'"));
  EXPECT_NE(db_.scalar("SELECT count(*) FROM hetscale.machine_sets s JOIN hetscale.experiments e "
                       "USING (experiment_id) WHERE e.owner = '" + alice_.name() + "'"),
            "0");
}

TEST_F(SharedRows, AUserCannotPreemptAnotherUsersJobRow) {
  // Alice stores a row under her own name for the job id of Bob's job, with its start.
  pg::Connection alice = alice_.connect();
  alice.exec(
      "INSERT INTO hetscale.slurm_jobs (cluster, job_id, start_time, end_time, job_name, "
      "user_name, state, partition, time_limit, work_dir, fields, source_file, source_line) "
      "VALUES ('alpha', 42, '2026-01-01T10:00:00', '2026-01-01T11:00:00', 'fake', current_user, "
      "'FAILED', 'p', '1', '/', '{}', 'f', 1)");
  EXPECT_EQ(sqlstate_of(alice,
                        "INSERT INTO hetscale.slurm_jobs (cluster, job_id, start_time, job_name, "
                        "user_name, state, partition, time_limit, work_dir, fields, source_file, "
                        "source_line) VALUES ('alpha', 43, '2026-01-01', 'x', '" +
                            bob_.name() + "', 'FAILED', 'p', '1', '/', '{}', 'f', 1)"),
            "42501");
  // Bob's own completion of job 42 is stored beside it.
  slurm::JobRecord job;
  job.line = 1;
  job.cluster = "alpha";
  job.job_id = 42;
  job.start_time = "2026-01-01T10:00:00";
  job.end_time = "2026-01-01T10:30:00";
  job.job_name = "mm";
  job.user_name = bob_.name();
  job.state = "COMPLETED";
  job.partition = "p";
  job.time_limit = "60";
  job.work_dir = "/home/bob";
  pg::Connection bob = bob_.connect();
  const std::vector<slurm::JobRecord> jobs = {job};
  EXPECT_EQ(collector::load_slurm_jobs_batch(bob, jobs, "bob.log"), 1);
  EXPECT_EQ(db_.scalar("SELECT string_agg(state, ',' ORDER BY state) FROM hetscale.slurm_jobs "
                       "WHERE job_id = 42"),
            "COMPLETED,FAILED");
  // A run of Bob's experiment with that job meets Bob's row, not Alice's later-loaded one.
  db_.connect().exec("UPDATE hetscale.runs r SET slurm_job_id = 42, slurm_cluster = 'alpha' "
                     "FROM hetscale.experiments e WHERE e.experiment_id = r.experiment_id "
                     "AND e.owner = '" + bob_.name() + "'");
  EXPECT_EQ(db_.scalar("SELECT string_agg(DISTINCT job_state, ',') FROM hetscale.run_slurm_jobs "
                       "WHERE experiment_owner = '" + bob_.name() + "'"),
            "COMPLETED");
}

TEST_F(SharedRows, AWriterCannotChooseRunIds) {
  pg::Connection alice = alice_.connect();
  const std::string experiment = db_.scalar(
      "SELECT experiment_id FROM hetscale.experiments WHERE owner = '" + alice_.name() + "'");
  const std::string values =
      " VALUES (1000000, '\\x02', " + experiment +
      ", 'mm', 'w', '{}', 1, 1, 1, 'Mflops', 'marked', 0, 'n1', true, '{}', 'f', 1)";
  const std::string columns =
      "INSERT INTO hetscale.runs (run_id, run_key, experiment_id, code, workload, parameters, "
      "work, wall_seconds, marked_speed, speed_unit, weights_source, repetition, node_list, "
      "verified, fingerprint, source_file, source_line)";
  EXPECT_EQ(sqlstate_of(alice, columns + values), "428C9");  // generated_always
  EXPECT_EQ(sqlstate_of(alice, columns + " OVERRIDING SYSTEM VALUE" + values), "42501");
  EXPECT_EQ(sqlstate_of(alice, columns + " OVERRIDING USER VALUE" + values), "42501");
  EXPECT_EQ(sqlstate_of(alice, "SELECT nextval('hetscale.runs_run_id_seq')"), "42501");
  EXPECT_EQ(sqlstate_of(alice, "SELECT setval('hetscale.runs_run_id_seq', 1000000)"), "42501");
  // The owner (here the superuser) still loads with reserved ids, by plain COPY.
  collector::CollectOptions options;
  const fs::path file = dir_ / "owner.jsonl";
  write_lines(file, dump_all(records(2)));
  options.inputs = {plan_fixture.string(), file.string()};
  std::istringstream no_stdin;
  std::ostringstream log;
  EXPECT_EQ(collector::collect(db_.uri(), options, no_stdin, log).runs_added, 2);
  // Every run took its id from the identity, and its rank rows name it.
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.runs"), "6");
  EXPECT_EQ(db_.scalar("SELECT max(run_id) FROM hetscale.runs"),
            db_.scalar("SELECT last_value FROM hetscale.runs_run_id_seq"));
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.rank_timings t "
                       "JOIN hetscale.runs r USING (run_id)"),
            "12");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.rank_timings"), "12");
}

}  // namespace
}  // namespace hetscale::test
