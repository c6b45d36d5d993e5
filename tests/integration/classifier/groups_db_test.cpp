// `hetscale groups --db`: the site table's site, groups and nodes, and every node
// record's figure as a benchmark history point, stored in a real PostgreSQL database in
// one transaction (docs/admin-classify.md, docs/schema.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

using CliResult = cli::testing::Result;

using cli::testing::hetscale;
using cli::testing::read_file;

const std::string good = std::string(HETSCALE_FIXTURES_DIR) + "/node-records/good.jsonl";

class GroupsDatabase : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hetscale-groups-db-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  CliResult groups(const std::vector<std::string>& inputs, const fs::path& output) const {
    std::vector<std::string> args{"groups",  "--site-name", "lab",          "--db",
                                  db_.uri(), "-o",          output.string()};
    args.insert(args.end(), inputs.begin(), inputs.end());
    return hetscale(args);
  }

  fs::path root_;
  TestDatabase db_;
};

TEST_F(GroupsDatabase, StoresTheSiteAndEveryRecordOnce) {
  db_.migrate();
  auto r = groups({good}, root_ / "site.toml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(
      r.err,
      "hetscale groups: stored site 'lab' in the database: 3 nodes, 3 new benchmark points\n");
  // The same table as without --db.
  const auto plain = hetscale({"groups", "--site-name", "lab", "-o", "-", good});
  EXPECT_EQ(read_file(root_ / "site.toml"), plain.out);
  EXPECT_EQ(db_.scalar("SELECT name || ' ' || speed_unit || ' ' || benchmark FROM hetscale.sites"),
            "lab Mflops dgemm");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.groups"), "1");
  EXPECT_EQ(
      db_.scalar("SELECT string_agg(name || ':' || state, ',' ORDER BY name) FROM hetscale.nodes"),
      "n1:ok,n2:ok,n3:ok");
  // History holds each record's own figure and time.
  EXPECT_EQ(
      db_.scalar(
          "SELECT string_agg(n.name || '=' || h.marked_speed || '@' || "
          "to_char(h.observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), ',' ORDER BY n.name) "
          "FROM hetscale.benchmark_history h JOIN hetscale.nodes n USING (node_id) "
          "WHERE h.benchmark = 'dgemm'"),
      "n1=1000@2026-11-21 06:00,n2=1010@2026-11-21 06:00,n3=995@2026-11-21 06:00");

  // Again with the same records: nothing new.
  r = groups({good}, root_ / "again.toml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(
      r.err,
      "hetscale groups: stored site 'lab' in the database: 3 nodes, 0 new benchmark points\n");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.benchmark_history"), "3");

  // n2 classified again a day later: one more point; the table keeps the newest record.
  std::string line;
  {
    std::ifstream in(good);
    std::getline(in, line);
    std::getline(in, line);
  }
  line.replace(line.find("2026-11-21T06:00:00Z"), 20, "2026-11-22T06:00:00Z");
  line.replace(line.find("\"marked_speed\":1010"), 19, "\"marked_speed\":990");
  std::ofstream(root_ / "n2-again.jsonl") << line << '\n';
  r = groups({good, (root_ / "n2-again.jsonl").string()}, root_ / "newer.toml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("stored site 'lab' in the database: 3 nodes, 1 new benchmark point\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(db_.scalar("SELECT string_agg(h.marked_speed::text, ',' ORDER BY h.observed_at) "
                       "FROM hetscale.benchmark_history h JOIN hetscale.nodes n USING (node_id) "
                       "WHERE n.name = 'n2'"),
            "1010,990");
}

// A record of `classify --availability` also stores its availability, once; the views give
// the node's TH from it.
TEST_F(GroupsDatabase, StoresTheAvailabilityOfARecordThatHasOne) {
  db_.migrate();
  std::ifstream in(good);
  std::ostringstream lines;
  for (std::string line; std::getline(in, line);) {
    auto record = nlohmann::json::parse(line);
    if (record.at("host") == "n2")
      record["availability"] = {{"period_seconds", 0.4}, {"window_seconds", 0.1},
                                {"reference_speed", 1010}, {"reference", "measured"},
                                {"mean", 0.75}, {"sd", 0.25}, {"th", 1.0 / 3},
                                {"correlation_seconds", 0.15}, {"series", {1, 0.5, 1, 0.5}}};
    lines << record.dump() << '\n';
  }
  std::ofstream(root_ / "records.jsonl") << lines.str();
  for (int round = 0; round < 2; ++round) {
    const auto r = groups({(root_ / "records.jsonl").string()}, root_ / "site.toml");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, round == 0 ? "hetscale groups: stored site 'lab' in the database: 3 nodes, 3 "
                                  "new benchmark points, 1 new availability measurement\n"
                                : "hetscale groups: stored site 'lab' in the database: 3 nodes, 0 "
                                  "new benchmark points\n");
  }
  EXPECT_EQ(db_.scalar("SELECT node || ' ' || a || ' ' || sigma_a || ' ' || correlation_seconds "
                       "FROM hetscale.node_availability_th"),
            "n2 0.75 0.25 0.15");
  EXPECT_EQ(db_.scalar("SELECT series::text FROM hetscale.availability_history"), "{1,0.5,1,0.5}");
}

TEST_F(GroupsDatabase, AnUnmigratedDatabaseGetsNothingAndNoTableIsWritten) {
  const auto r = groups({good}, root_ / "site.toml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("hetscale groups: "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(root_ / "site.toml"));
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = 'hetscale'"), "0");
}

}  // namespace
}  // namespace hetscale::test
