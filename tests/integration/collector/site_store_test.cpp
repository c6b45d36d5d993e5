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

// A site of hybrid "server" nodes, as `hetscale groups` writes it from node records.
PlanSite described_lab() {
  PlanSite site = lab();
  site.groups[0].fingerprint = "8e25d71214a0f49b";
  site.groups[0].hardware = "2x64c AMD EPYC 7763, 256 GB DRAM";
  site.groups[1].hardware = "1x14c Intel Core i7-1370P (6 + 8 cores of 2 kinds), 32 GB DRAM";
  GroupCpuKind efficient;
  efficient.cpus = {12, 13, 14, 15, 16, 17, 18, 19};
  efficient.efficiency = 0;
  efficient.core_type = "IntelAtom";
  efficient.marked_speed = 9.8;
  GroupCpuKind performance;
  performance.cpus = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 4294967295u};
  performance.marked_speed = 20.5;
  site.groups[1].cpu_kinds = {efficient, performance};
  return site;
}

TEST_F(SiteStore, StoresWhatEachGroupsNodesHaveAndReplacesItWhole) {
  db_.migrate();
  collector::store_site(db_.uri(), described_lab(), {});
  EXPECT_EQ(db_.scalar("SELECT string_agg(name || ':' || coalesce(fingerprint, '-') || ':' || "
                       "coalesce(hardware, '-'), ' | ' ORDER BY name) FROM hetscale.groups"),
            "blade:8e25d71214a0f49b:2x64c AMD EPYC 7763, 256 GB DRAM | "
            "server:-:1x14c Intel Core i7-1370P (6 + 8 cores of 2 kinds), 32 GB DRAM");
  // Through the views the report and the dashboards read.
  EXPECT_EQ(db_.scalar("SELECT string_agg(\"group\" || ':' || kind || ':' || array_to_string(cpus, ',') "
                       "|| ':' || cpu_count || ':' || coalesce(efficiency::text, '-') || ':' || "
                       "coalesce(core_type, '-') || ':' || marked_speed || ':' || speed_unit, ' | ' "
                       "ORDER BY kind) FROM hetscale.group_cpu_kind_speeds"),
            "server:0:12,13,14,15,16,17,18,19:8:0:IntelAtom:9.8:Mflops | "
            "server:1:0,1,2,3,4,5,6,7,8,9,10,4294967295:12:-:-:20.5:Mflops");
  EXPECT_EQ(db_.scalar("SELECT string_agg(host || ':' || coalesce(group_hardware, '-') || ':' || "
                       "group_cpu_kinds, ' | ' ORDER BY host) FROM hetscale.node_map"),
            "b1:2x64c AMD EPYC 7763, 256 GB DRAM:0 | b2:2x64c AMD EPYC 7763, 256 GB DRAM:0 | "
            "s1:1x14c Intel Core i7-1370P (6 + 8 cores of 2 kinds), 32 GB DRAM:2");

  // Stored again from a table that describes nothing (declared speeds): nothing is left of
  // the earlier description, not a stale kind.
  collector::store_site(db_.uri(), lab(), {});
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.groups WHERE fingerprint IS NOT NULL "
                       "OR hardware IS NOT NULL"),
            "0");
  EXPECT_EQ(count("group_cpu_kinds"), "0");
}

TEST_F(SiteStore, WritersAndReadersSeeTheGroupsHardwareAndCannotChangeIt) {
  db_.migrate();
  collector::store_site(db_.uri(), described_lab(), {});
  for (const char* role : {"hetscale_writer", "hetscale_reader"}) {
    SCOPED_TRACE(role);
    const TestLogin login(db_, std::string("hardware_") + (role[9] == 'w' ? "writer" : "reader"), role);
    pg::Connection conn = login.connect();
    EXPECT_EQ(conn.exec("SELECT count(*) FROM hetscale.group_cpu_kind_speeds").text(0, 0), "2");
    EXPECT_EQ(conn.exec("SELECT count(*) FROM hetscale.node_map WHERE group_hardware IS NOT NULL")
                  .text(0, 0),
              "3");
    EXPECT_THROW(conn.exec("DELETE FROM hetscale.group_cpu_kinds"), pg::DbError);
    EXPECT_THROW(conn.exec("UPDATE hetscale.groups SET hardware = 'forged'"), pg::DbError);
  }
  EXPECT_EQ(count("group_cpu_kinds"), "2");
}

}  // namespace
}  // namespace hetscale::test
