// The collector's reads of one moment against a real server: the report's views
// (read_report_data), what analyze reads before it analyzes (read_analyze_snapshot) and an
// experiment with its runs (read_experiment_snapshot). Each is checked for what it reads,
// and for reading as of one moment: another session holds a table that the read reaches
// late locked, a third one changes what the read has yet to read, and the read, let go,
// still sees the database as it was when it began.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>
#include <thread>

#include "hetscale/collector/analysis.hpp"
#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/migrations.hpp"
#include "hetscale/collector/report_views.hpp"
#include "hetscale/collector/stored_experiment.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

const fs::path plan_fixture = fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

/// A session of its own holding `table` locked (ACCESS EXCLUSIVE) until release(): a read
/// that reaches the table waits there, having read what came before.
class TableLock {
 public:
  TableLock(const TestDatabase& db, const std::string& table) : db_(db), conn_(db.connect()) {
    held_.emplace(conn_);
    conn_.exec("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
  }
  /// True once a session of the database waits on a lock (polled for up to 30 s).
  [[nodiscard]] bool waited_on() const {
    for (int i = 0; i < 300; ++i) {
      if (db_.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                     "AND wait_event_type = 'Lock'") != "0")
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  void release() { held_.reset(); }  // ROLLBACK

 private:
  const TestDatabase& db_;
  pg::Connection conn_;
  std::optional<pg::Transaction> held_;
};

/// Runs `read` on a connection of its own while `table` is locked; once the read waits on
/// the lock, runs `change` (autocommit, another session) and lets the read go on. Returns
/// what the read returned; `waited` says whether it reached the lock.
template <typename Read>
auto read_across_a_change(const TestDatabase& db, const std::string& table, Read read,
                          const std::string& change, bool& waited) {
  std::future<decltype(read(std::declval<pg::Connection&>()))> reading;  // outlives the lock
  TableLock lock(db, table);
  reading = std::async(std::launch::async, [&db, read] {
    pg::Connection conn = db.connect();
    return read(conn);
  });
  waited = lock.waited_on();
  db.connect().exec(change);
  lock.release();
  return reading.get();
}

class OneMomentReads : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.migrate();
    dir_ = fs::temp_directory_path() /
           ("hetscale-one-moment-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// mm-small's plan as round 0 with a [refine] tolerance of 0.07, and two repetitions of
  /// each planned size (E_s = N / (N + 100 (k + 1)) on set k).
  void load() {
    std::ifstream in(plan_fixture);
    nlohmann::json plan = nlohmann::json::parse(in);
    plan["round"] = 0;
    plan["experiment"]["refine"] = {{"steps", {0.02, 0.04}}, {"tolerance", 0.07}, {"max_rounds", 3}};
    std::ofstream(dir_ / "plan.json") << plan.dump();
    std::vector<nlohmann::json> records;
    int serial = 0;
    for (int set = 0; set < 2; ++set)
      for (const double n : planned_sizes(set))
        for (int repetition = 0; repetition < 2; ++repetition) {
          const double speed = 100.0 * (set + 1);
          const double work = 2 * n * n * n;
          records.push_back(record_json("mm-small", n, set, repetition, work,
                                        work / (efficiency(set, n) * speed * 1e6), speed, 2,
                                        ++serial));
        }
    write_lines(dir_ / "runs.jsonl", dump_all(records));
    collector::CollectOptions options;
    options.inputs = {(dir_ / "plan.json").string(), (dir_ / "runs.jsonl").string()};
    std::istringstream no_stdin;
    std::ostringstream log;
    collector::collect(db_.uri(), options, no_stdin, log);
  }

  static std::vector<double> planned_sizes(int set) {
    return set == 0 ? std::vector<double>{100, 200, 400} : std::vector<double>{200, 400, 800};
  }
  static double efficiency(int set, double n) { return n / (n + 100.0 * (set + 1)); }

  TestDatabase db_;
  fs::path dir_;
};

/// The transaction isolation of a session outside any transaction: a read that left its
/// snapshot open would show "repeatable read".
std::string isolation(pg::Connection& conn) {
  return std::string(conn.exec("SHOW transaction_isolation").text(0, 0));
}

TEST_F(OneMomentReads, TheReportReadsTheViewsAsAReaderAndClosesItsSnapshot) {
  load();
  const TestLogin reader(db_, "one_moment_reader", "hetscale_reader");
  pg::Connection conn = reader.connect();
  const collector::ReportData data = collector::read_report_data(conn, {});
  EXPECT_EQ(isolation(conn), "read committed");
  ASSERT_EQ(data.experiments.size(), 1u);
  const collector::ExperimentData& e = data.experiments[0];
  EXPECT_EQ(collector::shown_name(e), "mm-small");
  EXPECT_EQ(e.parameter, "N");
  EXPECT_EQ(e.speed_unit, "Mflops");
  ASSERT_EQ(e.curve.size(), 6u);
  for (const auto& point : e.curve) {
    EXPECT_EQ(point.runs, 2);
    EXPECT_NEAR(point.speed_efficiency, efficiency(point.set_index, point.parameter_value), 1e-9)
        << "set " << point.set_index << ", N = " << point.parameter_value;
  }
  ASSERT_EQ(data.nodes.size(), 4u);
  EXPECT_EQ(data.nodes[3].host, "s2");
  EXPECT_EQ(data.nodes[3].state, "degraded");
  EXPECT_TRUE(data.twins.empty());
}

TEST_F(OneMomentReads, TheReportRefusesADatabaseOlderThanTheViews) {
  const TestDatabase old;
  pg::Connection conn = old.connect();
  collector::migrate(conn, 8);
  try {
    (void)collector::read_report_data(conn, {});
    FAIL() << "read a database of schema version 8";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the database is at schema version 8; the report reads the views of version 9 "
                 "(run 'hetscale db migrate --db URI' first)");
  }
  EXPECT_EQ(isolation(conn), "read committed");
}

TEST_F(OneMomentReads, TheReportReadsEveryViewAsOfOneMoment) {
  load();
  bool waited = false;
  // hetscale.groups is read by node_map alone, the last view the report reads.
  const collector::ReportData data = read_across_a_change(
      db_, "hetscale.groups",
      [](pg::Connection& conn) { return collector::read_report_data(conn, {}); },
      "UPDATE hetscale.nodes SET state = 'excluded' WHERE name = 'b1'", waited);
  ASSERT_TRUE(waited) << "the report never reached node_map's lock";
  ASSERT_EQ(data.nodes.size(), 4u);
  EXPECT_EQ(data.nodes[0].host, "b1");
  EXPECT_EQ(data.nodes[0].state, "ok") << "the report read the nodes of a later moment";
  pg::Connection conn = db_.connect();
  EXPECT_EQ(collector::read_report_data(conn, {}).nodes[0].state, "excluded");
}

TEST_F(OneMomentReads, AnalyzeReadsTheExportAndTheRefineToleranceItIsAskedFor) {
  load();
  pg::Connection conn = db_.connect();
  const collector::AnalyzeSnapshot both =
      collector::read_analyze_snapshot(conn, "mm-small", {true, true});
  EXPECT_EQ(isolation(conn), "read committed");
  ASSERT_TRUE(both.extrap);
  ASSERT_EQ(both.extrap->sets.size(), 2u);
  for (const auto& set : both.extrap->sets) EXPECT_EQ(set.runs, 6u) << "set " << set.set_index;
  ASSERT_TRUE(both.refine_tolerance);
  EXPECT_DOUBLE_EQ(*both.refine_tolerance, 0.07);

  const collector::AnalyzeSnapshot neither =
      collector::read_analyze_snapshot(conn, "mm-small", {false, false});
  EXPECT_FALSE(neither.extrap);
  EXPECT_FALSE(neither.refine_tolerance);
  // An experiment without a round (no refine tolerance), and the export's refusal.
  EXPECT_FALSE(collector::read_analyze_snapshot(conn, "other", {false, true}).refine_tolerance);
  EXPECT_THROW((void)collector::read_analyze_snapshot(conn, "other", {true, false}), Error);
  EXPECT_EQ(isolation(conn), "read committed");
}

TEST_F(OneMomentReads, AnalyzeReadsTheExportAndTheToleranceAsOfOneMoment) {
  load();
  bool waited = false;
  // rank_timings is read by the export (each run's p), not by the tolerance's read after it.
  const collector::AnalyzeSnapshot snapshot = read_across_a_change(
      db_, "hetscale.rank_timings",
      [](pg::Connection& conn) {
        return collector::read_analyze_snapshot(conn, "mm-small", {true, true});
      },
      "UPDATE hetscale.plan_rounds SET refine_tolerance = 0.2", waited);
  ASSERT_TRUE(waited) << "the export never reached the rank timings' lock";
  ASSERT_TRUE(snapshot.extrap);
  ASSERT_TRUE(snapshot.refine_tolerance);
  EXPECT_DOUBLE_EQ(*snapshot.refine_tolerance, 0.07) << "the tolerance of a later moment";
}

TEST_F(OneMomentReads, AnExperimentIsReadWithItsRunsOrTheNamesKnown) {
  load();
  pg::Connection conn = db_.connect();
  const collector::ExperimentSnapshot stored = collector::read_experiment_snapshot(conn, "mm-small");
  EXPECT_EQ(isolation(conn), "read committed");
  ASSERT_TRUE(stored.experiment);
  EXPECT_EQ(stored.experiment->parameter, "N");
  ASSERT_TRUE(stored.experiment->latest_round);
  EXPECT_EQ(stored.experiment->latest_round->refine_tolerance, 0.07);
  ASSERT_EQ(stored.runs.size(), 12u);
  for (const auto& run : stored.runs) EXPECT_TRUE(run.parameter) << run.source;
  EXPECT_TRUE(stored.known.empty());

  const collector::ExperimentSnapshot unknown = collector::read_experiment_snapshot(conn, "other");
  EXPECT_FALSE(unknown.experiment);
  EXPECT_TRUE(unknown.runs.empty());
  EXPECT_EQ(unknown.known, std::vector<std::string>{"mm-small"});
}

TEST_F(OneMomentReads, AnExperimentAndItsRunsAreReadAsOfOneMoment) {
  load();
  bool waited = false;
  // hetscale.runs is read for the runs alone, after the plan; a run's parameter value is
  // its parameters' value of the experiment's parameter.
  const collector::ExperimentSnapshot stored = read_across_a_change(
      db_, "hetscale.runs",
      [](pg::Connection& conn) { return collector::read_experiment_snapshot(conn, "mm-small"); },
      "UPDATE hetscale.experiments SET parameter = 'M' WHERE name = 'mm-small'", waited);
  ASSERT_TRUE(waited) << "the read never reached the runs' lock";
  ASSERT_TRUE(stored.experiment);
  EXPECT_EQ(stored.experiment->parameter, "N");
  const auto with_parameter = std::count_if(stored.runs.begin(), stored.runs.end(),
                                            [](const auto& run) { return run.parameter; });
  EXPECT_EQ(with_parameter, 12) << "the runs of a later moment";
}

}  // namespace
}  // namespace hetscale::test
