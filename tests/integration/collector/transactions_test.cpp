// How the collector's connections and transactions are set up: one snapshot for reads,
// lock and idle timeouts for loads, connect timeout and keepalives for every connection.
#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>

#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/pg.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

class Transactions : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.migrate();
    dir_ = fs::temp_directory_path() /
           ("hetscale-tx-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void load(int first, int count) {
    std::vector<std::string> lines;
    for (int i = first; i < first + count; ++i)
      lines.push_back(record_json("tx", 100 + i, 0, 0, 2e6, 0.5, 100, 2, i).dump());
    const fs::path file = dir_ / ("runs-" + std::to_string(first) + ".jsonl");
    write_lines(file, lines);
    collector::CollectOptions options;
    options.inputs = {file.string()};
    std::istringstream no_stdin;
    std::ostringstream log;
    collector::collect(db_.uri(), options, no_stdin, log);
  }

  TestDatabase db_;
  fs::path dir_;
};

long long runs(pg::Connection& conn) {
  return conn.exec("SELECT count(*) FROM hetscale.runs").integer(0, 0);
}

TEST_F(Transactions, ASnapshotReadSeesOneMomentAndWritesNothing) {
  load(0, 3);
  pg::Connection reader = db_.connect();
  {
    pg::Transaction snapshot(reader, pg::TransactionMode::snapshot);
    EXPECT_EQ(reader.exec("SHOW transaction_isolation").text(0, 0), "repeatable read");
    EXPECT_EQ(reader.exec("SHOW transaction_read_only").text(0, 0), "on");
    EXPECT_EQ(runs(reader), 3);
    load(3, 2);  // committed by another session meanwhile
    EXPECT_EQ(runs(reader), 3) << "the snapshot moved";
    try {
      reader.exec("DELETE FROM hetscale.required_work");
      FAIL() << "a read-only snapshot wrote";
    } catch (const pg::DbError& e) {
      EXPECT_EQ(e.sqlstate(), "25006");  // read_only_sql_transaction
    }
  }
  EXPECT_EQ(runs(reader), 5);
}

TEST_F(Transactions, RepeatableReadKeepsItsSnapshotAndMayWrite) {
  load(0, 2);
  pg::Connection conn = db_.connect();
  pg::Transaction tx(conn, pg::TransactionMode::repeatable_read);
  EXPECT_EQ(conn.exec("SHOW transaction_isolation").text(0, 0), "repeatable read");
  EXPECT_EQ(runs(conn), 2);
  load(2, 1);
  EXPECT_EQ(runs(conn), 2);
  conn.exec("DELETE FROM hetscale.required_work");
  tx.commit();
}

TEST_F(Transactions, ALoadHasALockTimeoutAndAnIdleTimeoutForItsTransactionOnly) {
  pg::Connection conn = db_.connect();
  {
    pg::Transaction tx(conn, pg::TransactionMode::load);
    EXPECT_EQ(conn.exec("SHOW lock_timeout").text(0, 0), "30s");
    EXPECT_EQ(conn.exec("SHOW idle_in_transaction_session_timeout").text(0, 0), "1min");
    tx.commit();
  }
  EXPECT_EQ(conn.exec("SHOW lock_timeout").text(0, 0), "0");
}

TEST_F(Transactions, ALoadWaitingOnAnotherGivesUpAtItsLockTimeout) {
  // The first load holds a run's key; the second, with a short lock_timeout of its own,
  // gives up with 55P03, which the session retries.
  pg::Connection holder = db_.connect();
  pg::Transaction held(holder, pg::TransactionMode::load);
  holder.exec("INSERT INTO hetscale.experiments (name, code, workload) VALUES ('x', 'mm', 'N')");
  pg::Connection waiter = db_.connect();
  pg::Transaction tx(waiter, pg::TransactionMode::load);
  waiter.exec("SET LOCAL lock_timeout = '200ms'");
  try {
    waiter.exec("INSERT INTO hetscale.experiments (name, code, workload) VALUES ('x', 'mm', 'N')");
    FAIL() << "no lock timeout";
  } catch (const pg::DbError& e) {
    EXPECT_EQ(e.sqlstate(), "55P03");
    EXPECT_TRUE(e.retryable());
  }
}

TEST_F(Transactions, EveryConnectionNamesItselfAndKeepsWhatTheUserGave) {
  pg::Connection conn = db_.connect();
  EXPECT_EQ(conn.exec("SELECT application_name FROM pg_stat_activity WHERE pid = "
                      "pg_backend_pid()")
                .text(0, 0),
            "hetscale");
  // The same server as a key=value string with an application name of the user's own.
  std::string conninfo;
  for (const auto& [keyword, value] : pg::connection_options(db_.uri())) {
    if (keyword == "fallback_application_name") continue;
    conninfo += keyword + "='" + value + "' ";
  }
  conninfo += "application_name=mine";
  pg::Connection named = pg::Connection::open(conninfo);
  EXPECT_EQ(named
                .exec("SELECT application_name FROM pg_stat_activity WHERE pid = "
                      "pg_backend_pid()")
                .text(0, 0),
            "mine");
}

}  // namespace
}  // namespace hetscale::test
