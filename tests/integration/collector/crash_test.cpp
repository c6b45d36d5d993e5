// Crashes and concurrency while loading (docs/collector.md, "Exactly once"):
//   - a durable PostgreSQL (fsync on) killed with SIGKILL, postmaster and backends, in the
//     middle of a large load, started again: the load resumes, every committed batch is
//     there once, nothing else;
//   - two collectors whose load transactions really overlap (seen in pg_stat_activity);
//   - a soak: 20 SIGKILLs of the `hetscale collect` process while it loads a million rank
//     rows, then a last collect.
// Each checks exactly-once with counts and checksums of the runs' keys and rank rows.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/migrations.hpp"
#include "load_checks.hpp"
#include "private_server.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// `count` distinct records of `ranks` ranks, wall times varied so that the sums mean
// something; written with '\n' after every line.
fs::path write_records(const fs::path& file, const std::string& experiment, int count, int ranks) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  for (int i = 0; i < count; ++i) {
    out << record_json(experiment, 100 + i, i % 4, 0, 2e6, 0.5 + (i % 100) * 0.01, 100, ranks, i)
               .dump()
        << '\n';
  }
  return file;
}

void expect_exactly_once(pg::Connection& conn, const ExpectedLoad& expected) {
  const ExpectedLoad stored = stored_load(conn);
  EXPECT_EQ(stored.runs, expected.runs);
  EXPECT_EQ(stored.rank_rows, expected.rank_rows) << "negative: duplicate or orphan rank rows";
  EXPECT_EQ(stored.keys_md5, expected.keys_md5);
  EXPECT_EQ(stored.rank_sum, expected.rank_sum);
  EXPECT_EQ(stored.compute_sum, expected.compute_sum);
}

TEST(Crash, ADurableServerKilledMidLoadKeepsEveryCommittedBatchOnceAndTheLoadResumes) {
  ASSERT_EQ(::geteuid(), 0u) << "scripts/pg.sh needs root";
  PrivateServer server("crash", /*durable=*/true);
  ASSERT_TRUE(server.up()) << "scripts/pg.sh up --durable failed:\n" << server.log();
  {
    pg::Connection conn = pg::Connection::open(server.uri());
    ASSERT_EQ(conn.exec("SHOW fsync").text(0, 0), "on");
    ASSERT_EQ(conn.exec("SHOW synchronous_commit").text(0, 0), "on");
    collector::migrate(conn);
  }
  constexpr int records = 20000;
  constexpr int ranks = 8;
  constexpr int batch = 250;  // 80 batches: the collector keeps that size (docs/collector.md)
  const fs::path file = write_records(
      fs::temp_directory_path() / ("hetscale-crash-" + std::to_string(::getpid()) + ".jsonl"),
      "crash", records, ranks);

  collector::CollectOptions options;
  options.inputs = {file.string()};
  options.batch_size = batch;
  // Crash recovery with fsync on takes seconds on this loaded machine: patience enough
  // for the server to come back.
  options.backoff = {40, std::chrono::milliseconds(100), std::chrono::milliseconds(1000)};
  std::ostringstream log;
  auto loading = std::async(std::launch::async, [&] {
    std::istringstream no_stdin;
    return collector::collect(server.uri(), options, no_stdin, log);
  });

  // Kill once a few batches are in, with the load going on.
  long long committed = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (committed < 8 * batch && Clock::now() < deadline) {
    pg::Connection watcher = pg::Connection::open(server.uri());
    committed = stored_counts(watcher).first;
    if (committed < 8 * batch) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GE(committed, 8 * batch) << "the load never started";
  ASSERT_TRUE(server.crash()) << "pg.sh crash failed:\n" << server.log();
  ASSERT_NE(loading.wait_for(std::chrono::seconds(0)), std::future_status::ready)
      << "the load had finished before the crash";
  const auto crashed_at = Clock::now();
  ASSERT_TRUE(server.start()) << "pg.sh start failed:\n" << server.log();
  const double down_seconds = std::chrono::duration<double>(Clock::now() - crashed_at).count();

  // Right after recovery: every batch committed before the kill is there, whole; no part
  // of the batch in flight is (the count is always a whole number of batches).
  long long recovered = 0;
  {
    pg::Connection conn = pg::Connection::open(server.uri());
    const auto [runs, rank_rows] = stored_counts(conn);
    recovered = runs;
    EXPECT_GE(runs, committed);
    EXPECT_EQ(runs % batch, 0) << "a batch survived in part";
    EXPECT_EQ(rank_rows, runs * ranks);
  }
  const collector::CollectReport report = loading.get();
  EXPECT_NE(log.str().find("; retrying in"), std::string::npos) << log.str();
  EXPECT_EQ(report.runs_added + report.runs_present, records);

  pg::Connection conn = pg::Connection::open(server.uri());
  expect_exactly_once(conn, expected_load(file, conn));
  fs::remove(file);
  std::cout << "killed the server at " << committed << " committed runs (of " << records << "), "
            << recovered << " after recovery; down for " << down_seconds << " s; collector log:\n"
            << log.str();
}

// The backends of hetscale sessions of this database that hold a transaction id (have
// written in their open transaction), with the transaction's start.
struct OpenLoad {
  int pid = 0;
  std::string xact_start;
};

std::vector<OpenLoad> open_loads(pg::Connection& watcher) {
  const pg::Result r = watcher.exec(
      "SELECT pid, xact_start::text FROM pg_stat_activity "
      "WHERE datname = current_database() AND pid <> pg_backend_pid() "
      "AND application_name = 'hetscale' AND backend_xid IS NOT NULL ORDER BY pid");
  std::vector<OpenLoad> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back({static_cast<int>(r.integer(i, 0)), std::string(r.text(i, 1))});
  return out;
}

TEST(Concurrency, TwoCollectorsWhoseLoadsOverlapStoreEveryRunOnce) {
  TestDatabase db;
  db.migrate();
  const fs::path file = write_records(
      fs::temp_directory_path() / ("hetscale-overlap-" + std::to_string(::getpid()) + ".jsonl"),
      "overlap", 6000, 8);
  collector::CollectOptions options;
  options.inputs = {file.string()};
  options.batch_size = 200;
  options.backoff.first_delay = std::chrono::milliseconds(10);

  std::atomic<bool> done{false};
  std::vector<OpenLoad> overlap;  // the first moment two loads were open at once
  int samples_with_two = 0;
  std::thread watch([&] {
    pg::Connection watcher = db.connect();
    while (!done) {
      const std::vector<OpenLoad> now = open_loads(watcher);
      if (now.size() >= 2) {
        if (overlap.empty()) overlap = now;
        ++samples_with_two;
      }
    }
  });
  collector::CollectReport a;
  collector::CollectReport b;
  std::ostringstream log_a;
  std::ostringstream log_b;
  auto load = [&](collector::CollectReport& out, std::ostringstream& log) {
    std::istringstream no_stdin;
    out = collector::collect(db.uri(), options, no_stdin, log);
  };
  auto first = std::async(std::launch::async, load, std::ref(a), std::ref(log_a));
  auto second = std::async(std::launch::async, load, std::ref(b), std::ref(log_b));
  EXPECT_NO_THROW(first.get());
  EXPECT_NO_THROW(second.get());
  done = true;
  watch.join();

  ASSERT_GE(overlap.size(), 2u) << "the two loads never had transactions open at once";
  EXPECT_NE(overlap[0].pid, overlap[1].pid);
  EXPECT_EQ(a.runs_added + b.runs_added, 6000);
  EXPECT_EQ(a.runs_added + a.runs_present, 6000);
  EXPECT_EQ(b.runs_added + b.runs_present, 6000);
  pg::Connection conn = db.connect();
  expect_exactly_once(conn, expected_load(file, conn));
  fs::remove(file);
  std::cout << "two load transactions open at once in " << samples_with_two
            << " samples; first seen: backend " << overlap[0].pid << " since "
            << overlap[0].xact_start << ", backend " << overlap[1].pid << " since "
            << overlap[1].xact_start << "\nruns added: " << a.runs_added << " + " << b.runs_added
            << "\n";
}

long long runs_stored(pg::Connection& conn) {
  return conn.exec("SELECT count(*) FROM hetscale.runs").integer(0, 0);
}

// Runs `hetscale collect` as a process of its own; returns its pid.
pid_t start_collect(const std::string& uri, const fs::path& file, const fs::path& log, int batch) {
  const std::string hetscale = std::string(HETSCALE_BINARY_DIR) + "/bin/hetscale";
  const std::string batch_size = std::to_string(batch);
  const pid_t child = ::fork();
  if (child == 0) {
    std::FILE* out = std::freopen(log.c_str(), "a", stdout);
    std::FILE* err = out == nullptr ? nullptr : std::freopen(log.c_str(), "a", stderr);
    if (err != nullptr) {
      ::execl(hetscale.c_str(), hetscale.c_str(), "collect", "--db", uri.c_str(), "--batch-size",
              batch_size.c_str(), file.c_str(), static_cast<char*>(nullptr));
    }
    ::_exit(127);
  }
  return child;
}

TEST(Soak, TwentyKillsOfTheCollectorWhileLoadingAMillionRankRowsThenEveryRowOnce) {
  const auto started = Clock::now();
  TestDatabase db;
  db.migrate();
  constexpr int records = 31250;
  constexpr int ranks = 32;  // 1,000,000 rank rows
  // 250 batches of exactly 125 records: a number of batches that the collector's two
  // connections divide, so that it keeps the size asked for (docs/collector.md).
  constexpr int batch = 125;
  constexpr int kills_wanted = 20;
  const fs::path dir = fs::temp_directory_path() / ("hetscale-soak-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = write_records(dir / "runs.jsonl", "soak", records, ranks);
  const fs::path log = dir / "collect.log";
  pg::Connection watcher = db.connect();
  const ExpectedLoad expected = expected_load(file, watcher);
  ASSERT_EQ(expected.rank_rows, 1000000);

  std::mt19937 random(12345);
  // At most this long after the first commit of each process; halved whenever the load
  // goes so fast that the runs left would not last the kills left (a quiet machine).
  int max_delay_ms = 200;
  int kills = 0;
  int finished_early = 0;
  std::vector<long long> runs_at_kill;
  while (kills < kills_wanted) {
    const long long before = runs_stored(watcher);
    ASSERT_LT(before, records) << "everything loaded after " << kills << " kills";
    const pid_t child = start_collect(db.uri(), file, log, batch);
    ASSERT_GT(child, 0);
    // Wait until this process commits its first batch (reading the file comes first), then
    // kill it a random moment later: in the middle of its loading.
    int status = 0;
    bool exited = false;
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (runs_stored(watcher) == before && Clock::now() < deadline) {
      if (::waitpid(child, &status, WNOHANG) == child) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!exited) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<int>(0, max_delay_ms)(random)));
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
      ++kills;
      const auto [runs, rank_rows] = stored_counts(watcher);
      runs_at_kill.push_back(runs);
      EXPECT_EQ(runs % batch, 0) << "a batch was loaded in part";
      EXPECT_EQ(rank_rows, runs * ranks);
      const long long progress = runs - before;
      if (kills < kills_wanted && (records - runs) / (kills_wanted - kills) < 2 * progress)
        max_delay_ms /= 2;
    } else {
      ++finished_early;
      ASSERT_LT(finished_early, 3) << "collect exited on its own; log: " << log;
    }
  }
  const long long before_last = stored_counts(watcher).first;
  const pid_t last = start_collect(db.uri(), file, log, batch);
  int status = 0;
  ::waitpid(last, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the last collect failed";
  expect_exactly_once(watcher, expected);
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  std::ifstream in(log);
  std::string last_line;
  for (std::string line; std::getline(in, line);) last_line = line;
  std::cout << kills << " kills; runs stored at each:";
  for (long long r : runs_at_kill) std::cout << ' ' << r;
  std::cout << "\nbefore the last collect " << before_last << " of " << records
            << " runs; last collect: " << last_line << "\n"
            << expected.rank_rows << " rank rows exactly once; " << seconds << " s in all\n";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetscale::test
