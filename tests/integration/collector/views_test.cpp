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

// Two repetitions whose slowest ranks compute 6 s and 3 s of T = 10 s and 5 s: the means
// are 7.5 s of T, 4.5 s of compute and 3 s outside it; a third run whose ranks timed no
// compute (all 0) is not counted, though the curve averages it.
TEST_F(Views, TheTimeSplitTakesEachRunsSlowestRank) {
  const double work = 2e6;
  nlohmann::json a = record_json("mm-small", 100, 0, 0, work, 10, 100, 2, 1);
  a["ranks"][0]["compute_seconds"] = 6;
  a["ranks"][1]["compute_seconds"] = 2;
  nlohmann::json b = record_json("mm-small", 100, 0, 1, work, 5, 100, 2, 2);
  b["ranks"][0]["compute_seconds"] = 1;
  b["ranks"][1]["compute_seconds"] = 3;
  nlohmann::json untimed = record_json("mm-small", 100, 0, 2, work, 8, 100, 2, 3);
  for (auto& rank : untimed["ranks"]) rank["compute_seconds"] = 0;
  load({a, b, untimed});
  EXPECT_EQ(db_.scalar("SELECT runs FROM hetscale.set_efficiency_curve"), "3");
  EXPECT_EQ(db_.scalar("SELECT count(*) || ' ' || min(runs) FROM hetscale.set_time_split"), "1 2");
  EXPECT_NEAR(number("SELECT wall_seconds FROM hetscale.set_time_split"), 7.5, 1e-12);
  EXPECT_NEAR(number("SELECT slowest_compute_seconds FROM hetscale.set_time_split"), 4.5, 1e-12);
  EXPECT_NEAR(number("SELECT outside_compute_seconds FROM hetscale.set_time_split"), 3, 1e-12);
  EXPECT_EQ(db_.scalar("SELECT set_index || ' ' || parameter_value FROM hetscale.set_time_split"),
            "0 100");
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

// Rank 1 (host n2) takes 1 s then 3 s for the same work: CV = stddev_samp / mean =
// sqrt(2) / 2, mean 2 s, so sigma_T / t x sqrt(t) = sqrt(2) / 2 x sqrt(2) = 1; rank 0 (n1)
// takes 2 s both times: 0. Spread = max - mean = 1/2.
TEST_F(Views, RunTimeVariabilityPerSqrtSecond) {
  std::vector<nlohmann::json> records;
  for (int rep = 0; rep < 2; ++rep) {
    nlohmann::json r = record_json("mm-small", 100, 0, rep, 2e6, 3, 100, 2, rep);
    r["ranks"][0]["compute_seconds"] = 2.0;
    r["ranks"][1]["compute_seconds"] = rep == 0 ? 1.0 : 3.0;
    records.push_back(r);
  }
  load(records);
  EXPECT_NEAR(number("SELECT cv FROM hetscale.node_time_variability WHERE host = 'n2'"),
              std::sqrt(2.0) / 2, 1e-12);
  EXPECT_NEAR(number("SELECT time_variability_per_sqrt_s FROM hetscale.node_time_variability "
                     "WHERE host = 'n2'"),
              1, 1e-12);
  EXPECT_NEAR(number("SELECT time_variability_per_sqrt_s FROM hetscale.node_time_variability "
                     "WHERE host = 'n1'"),
              0, 1e-12);
  EXPECT_NEAR(number("SELECT spread FROM hetscale.set_time_variability_spread"), 0.5, 1e-12);
  EXPECT_EQ(db_.scalar("SELECT nodes FROM hetscale.set_time_variability_spread"), "2");
}

// TH and SH come from the availability of the nodes: b1 TH 0.1, s1 TH 0.3 (set 0 of the
// plan is b1 and s1), and a newer measurement of b1 replaces its older one.
TEST_F(Views, ThAndShFromAvailability) {
  load({});
  pg::Connection conn = db_.connect();
  const char* insert = R"(
      INSERT INTO hetscale.availability_history (node_id, benchmark, observed_at, period_seconds,
        window_seconds, reference_speed, reference, mean_availability, sd_availability, th,
        correlation_seconds, series)
      SELECT node_id, 'dgemm', $2::timestamptz, 0.2, 0.1, 20, 'given', 0.5, $3::double precision,
             $3::double precision / 0.5, 1, '{0.4,0.6}'
      FROM hetscale.nodes WHERE name = $1)";
  conn.exec(insert, {"b1", "2026-11-21T06:00:00Z", "0.2"});
  conn.exec(insert, {"b1", "2026-11-21T07:00:00Z", "0.05"});
  conn.exec(insert, {"s1", "2026-11-21T06:00:00Z", "0.15"});
  EXPECT_NEAR(number("SELECT th FROM hetscale.node_availability_th WHERE node = 'b1'"), 0.1, 1e-12);
  EXPECT_NEAR(number("SELECT sh FROM hetscale.set_availability_sh WHERE set_index = 0"),
              0.3 - 0.2, 1e-12);
  EXPECT_EQ(db_.scalar("SELECT nodes || ' ' || measured_nodes FROM hetscale.set_availability_sh "
                       "WHERE set_index = 0"),
            "2 2");
  // Set 1 adds b2 and s2, not measured: SH over the measured two, and it says so.
  EXPECT_EQ(db_.scalar("SELECT nodes || ' ' || measured_nodes FROM hetscale.set_availability_sh "
                       "WHERE set_index = 1"),
            "4 2");
}

// Experiments are unique per (cluster, owner, name): every view with an `experiment`
// column ends with the experiment's `experiment_owner` and `experiment_cluster` (but for
// the interval columns migrations 21 and 23 append after them to three views), and stays
// security_invoker (migration 12 replaced them).
TEST_F(Views, EveryViewOfExperimentsEndsWithTheirOwnerAndCluster) {
  const std::string views_with_experiment = R"(
      SELECT c.table_name FROM information_schema.columns c
      JOIN information_schema.views v USING (table_schema, table_name)
      WHERE c.table_schema = 'hetscale' AND c.column_name = 'experiment')";
  EXPECT_EQ(db_.scalar("SELECT string_agg(table_name, ',' ORDER BY table_name) FROM (" +
                       views_with_experiment + ") v"),
            "capacity_forecast,latest_partitions,node_time_variability,run_efficiency,"
            "run_slurm_jobs,set_availability_sh,set_efficiency_curve,set_psi,set_required_work,"
            "set_time_split,"
            "set_time_variability_spread,weights_comparison");
  // The columns from experiment_owner on, of the four views migrations 21 to 24 appended to.
  EXPECT_EQ(db_.scalar(R"(
      SELECT string_agg(table_name || ': ' ||
               (SELECT string_agg(column_name, ',' ORDER BY ordinal_position)
                FROM information_schema.columns c
                WHERE c.table_schema = 'hetscale' AND c.table_name = v.table_name
                  AND c.ordinal_position >= (SELECT o.ordinal_position FROM information_schema.columns o
                                             WHERE o.table_schema = 'hetscale' AND o.table_name = v.table_name
                                               AND o.column_name = 'experiment_owner')),
               '; ' ORDER BY table_name)
      FROM ()" + views_with_experiment + R"() v
      WHERE table_name IN ('capacity_forecast', 'set_efficiency_curve', 'set_psi',
                           'set_required_work'))"),
            "capacity_forecast: experiment_owner,experiment_cluster,predicted_parameter_low,"
            "predicted_parameter_high,predicted_work_low,predicted_work_high,predicted_psi_low,"
            "predicted_psi_high,interval_level,interval_method,interval_resamples,interval_note,"
            "psi_interval_note,interval_reason,psi_interval_reason; "
            "set_efficiency_curve: experiment_owner,experiment_cluster,speed_efficiency_low,"
            "speed_efficiency_high,speed_efficiency_interval_note,interval_level,interval_method,"
            "speed_efficiency_interval_reason; "
            "set_psi: experiment_owner,experiment_cluster,psi_low,psi_high,psi_interval_note,"
            "interval_level,interval_method,interval_resamples,psi_interval_reason; "
            "set_required_work: experiment_owner,experiment_cluster,parameter_low,parameter_high,"
            "work_low,work_high,interval_level,interval_method,interval_resamples,interval_note,"
            "interval_reason,precision,max_runs_per_set");
  // The last two columns of each of the others, in order.
  EXPECT_EQ(db_.scalar(R"(
      SELECT count(*) FROM ()" + views_with_experiment + R"() v
      WHERE table_name NOT IN ('capacity_forecast', 'set_efficiency_curve', 'set_psi',
                               'set_required_work')
        AND (SELECT string_agg(column_name, ',' ORDER BY ordinal_position DESC)
             FROM (SELECT column_name, ordinal_position FROM information_schema.columns c
                   WHERE c.table_schema = 'hetscale' AND c.table_name = v.table_name
                   ORDER BY ordinal_position DESC LIMIT 2) last)
            <> 'experiment_cluster,experiment_owner')"),
            "0");
  // Each reads with the caller's rights (the own_ views of private columns, migration 20,
  // filter the caller's rows themselves: PrivateColumns.*).
  EXPECT_EQ(db_.scalar(R"(
      SELECT count(*) FROM pg_class WHERE relnamespace = 'hetscale'::regnamespace
        AND relkind = 'v' AND NOT 'security_invoker=true' = ANY(COALESCE(reloptions, '{}'))
        AND relname NOT LIKE 'own\_%')"),
            "0");
}

TEST_F(Views, TheOwnerAndClusterAreTheExperiments) {
  const double work = 2e6;
  std::vector<nlohmann::json> records;
  for (int rep = 0; rep < 2; ++rep) {
    nlohmann::json r = record_json("mm-small", 100, 0, rep, work, seconds_for(work, 100, 0.25),
                                   100, 2, rep);
    r["slurm"]["cluster"] = "views-cluster";
    records.push_back(r);
  }
  load(records);
  pg::Connection conn = db_.connect();
  conn.exec(
      "INSERT INTO hetscale.required_work (experiment_id, set_index, target_efficiency, "
      "node_count, marked_speed, status, parameter_value, work, explanation) "
      "SELECT experiment_id, s, 0.3, 2 << s, 100 * (s + 1), 'found', 100, 2e6, 'ok' "
      "FROM hetscale.experiments, generate_series(0, 1) s");
  const std::string owner = db_.scalar("SELECT current_user");
  EXPECT_EQ(db_.scalar("SELECT owner || '@' || cluster FROM hetscale.experiments"),
            owner + "@views-cluster");
  for (const char* view : {"run_efficiency", "set_efficiency_curve", "set_required_work",
                           "set_psi", "node_time_variability", "set_time_variability_spread",
                           "set_time_split",
                           "set_availability_sh", "weights_comparison", "run_slurm_jobs"}) {
    SCOPED_TRACE(view);
    EXPECT_EQ(db_.scalar(std::string("SELECT string_agg(DISTINCT experiment_owner || '@' || "
                                     "experiment_cluster, ',') FROM hetscale.") +
                         view),
              owner + "@views-cluster");
  }
}

}  // namespace
}  // namespace hetscale::test
