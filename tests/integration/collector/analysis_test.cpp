// `hetscale analyze` on a synthetic experiment whose answer is known in closed form:
// E_s(N) = N / (N + 20 p) on p nodes reaches 0.5 at N = 20 p, so from 2 to 4 nodes
// (C = 100 -> 200 Mflops) N doubles, W = 2 N^3 grows 8-fold: psi = (200 W) / (100 * 8 W) = 1/4.
#include "hetscale/collector/analysis.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>

#include "hetscale/collector/collect.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

const fs::path plan_fixture = fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

double efficiency(double n, int nodes) {
  return n / (n + 20.0 * nodes);
}

// Runs of set `set` (2 << set nodes, C = 100 (set + 1) Mflops) at the given N, 2 repetitions.
std::vector<nlohmann::json> runs(int set, std::initializer_list<double> ns, int& serial) {
  std::vector<nlohmann::json> out;
  const int nodes = 2 << set;
  const double speed = 100.0 * (set + 1);
  for (double n : ns) {
    for (int rep = 0; rep < 2; ++rep) {
      const double work = 2 * n * n * n;
      const double seconds = work / (efficiency(n, nodes) * speed * 1e6);
      out.push_back(record_json("mm-small", n, set, rep, work, seconds, speed, nodes, serial++));
    }
  }
  return out;
}

class Analyze : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.migrate();
    file_ =
        fs::temp_directory_path() / ("hetscale-analyze-" + std::to_string(::getpid()) + ".jsonl");
  }
  void TearDown() override { fs::remove(file_); }

  void load(const std::vector<nlohmann::json>& records) {
    write_lines(file_, dump_all(records));
    collector::CollectOptions options;
    options.inputs.push_back(plan_fixture.string());
    options.inputs.push_back(file_.string());
    std::istringstream no_stdin;
    std::ostringstream log;
    collector::collect(db_.uri(), options, no_stdin, log);
  }

  TestDatabase db_;
  fs::path file_;
};

TEST_F(Analyze, RequiredWorkAndPsiMatchTheClosedForm) {
  int serial = 0;
  std::vector<nlohmann::json> all = runs(0, {10, 20, 40, 80, 160}, serial);
  for (auto& r : runs(1, {20, 40, 80, 160, 320}, serial)) all.push_back(r);
  load(all);
  pg::Connection conn = db_.connect();
  const collector::Analysis a = collector::analyze(conn, "mm-small", 0.5);
  EXPECT_EQ(a.parameter, "N");
  EXPECT_EQ(a.workload, "2*N^3");
  EXPECT_EQ(a.speed_unit, "Mflops");
  ASSERT_EQ(a.sets.size(), 2u);
  EXPECT_EQ(a.sets[0].node_count, 2);
  EXPECT_EQ(a.sets[1].node_count, 4);
  EXPECT_EQ(a.sets[1].group_counts, "blade=2 server=2");
  EXPECT_EQ(a.sets[0].runs, 10u);
  ASSERT_EQ(a.sets[0].reading.status, TargetReading::Status::found);
  EXPECT_NEAR(a.sets[0].reading.parameter, 40, 1e-6);
  EXPECT_NEAR(*a.sets[0].work, 128000, 1e-2);
  ASSERT_EQ(a.sets[1].reading.status, TargetReading::Status::found);
  EXPECT_NEAR(a.sets[1].reading.parameter, 80, 1e-6);
  EXPECT_NEAR(*a.sets[1].work, 1024000, 1e-1);
  EXPECT_NEAR(*a.sets[1].nearest_efficiency, 0.5, 1e-12);
  EXPECT_EQ(*a.sets[1].nearest_parameter, 80);
  ASSERT_EQ(a.psi.size(), 1u);
  EXPECT_NEAR(*a.psi[0].psi, 0.25, 1e-9);
  // Stored for dashboards: the view gives the same psi.
  EXPECT_NEAR(
      std::stod(db_.scalar("SELECT psi FROM hetscale.set_psi WHERE target_efficiency = 0.5")), 0.25,
      1e-9);
  // Analysing again replaces, never duplicates.
  collector::analyze(conn, "mm-small", 0.5);
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.required_work"), "2");
}

TEST_F(Analyze, SaysWhatToRunWhenASetDoesNotBracketTheTarget) {
  int serial = 0;
  std::vector<nlohmann::json> all = runs(0, {10, 20, 40, 80}, serial);
  for (auto& r : runs(1, {20, 40}, serial)) all.push_back(r);  // E_s <= 1/3 < 0.5 on 4 nodes
  load(all);
  pg::Connection conn = db_.connect();
  const collector::Analysis a = collector::analyze(conn, "mm-small", 0.5);
  ASSERT_EQ(a.sets.size(), 2u);
  EXPECT_EQ(a.sets[1].reading.status, TargetReading::Status::above_range);
  EXPECT_EQ(a.sets[1].advice,
            "the runs do not bracket the target: run larger N than 40 on this set "
            "(hetscale jobgen --refine adds such values)");
  EXPECT_FALSE(a.psi[0].psi.has_value());
  EXPECT_EQ(db_.scalar("SELECT status FROM hetscale.required_work WHERE set_index = 1"),
            "above_range");
}

TEST_F(Analyze, NamesAnUnknownExperiment) {
  pg::Connection conn = db_.connect();
  try {
    collector::analyze(conn, "nope", 0.5);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "analyze: no experiment 'nope' in the database");
  }
}

}  // namespace
}  // namespace hetscale::test
