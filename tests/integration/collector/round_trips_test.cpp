// How often the collector waits for the server: a pipeline of statements is one round trip,
// and a batch of runs costs a fixed number of them, whatever its size. Counted from libpq's
// protocol trace (pg::Connection::trace): each time a message from the server follows one
// sent to it, the client waited once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"
#include "hetscale/collector/run_loader.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

struct CloseFile {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

// Runs `work` on `conn` with the protocol traced; returns the trace.
template <typename Work>
std::string traced(pg::Connection& conn, Work&& work) {
  std::unique_ptr<std::FILE, CloseFile> file(std::tmpfile());
  conn.trace(file.get());
  try {
    work();
  } catch (...) {
    conn.trace(nullptr);
    throw;
  }
  conn.trace(nullptr);
  std::fflush(file.get());
  std::rewind(file.get());
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0;)
    text.append(buffer, n);
  return text;
}

// The waits in a trace: lines from the server ("B") right after lines to it ("F").
int round_trips(const std::string& trace) {
  std::istringstream lines(trace);
  int waits = 0;
  char previous = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || (line[0] != 'F' && line[0] != 'B')) continue;
    if (line[0] == 'B' && previous == 'F') ++waits;
    previous = line[0];
  }
  return waits;
}

// `count` distinct records from serial `first` on.
std::vector<NumberedRunRecord> records(int count, int first = 0) {
  std::vector<NumberedRunRecord> out;
  for (int i = 0; i < count; ++i) {
    const std::string text =
        record_json("mm-small", 100 + i, 0, 0, 2e6, 0.5, 100, 8, first + i).dump();
    out.push_back({static_cast<std::uint32_t>(i + 1),
                   parse_run_record_line(text, "runs.jsonl", static_cast<std::uint32_t>(i + 1))});
  }
  return out;
}

struct MigratedDatabase : TestDatabase {
  MigratedDatabase() { migrate(); }
};

TEST(Pipeline, ItsStatementsAreOneRoundTripAndAnswerInOrder) {
  MigratedDatabase db;
  pg::Connection conn = db.connect();
  std::vector<pg::Result> results;
  const std::vector<pg::Statement> statements = {
      {"SELECT 1", {}}, {"SELECT $1::text || 'b'", {"a"}}, {"SELECT $1::integer * 2", {"21"}}};
  const std::string trace = traced(conn, [&] { results = conn.exec_pipeline(statements); });
  EXPECT_EQ(round_trips(trace), 1) << trace;
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].text(0, 0), "1");
  EXPECT_EQ(results[1].text(0, 0), "ab");
  EXPECT_EQ(results[2].integer(0, 0), 42);
}

TEST(Pipeline, TheFirstFailureIsThrownTheRestDoesNotRunAndTheConnectionServesOn) {
  MigratedDatabase db;
  pg::Connection conn = db.connect();
  conn.exec("CREATE TABLE public.t (x integer PRIMARY KEY)");
  std::vector<pg::Statement> statements = pg::begin_statements(pg::TransactionMode::load);
  statements.push_back({"INSERT INTO public.t VALUES (1)", {}});
  statements.push_back({"INSERT INTO public.t VALUES (1)", {}});  // unique violation
  statements.push_back({"INSERT INTO public.t VALUES (2)", {}});
  try {
    pg::Transaction tx(conn, pg::BeganInPipeline{});
    conn.exec_pipeline(statements);
    FAIL() << "no error";
  } catch (const pg::DbError& e) {
    EXPECT_EQ(e.sqlstate(), "23505");
    EXPECT_TRUE(e.retryable());
    EXPECT_FALSE(e.connection_lost());
  }
  // Rolled back as a whole, and the connection is out of pipeline mode.
  EXPECT_EQ(conn.exec("SELECT count(*) FROM public.t").text(0, 0), "0");
  EXPECT_EQ(conn.exec("SELECT current_setting('lock_timeout')").text(0, 0), "0");
  EXPECT_EQ(conn.exec_pipeline(std::vector<pg::Statement>{{"SELECT 7", {}}})[0].text(0, 0), "7");
}

TEST(Pipeline, BeginsALoadTransactionThatOutlivesIt) {
  MigratedDatabase db;
  pg::Connection conn = db.connect();
  std::vector<pg::Statement> statements = pg::begin_statements(pg::TransactionMode::load);
  statements.push_back({"SELECT current_setting('lock_timeout'), "
                        "current_setting('idle_in_transaction_session_timeout')",
                        {}});
  {
    pg::Transaction tx(conn, pg::BeganInPipeline{});
    const std::vector<pg::Result> results = conn.exec_pipeline(statements);
    EXPECT_EQ(results.back().text(0, 0), "30s");
    EXPECT_EQ(results.back().text(0, 1), "1min");
    // SET LOCAL holds until the transaction ends: it is still open after the pipeline.
    EXPECT_EQ(conn.exec("SELECT current_setting('lock_timeout')").text(0, 0), "30s");
  }
  EXPECT_EQ(conn.exec("SELECT current_setting('lock_timeout')").text(0, 0), "0");  // rolled back
}

// A batch: the pipeline before the COPYs (transaction, experiments, stored keys, ids), the
// two COPYs (two waits each: the server's go-ahead, then its answer), the commit. As many
// whatever the batch's size; a batch already stored: the pipeline and the commit.
TEST(RoundTrips, ABatchOfRunsAsTheOwnerTakesSixAndAStoredOneTwo) {
  MigratedDatabase db;
  pg::Connection conn = db.connect();
  for (const int size : {1, 200}) {
    const std::vector<NumberedRunRecord> batch = records(size, size);
    collector::BatchCounts counts;
    std::string trace = traced(conn, [&] { counts = collector::load_run_batch(conn, batch, "r"); });
    EXPECT_EQ(counts.runs_added, size);
    EXPECT_EQ(round_trips(trace), 6) << size << " runs:\n" << trace.substr(0, 4000);
    trace = traced(conn, [&] { counts = collector::load_run_batch(conn, batch, "r"); });
    EXPECT_EQ(counts.runs_present, size);
    EXPECT_EQ(round_trips(trace), 2) << size << " runs stored:\n" << trace.substr(0, 4000);
  }
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.runs"), "201");
}

// Under row-level security: the pipeline, the staging tables, each table's COPY into its
// staging table and INSERT ... SELECT on, the commit.
TEST(RoundTrips, ABatchOfRunsAsAWriterTakesNine) {
  MigratedDatabase db;
  const TestLogin writer(db, "round_trips_writer", "hetscale_writer");
  pg::Connection conn = writer.connect();
  const std::vector<NumberedRunRecord> batch = records(50);
  collector::BatchCounts counts;
  const std::string trace =
      traced(conn, [&] { counts = collector::load_run_batch(conn, batch, "r"); });
  EXPECT_EQ(counts.runs_added, 50);
  EXPECT_EQ(round_trips(trace), 9) << trace.substr(0, 4000);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.rank_timings"), "400");
}

}  // namespace
}  // namespace hetscale::test
