// collector::store_site (`hetscale groups --db`) against a real server: the site, groups,
// nodes and benchmark points in one load transaction, with the caller's step just before
// its commit; nothing of it on an error of either side; the whole unit again on a lost
// connection.
#include <gtest/gtest.h>

#include <stdexcept>

#include "hetscale/collector/plan_loader.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

PlanSite lab() {
  PlanSite site;
  site.name = "lab";
  site.speed_unit = "Mflops";
  site.benchmark = "dgemm";
  site.groups = {{"blade", 20, {}}, {"server", 40, {}}};
  site.nodes = {{"b1", "blade", 1, 20, NodeState::ok, {}},
                {"b2", "blade", 1, 20, NodeState::degraded, {}},
                {"s1", "server", 2, 40, NodeState::ok, {}}};
  return site;
}

// One point per node, and one of a host outside the site (skipped).
std::vector<collector::BenchmarkPoint> points() {
  return {{"b1", "dgemm", "2026-11-21T06:00:00Z", 20.5, std::nullopt},
          {"b2", "dgemm", "2026-11-21T06:00:00Z", 15, std::nullopt},
          {"s1", "dgemm", "2026-11-21T06:00:00Z", 41, std::nullopt},
          {"x9", "dgemm", "2026-11-21T06:00:00Z", 50, std::nullopt}};
}

class SiteStore : public ::testing::Test {
 protected:
  [[nodiscard]] std::string nodes() const {
    return db_.scalar(
        "SELECT string_agg(n.name || ':' || g.name || ':' || n.state, ',' ORDER BY n.name) "
        "FROM hetscale.nodes n JOIN hetscale.groups g USING (group_id)");
  }
  [[nodiscard]] std::string count(const std::string& table) const {
    return db_.scalar("SELECT count(*) FROM hetscale." + table);
  }

  TestDatabase db_;
};

TEST_F(SiteStore, StoresTheSiteInOneTransactionWithTheCallersStepBeforeItsCommit) {
  db_.migrate();
  int steps = 0;
  const collector::SiteCounts counts = collector::store_site(db_.uri(), lab(), points(), [&] {
    ++steps;
    // Inside the transaction: another session sees nothing of it yet.
    EXPECT_EQ(count("sites"), "0");
    EXPECT_EQ(count("nodes"), "0");
  });
  EXPECT_EQ(steps, 1);
  EXPECT_EQ(counts.nodes, 3u);
  EXPECT_EQ(counts.points_added, 3);
  EXPECT_EQ(counts.availability_added, 0);
  EXPECT_EQ(db_.scalar("SELECT name || ' ' || speed_unit || ' ' || benchmark FROM hetscale.sites"),
            "lab Mflops dgemm");
  EXPECT_EQ(nodes(), "b1:blade:ok,b2:blade:degraded,s1:server:ok");
  EXPECT_EQ(count("benchmark_history"), "3");

  // Again, without a step: the same rows, no new point.
  const collector::SiteCounts again = collector::store_site(db_.uri(), lab(), points());
  EXPECT_EQ(again.nodes, 3u);
  EXPECT_EQ(again.points_added, 0);
  EXPECT_EQ(count("benchmark_history"), "3");
}

TEST_F(SiteStore, AFailedStepBeforeTheCommitStoresNothing) {
  db_.migrate();
  EXPECT_THROW(collector::store_site(db_.uri(), lab(), points(),
                                     [] { throw Error("cannot write the site table"); }),
               Error);
  EXPECT_EQ(count("sites"), "0");
  EXPECT_EQ(count("nodes"), "0");
  EXPECT_EQ(count("benchmark_history"), "0");
}

TEST_F(SiteStore, ADatabaseNotAtTheCurrentSchemaIsRefusedBeforeTheStep) {
  int steps = 0;
  try {
    collector::store_site(db_.uri(), lab(), points(), [&] { ++steps; });
    FAIL() << "stored into an unmigrated database";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hetscale db migrate"), std::string::npos) << e.what();
  }
  EXPECT_EQ(steps, 0);
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = 'hetscale'"), "0");
}

TEST_F(SiteStore, ALostConnectionRunsTheWholeUnitAgainAndStoresItOnce) {
  db_.migrate();
  int steps = 0;
  const collector::SiteCounts counts = collector::store_site(db_.uri(), lab(), points(), [&] {
    if (++steps > 1) return;
    // The first time: the storing session, idle in its transaction, is ended by the server.
    EXPECT_EQ(db_.scalar("SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity "
                         "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                         "AND state = 'idle in transaction'"),
              "1");
  });
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(counts.nodes, 3u);
  EXPECT_EQ(counts.points_added, 3);
  EXPECT_EQ(nodes(), "b1:blade:ok,b2:blade:degraded,s1:server:ok");
  EXPECT_EQ(count("benchmark_history"), "3");
}

}  // namespace
}  // namespace hetscale::test
