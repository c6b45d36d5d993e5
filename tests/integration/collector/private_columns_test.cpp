// Who reads what users write that is theirs (migration 20; docs/schema.md, "Private
// columns"; docs/admin.md, "Who reads what"): the command lines of runs and experiments,
// the spec and plan of each round, a Slurm job's working directory and accounting fields.
// Two writer logins (set up by db/add_login.sql) each collect a study and their jobs; the
// administrator loads the centre's jobs, another user's among them. A reader (the
// dashboards' login) reads none of the private columns, a writer those of its own rows,
// an administrator all; every view, the dashboards' and the report's reads work for each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/extrap_export.hpp"
#include "hetscale/collector/plan_loader.hpp"
#include "hetscale/collector/report_views.hpp"
#include "hetscale/collector/slurm_jobs.hpp"
#include "hetscale/collector/stored_experiment.hpp"
#include "hetscale/site/round_plan.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path plan_fixture = fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

// The private columns (migration 20), as table.column.
const std::vector<std::string> private_columns = {
    "experiments.code", "runs.code",           "plan_rounds.spec_path", "plan_rounds.spec_text",
    "plan_rounds.plan", "slurm_jobs.work_dir", "slurm_jobs.fields"};

std::string sqlstate_of(pg::Connection& conn, const std::string& sql) {
  try {
    conn.exec(sql);
    return "no error";
  } catch (const pg::DbError& e) {
    return e.sqlstate();
  }
}

std::string scalar(pg::Connection& conn, const std::string& sql) {
  const pg::Result r = conn.exec(sql);
  return r.is_null(0, 0) ? "NULL" : std::string(r.text(0, 0));
}

// A user's command line, as a study of theirs would run it.
std::string command_of(const std::string& who) {
  return "./solve --size {N} --token secret-of-" + who;
}

slurm::JobRecord job_of(const std::string& user, std::uint64_t job_id) {
  slurm::JobRecord job;
  job.line = 1;
  job.cluster = "alpha";
  job.job_id = job_id;
  job.start_time = "2026-01-01T10:00:00";
  job.end_time = "2026-01-01T10:30:00";
  job.job_name = "mm-small";
  job.user_name = user;
  job.state = "COMPLETED";
  job.partition = "p";
  job.time_limit = "60";
  job.work_dir = "/home/" + user;
  job.fields = {{"submit_line", "sbatch --wrap '" + command_of(user) + "'"}};
  return job;
}

struct MigratedDatabase : TestDatabase {
  MigratedDatabase() { migrate(); }
};

class PrivateColumns : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-private-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    collector::store_site(db_.uri(), load_round_plan(plan_fixture).site, {});
    study(alice_, 0);
    study(bob_, 10);
    // The centre's jobs, loaded by the administrator: a third user's among them.
    pg::Connection admin = admin_.connect();
    const std::vector<slurm::JobRecord> centre = {job_of("carol", 40)};
    collector::load_slurm_jobs_batch(admin, centre, "sacct");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The user's plan (round 0, its spec, the user's command as the code) and two runs of
  // it, collected as the user; and the completion of one of the user's jobs.
  void study(const TestLogin& user, int serial) {
    nlohmann::json plan = nlohmann::json::parse(std::ifstream(plan_fixture));
    plan["round"] = 0;
    plan["experiment"]["code"] = command_of(user.name());
    plan["experiment"]["spec"] = {
        {"path", "/home/" + user.name() + "/mm.toml"},
        {"text", "[code]\ncommand = \"" + command_of(user.name()) + "\"\n"}};
    const fs::path plan_file = dir_ / (user.name() + ".json");
    std::ofstream(plan_file) << plan.dump();
    std::vector<nlohmann::json> runs;
    for (int i = 0; i < 2; ++i) {
      runs.push_back(
          record_json("mm-small", 100 << i, i, 0, 2e6 * (1 << (3 * i)), 1, 100, 2, serial + i));
      runs.back()["code"] = command_of(user.name());
    }
    const fs::path runs_file = dir_ / (user.name() + ".jsonl");
    write_lines(runs_file, dump_all(runs));
    collector::CollectOptions options;
    options.inputs = {plan_file.string(), runs_file.string()};
    std::istringstream no_stdin;
    std::ostringstream log;
    collector::collect(user.uri(), options, no_stdin, log);
    pg::Connection conn = user.connect();
    const std::vector<slurm::JobRecord> jobs = {job_of(user.name(), 20 + serial)};
    collector::load_slurm_jobs_batch(conn, jobs, "sacct");
  }

  // The private columns each own_ view gives `conn`, as "table.column=value" lines.
  static std::string own_private_values(pg::Connection& conn) {
    return scalar(conn, R"(
        SELECT coalesce(string_agg(v, ' | ' ORDER BY v), '') FROM (
          SELECT 'experiments.code=' || code AS v FROM hetscale.own_experiments
          UNION ALL SELECT 'runs.code=' || code FROM hetscale.own_runs
          UNION ALL SELECT 'plan_rounds.spec_path=' || spec_path FROM hetscale.own_plan_rounds
          UNION ALL SELECT 'slurm_jobs.work_dir=' || work_dir FROM hetscale.own_slurm_jobs
          UNION ALL SELECT 'slurm_jobs.fields=' || (fields ->> 'submit_line')
                    FROM hetscale.own_slurm_jobs) v)");
  }

  static std::string values_of(const std::string& who) {
    return "experiments.code=" + command_of(who) + " | plan_rounds.spec_path=/home/" + who +
           "/mm.toml | runs.code=" + command_of(who) + " | runs.code=" + command_of(who) +
           " | slurm_jobs.fields=sbatch --wrap '" + command_of(who) +
           "' | slurm_jobs.work_dir=/home/" + who;
  }

  // Every view of the schema reads for `conn`: the number of those that fail, and which.
  std::string failing_views(pg::Connection& conn) const {
    const pg::Result views =
        conn.exec("SELECT viewname FROM pg_views WHERE schemaname = 'hetscale' ORDER BY viewname");
    std::string failing;
    for (int i = 0; i < views.rows(); ++i) {
      const std::string view(views.text(i, 0));
      if (sqlstate_of(conn, "SELECT * FROM hetscale." + view) != "no error") failing += " " + view;
    }
    return std::to_string(views.rows()) + " views, failing:" + failing;
  }

  // Declared first: dropped last, after the roles.
  MigratedDatabase db_;
  TestLogin alice_{db_, "private_alice", "hetscale_writer"};
  TestLogin bob_{db_, "private_bob", "hetscale_writer"};
  TestLogin reader_{db_, "private_reader", "hetscale_reader"};
  TestLogin admin_{db_, "private_admin", "hetscale_admin"};
  fs::path dir_;
};

TEST_F(PrivateColumns, TheReaderReadsNoneOfThemAndEveryViewAndTheReport) {
  pg::Connection reader = reader_.connect();
  for (const std::string& column : private_columns) {
    const auto dot = column.find('.');
    EXPECT_EQ(sqlstate_of(reader, "SELECT " + column.substr(dot + 1) + " FROM hetscale." +
                                      column.substr(0, dot)),
              "42501")
        << column;
  }
  EXPECT_EQ(own_private_values(reader), "");
  // The other columns of every row, the views and the report are the reader's as before.
  EXPECT_EQ(scalar(reader, "SELECT count(*) || ' ' || count(DISTINCT workload) FROM hetscale.runs"),
            "4 1");
  EXPECT_EQ(scalar(reader, "SELECT count(*) FROM hetscale.slurm_jobs"), "3");
  EXPECT_EQ(
      scalar(reader, "SELECT count(*) FROM hetscale.run_slurm_jobs WHERE job_state IS NOT NULL"),
      "0");  // the runs' job ids (1000...) are none of the jobs loaded
  EXPECT_EQ(failing_views(reader), "19 views, failing:");
  const collector::ReportData report = collector::read_report_data(reader, {});
  EXPECT_EQ(report.experiments.size(), 2u);
}

TEST_F(PrivateColumns, AWriterReadsThoseOfItsOwnRowsOnly) {
  pg::Connection alice = alice_.connect();
  for (const std::string& column : private_columns) {
    const auto dot = column.find('.');
    EXPECT_EQ(sqlstate_of(alice, "SELECT " + column.substr(dot + 1) + " FROM hetscale." +
                                     column.substr(0, dot)),
              "42501")
        << column;
  }
  // Alice's own; nothing of Bob's rows or of Carol's job.
  EXPECT_EQ(own_private_values(alice), values_of(alice_.name()));
  EXPECT_THAT(
      scalar(alice, "SELECT string_agg(spec_text || plan::text, '') FROM hetscale.own_plan_rounds"),
      HasSubstr("secret-of-" + alice_.name()));
  pg::Connection bob = bob_.connect();
  EXPECT_EQ(own_private_values(bob), values_of(bob_.name()));
  // Every view and the report work for a writer login, over both users' experiments.
  EXPECT_EQ(failing_views(alice), "19 views, failing:");
  const collector::ReportData report = collector::read_report_data(alice, {});
  ASSERT_EQ(report.experiments.size(), 2u);
  EXPECT_EQ(report.experiments[0].owner + " " + report.experiments[1].owner,
            alice_.name() < bob_.name() ? alice_.name() + " " + bob_.name()
                                        : bob_.name() + " " + alice_.name());
}

TEST_F(PrivateColumns, TheCollectorReadsTheOwnersPrivateColumnsForThem) {
  pg::Connection alice = alice_.connect();
  const auto stored = collector::read_stored_experiment(alice, "mm-small");
  ASSERT_TRUE(stored && stored->latest_round);
  EXPECT_THAT(stored->latest_round->spec_text.value_or(""),
              HasSubstr("secret-of-" + alice_.name()));
  const collector::ExtrapExport exported = collector::export_extrap(alice, "mm-small");
  ASSERT_EQ(exported.sets.size(), 2u);
  EXPECT_THAT(exported.sets[0].lines,
              HasSubstr("\"callpath\":\"" + command_of(alice_.name()) + ".set0\""));
}

TEST_F(PrivateColumns, AnAdministratorReadsThemAll) {
  pg::Connection admin = admin_.connect();
  EXPECT_EQ(scalar(admin, "SELECT count(DISTINCT code) || ' ' || count(*) FROM hetscale.runs"),
            "2 4");
  EXPECT_EQ(scalar(admin,
                   "SELECT string_agg(fields ->> 'submit_line', ' | ' ORDER BY job_id) "
                   "FROM hetscale.slurm_jobs"),
            "sbatch --wrap '" + command_of(alice_.name()) + "' | sbatch --wrap '" +
                command_of(bob_.name()) + "' | sbatch --wrap '" + command_of("carol") + "'");
  EXPECT_EQ(own_private_values(admin), scalar(admin, R"(
      SELECT string_agg(v, ' | ' ORDER BY v) FROM (
        SELECT 'experiments.code=' || code AS v FROM hetscale.experiments
        UNION ALL SELECT 'runs.code=' || code FROM hetscale.runs
        UNION ALL SELECT 'plan_rounds.spec_path=' || spec_path FROM hetscale.plan_rounds
        UNION ALL SELECT 'slurm_jobs.work_dir=' || work_dir FROM hetscale.slurm_jobs
        UNION ALL SELECT 'slurm_jobs.fields=' || (fields ->> 'submit_line')
                  FROM hetscale.slurm_jobs) v)"));
  EXPECT_THAT(own_private_values(admin), HasSubstr("slurm_jobs.work_dir=/home/carol"));
}

}  // namespace
}  // namespace hetscale::test
