// PostgreSQL restarted while `collect` loads (issue 8). The test starts a private server
// with scripts/pg.sh on its own port and run directory (the shared fixture server is not
// touched) and restarts it with `pg_ctl restart -m fast` midway: the data stays, every
// session is cut. `pg.sh restart` is not used because it re-creates the data directory
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
#include "record_text.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

constexpr int record_count = 20000;
constexpr int ranks = 2;

int shell(const std::string& command) {
  return std::system(command.c_str());
}

// A server of its own, removed (data and all) at the end.
class PrivateServer {
 public:
  PrivateServer()
      : dir_(fs::path("/tmp") / ("hetscale-restart-" + std::to_string(::getpid()))),
        port_(std::to_string(41000 + ::getpid() % 4000)) {
    up_ = shell(script() + " up --run-dir " + dir_.string() + " --port " + port_ + " >" +
                (dir_.string() + ".log") + " 2>&1") == 0;
  }
  PrivateServer(const PrivateServer&) = delete;
  PrivateServer& operator=(const PrivateServer&) = delete;
  ~PrivateServer() {
    shell(script() + " down --run-dir " + dir_.string() + " >/dev/null 2>&1");
    fs::remove_all(dir_);
    fs::remove(dir_.string() + ".log");
  }

  [[nodiscard]] bool up() const { return up_; }
  [[nodiscard]] std::string uri() const {
    std::ifstream in(dir_ / "uri");
    std::string uri;
    std::getline(in, uri);
    return uri;
  }
  // Stops the server (fast: sessions are cut, open transactions roll back) and starts it
  // again on the same data with the same options (postmaster.opts).
  [[nodiscard]] bool restart() const {
    return shell(
               "runuser -u postgres -- \"$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
               "/pg_ctl\" restart -D " +
               dir_.string() + "/data -m fast -w -t 60 -l " + dir_.string() +
               "/log/postgres.log >/dev/null 2>&1") == 0;
  }

 private:
  static std::string script() { return std::string(HETSCALE_SOURCE_DIR) + "/scripts/pg.sh"; }
  fs::path dir_;
  std::string port_;
  bool up_ = false;
};

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
  PrivateServer server;
  ASSERT_TRUE(server.up()) << "scripts/pg.sh up failed";
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
