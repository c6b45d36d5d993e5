// The analysis views on a synthetic experiment whose answers are known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "hetscale/collector/collect.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

const fs::path plan_fixture = fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

class Views : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.migrate();
    file_ = fs::temp_directory_path() / ("hetscale-views-" + std::to_string(::getpid()) + ".jsonl");
  }
  void TearDown() override { fs::remove(file_); }

  void load(const std::vector<nlohmann::json>& records, bool with_plan = true) {
    write_lines(file_, dump_all(records));
    collector::CollectOptions options;
    if (with_plan) options.inputs.push_back(plan_fixture.string());
    options.inputs.push_back(file_.string());
    std::istringstream no_stdin;
    std::ostringstream log;
    collector::collect(db_.uri(), options, no_stdin, log);
  }

  double number(const std::string& sql) { return std::stod(db_.scalar(sql)); }

  TestDatabase db_;
  fs::path file_;
};

// E_s = W / (T C): W = 2 N^3 flop, C in Mflops, T chosen for a given E_s.
double seconds_for(double work, double marked_speed_mflops, double efficiency) {
  return work / (efficiency * marked_speed_mflops * 1e6);
}

TEST_F(Views, SpeedEfficiencyPerRunConvertsTheUnit) {
  const double work = 2 * 400.0 * 400 * 400;
  load({record_json("mm-small", 400, 0, 0, work, seconds_for(work, 100, 0.25), 100, 2, 1)});
  EXPECT_NEAR(number("SELECT speed_efficiency FROM hetscale.run_efficiency"), 0.25, 1e-12);
  EXPECT_NEAR(number("SELECT achieved_speed FROM hetscale.run_efficiency"), 0.25 * 100e6, 1e-3);
  EXPECT_EQ(db_.scalar("SELECT parameter_value FROM hetscale.run_efficiency"), "400");
}

TEST_F(Views, AMissingMarkedSpeedComesFromThePlannedSet) {
  const double work = 2e6;
  nlohmann::json record =
      record_json("mm-small", 100, 1, 0, work, seconds_for(work, 200, 0.5), 200, 2, 1);
  record["marked_speed"] = 0;
  record["speed_unit"] = "";
  load({record});
  EXPECT_NEAR(number("SELECT speed_efficiency FROM hetscale.run_efficiency"), 0.5, 1e-12);
  EXPECT_EQ(db_.scalar("SELECT speed_unit FROM hetscale.run_efficiency"), "Mflops");
}

TEST_F(Views, TheCurveAveragesRepetitions) {
  const double work = 2e6;
  load({record_json("mm-small", 100, 0, 0, work, seconds_for(work, 100, 0.2), 100, 2, 1),
        record_json("mm-small", 100, 0, 1, work, seconds_for(work, 100, 0.4), 100, 2, 2),
        record_json("mm-small", 200, 0, 0, work * 8, seconds_for(work * 8, 100, 0.5), 100, 2, 3)});
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.set_efficiency_curve"), "2");
  EXPECT_NEAR(
      number(
          "SELECT speed_efficiency FROM hetscale.set_efficiency_curve WHERE parameter_value = 100"),
      0.3, 1e-12);
  EXPECT_EQ(
      db_.scalar("SELECT runs FROM hetscale.set_efficiency_curve WHERE parameter_value = 100"),
      "2");
}

// With E_s(N) = N / (N + 50 p) on p nodes, the target E is reached at N = 50 p E / (1 - E);
// from 2 to 4 nodes N doubles, W = 2 N^3 grows 8-fold while C doubles: psi = 2/8.
TEST_F(Views, PsiBetweenConsecutiveSetsIsTheClosedForm) {
  load({}, true);
  const double target = 0.3;
  const auto required = [&](int nodes) {
    const double n = 50.0 * nodes * target / (1 - target);
    return 2 * n * n * n;
  };
  pg::Connection conn = db_.connect();
  for (int set = 0; set < 2; ++set) {
    const int nodes = 2 << set;
    conn.exec(
        "INSERT INTO hetscale.required_work (experiment_id, set_index, target_efficiency, "
        "node_count, marked_speed, status, parameter_value, work, explanation) "
        "SELECT experiment_id, $1, $2, $3, $4, 'found', $5, $6, 'read off the fitted curve' "
        "FROM hetscale.experiments WHERE name = 'mm-small'",
        {std::to_string(set), "0.3", std::to_string(nodes), std::to_string(100 * (set + 1)), "1",
         std::to_string(required(nodes))});
  }
  EXPECT_NEAR(number("SELECT psi FROM hetscale.set_psi"), 0.25, 1e-9);
  EXPECT_EQ(db_.scalar("SELECT set_index || '->' || next_set_index FROM hetscale.set_psi"), "0->1");
}

TEST_F(Views, PsiIsNullWhereASetDidNotReachTheTarget) {
  load({}, true);
  pg::Connection conn = db_.connect();
  conn.exec(
      "INSERT INTO hetscale.required_work (experiment_id, set_index, target_efficiency, "
      "node_count, "
      "marked_speed, status, parameter_value, work, explanation) "
      "SELECT experiment_id, 0, 0.3, 2, 100, 'found', 100, 2e6, 'ok' FROM hetscale.experiments "
      "UNION ALL "
      "SELECT experiment_id, 1, 0.3, 4, 200, 'above_range', NULL, NULL, 'larger problems needed' "
      "FROM hetscale.experiments");
  EXPECT_EQ(db_.scalar("SELECT psi FROM hetscale.set_psi"), "NULL");
}

// Rank 1 (host n2) takes 1 s then 3 s for the same work: TH = stddev_samp / mean =
// sqrt(2) / 2; rank 0 (n1) takes 2 s both times: TH = 0. SH = max - mean = sqrt(2)/4.
TEST_F(Views, TemporalAndSpatialHeterogeneity) {
  std::vector<nlohmann::json> records;
  for (int rep = 0; rep < 2; ++rep) {
    nlohmann::json r = record_json("mm-small", 100, 0, rep, 2e6, 3, 100, 2, rep);
    r["ranks"][0]["compute_seconds"] = 2.0;
    r["ranks"][1]["compute_seconds"] = rep == 0 ? 1.0 : 3.0;
    records.push_back(r);
  }
  load(records);
  EXPECT_NEAR(number("SELECT th FROM hetscale.node_temporal_heterogeneity WHERE host = 'n2'"),
              std::sqrt(2.0) / 2, 1e-12);
  EXPECT_NEAR(number("SELECT th FROM hetscale.node_temporal_heterogeneity WHERE host = 'n1'"), 0,
              1e-12);
  EXPECT_NEAR(number("SELECT sh FROM hetscale.set_spatial_heterogeneity"), std::sqrt(2.0) / 4,
              1e-12);
  EXPECT_EQ(db_.scalar("SELECT nodes FROM hetscale.set_spatial_heterogeneity"), "2");
}

}  // namespace
}  // namespace hetscale::test
