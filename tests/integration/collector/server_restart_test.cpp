// PostgreSQL restarted while `collect` loads. The test starts a private server
// (private_server.hpp) and restarts it with `pg_ctl restart -m fast` midway: the data
// stays, every session is cut. `pg.sh restart` is not used because it re-creates the data directory
// (down removes it): that is a new, empty server, not a restart.
// Documented behaviour (docs/collector.md, "Lost connection"): the collector retries the
// interrupted batch and the load completes, every run stored exactly once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/migrations.hpp"
#include "private_server.hpp"
#include "record_text.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

constexpr int record_count = 20000;
constexpr int ranks = 2;

fs::path records_file(const fs::path& file) {
  std::vector<std::string> lines;
  lines.reserve(record_count);
  for (int i = 0; i < record_count; ++i) {
    lines.push_back(record_json("restart", 100 + i, 0, 0, 2e6, 0.5, 100, ranks, i).dump());
  }
  write_lines(file, lines);
  return file;
}

long long count(const std::string& uri, const std::string& sql) {
  pg::Connection conn = pg::Connection::open(uri);
  return conn.exec(sql).integer(0, 0);
}

TEST(ServerRestart, DuringALoadTheCollectorRetriesAndEveryRunIsStoredOnce) {
  // Like every testbed fixture, scripts/pg.sh runs as root: a plain failure, never a skip.
  ASSERT_EQ(::geteuid(), 0u) << "scripts/pg.sh needs root";
  PrivateServer server("restart");
  ASSERT_TRUE(server.up()) << "scripts/pg.sh up failed:\n" << server.log();
  {
    pg::Connection conn = pg::Connection::open(server.uri());
    collector::migrate(conn);
  }
  const fs::path file = records_file(fs::temp_directory_path() /
                                     ("hetscale-restart-" + std::to_string(::getpid()) + ".jsonl"));

  collector::CollectOptions options;
  options.inputs = {file.string()};
  options.batch_size = 200;  // 100 transactions: the restart lands between or inside them
  std::ostringstream log;
  auto loading = std::async(std::launch::async, [&] {
    std::istringstream no_stdin;
    return collector::collect(server.uri(), options, no_stdin, log);
  });

  // Restart once some batches are in and the load is still going.
  long long before = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (before == 0 && std::chrono::steady_clock::now() < deadline) {
    before = count(server.uri(), "SELECT count(*) FROM hetscale.runs");
    if (before == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GT(before, 0) << "the load never started";
  ASSERT_TRUE(server.restart()) << "pg_ctl restart failed";
  const collector::CollectReport report = loading.get();
  fs::remove(file);

  EXPECT_LT(before, record_count) << "the load had finished before the restart";
  EXPECT_NE(log.str().find("; retrying in"), std::string::npos) << log.str();
  // A batch whose COMMIT went through while its answer was lost counts as present on retry.
  EXPECT_EQ(report.runs_added + report.runs_present, record_count);
  EXPECT_EQ(count(server.uri(), "SELECT count(*) FROM hetscale.runs"), record_count);
  EXPECT_EQ(count(server.uri(), "SELECT count(DISTINCT run_key) FROM hetscale.runs"), record_count);
  EXPECT_EQ(count(server.uri(), "SELECT count(*) FROM hetscale.rank_timings"),
            static_cast<long long>(record_count) * ranks);
  EXPECT_EQ(count(server.uri(),
                  "SELECT count(*) FROM hetscale.rank_timings t WHERE NOT EXISTS "
                  "(SELECT 1 FROM hetscale.runs r WHERE r.run_id = t.run_id)"),
            0);
  std::cout << "restarted after " << before << " of " << record_count << " runs; collector log:\n"
            << log.str();
}

}  // namespace
}  // namespace hetscale::test
