// `hetscale analyze` on a synthetic experiment whose answer is known in closed form:
// E_s(N) = N / (N + 20 p) on p nodes reaches 0.5 at N = 20 p, so from 2 to 4 nodes
// (C = 100 -> 200 Mflops) N doubles, W = 2 N^3 grows 8-fold: psi = (200 W) / (100 * 8 W) = 1/4.
#include "hetscale/collector/analysis.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/extrap_export.hpp"
#include "hetscale/collector/report_views.hpp"
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

  void load(const std::vector<nlohmann::json>& records, const fs::path& plan = plan_fixture) {
    write_lines(file_, dump_all(records));
    collector::CollectOptions options;
    options.inputs.push_back(plan.string());
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

// Runs of set `set` at the given N, one repetition per factor: that repetition's E_s is
// the closed form's times the factor.
std::vector<nlohmann::json> scaled_runs(int set, std::initializer_list<double> ns,
                                        const std::vector<double>& factors, int& serial) {
  std::vector<nlohmann::json> out;
  const int nodes = 2 << set;
  const double speed = 100.0 * (set + 1);
  for (double n : ns) {
    for (std::size_t rep = 0; rep < factors.size(); ++rep) {
      const double work = 2 * n * n * n;
      const double seconds = work / (efficiency(n, nodes) * factors[rep] * speed * 1e6);
      out.push_back(record_json("mm-small", n, set, static_cast<int>(rep), work, seconds, speed,
                                nodes, serial++));
    }
  }
  return out;
}

// Every figure with its 95% interval (docs/science.md section 5), stored beside it.
TEST_F(Analyze, StoresEveryFigureWithItsInterval) {
  int serial = 0;
  const std::vector<double> spread{0.95, 1.0, 1.05};  // +-5% around the closed form
  std::vector<nlohmann::json> all = scaled_runs(0, {10, 20, 40, 80, 160}, spread, serial);
  for (auto& r : scaled_runs(1, {20, 40, 80, 160, 320}, spread, serial)) all.push_back(r);
  load(all);
  pg::Connection conn = db_.connect();
  const collector::Analysis a = collector::analyze(conn, "mm-small", 0.5);
  EXPECT_EQ(a.interval_level, 0.95);
  EXPECT_EQ(a.parameter_interval_method, "stratified residual bootstrap, percentile");
  EXPECT_EQ(a.efficiency_interval_method, "Student t interval of the mean");
  ASSERT_EQ(a.sets.size(), 2u);
  for (const auto& set : a.sets) {
    SCOPED_TRACE(set.set_index);
    const auto& i = set.parameter_interval;
    ASSERT_TRUE(i.low && i.high) << i.note;
    EXPECT_LT(*i.low, set.reading.parameter);
    EXPECT_GT(*i.high, set.reading.parameter);
    EXPECT_EQ(i.note, "");
    EXPECT_EQ(set.resamples, 2000u);
    EXPECT_NEAR(*set.work_low, 2 * *i.low * *i.low * *i.low, 1e-6 * *set.work_low);
    EXPECT_NEAR(*set.work_high, 2 * *i.high * *i.high * *i.high, 1e-6 * *set.work_high);
    // Per size: mean E_s exactly the closed form's, sd 5%, t_{0.975, 2} = 4.303.
    ASSERT_EQ(set.sizes.size(), 5u);
    const auto& m = set.sizes[2].efficiency;
    const double e = efficiency(set.sizes[2].parameter, set.node_count);
    EXPECT_EQ(m.count, 3u);
    EXPECT_NEAR(m.mean, e, 1e-12);
    EXPECT_NEAR(*m.high - m.mean, 4.303 * 0.05 * e / std::sqrt(3.0), 1e-9);
    EXPECT_NEAR(m.mean - *m.low, 4.303 * 0.05 * e / std::sqrt(3.0), 1e-9);
  }
  ASSERT_EQ(a.psi.size(), 1u);
  ASSERT_TRUE(a.psi[0].psi_low && a.psi[0].psi_high) << a.psi[0].psi_interval_note;
  EXPECT_LT(*a.psi[0].psi_low, *a.psi[0].psi);
  EXPECT_GT(*a.psi[0].psi_high, *a.psi[0].psi);
  EXPECT_EQ(a.psi[0].psi_interval_note, "");
  // The views show what analyze computed.
  EXPECT_EQ(std::stod(db_.scalar("SELECT parameter_low FROM hetscale.set_required_work WHERE set_index = 0")),
            *a.sets[0].parameter_interval.low);
  EXPECT_EQ(db_.scalar("SELECT interval_level || ' ' || interval_method || ' ' || interval_resamples || ' ' || "
                       "(interval_note IS NULL) FROM hetscale.set_required_work WHERE set_index = 1"),
            "0.95 stratified residual bootstrap, percentile 2000 true");
  EXPECT_EQ(std::stod(db_.scalar("SELECT psi_high FROM hetscale.set_psi")), *a.psi[0].psi_high);
  EXPECT_EQ(std::stod(db_.scalar("SELECT speed_efficiency_low FROM hetscale.set_efficiency_curve "
                                 "WHERE set_index = 0 AND parameter_value = 40")),
            *a.sets[0].sizes[2].efficiency.low);
  // The report reads them from the views (report_views.hpp).
  const collector::ReportData data = collector::read_report_data(conn, {"mm-small"});
  ASSERT_EQ(data.experiments.size(), 1u);
  const collector::ExperimentData& e = data.experiments[0];
  ASSERT_EQ(e.curve.size(), 10u);
  ASSERT_TRUE(e.curve[2].speed_efficiency_interval);
  EXPECT_EQ(e.curve[2].speed_efficiency_interval->low, a.sets[0].sizes[2].efficiency.low);
  EXPECT_EQ(e.curve[2].speed_efficiency_interval->high, a.sets[0].sizes[2].efficiency.high);
  EXPECT_EQ(e.curve[2].speed_efficiency_interval->reason, "");
  EXPECT_EQ(e.curve[2].speed_efficiency_interval->level, 0.95);
  EXPECT_EQ(e.curve[2].speed_efficiency_interval->method, mean_t_interval_method);
  ASSERT_EQ(e.required_work.size(), 2u);
  ASSERT_TRUE(e.required_work[1].parameter_interval && e.required_work[1].work_interval);
  EXPECT_EQ(e.required_work[1].parameter_interval->low, a.sets[1].parameter_interval.low);
  EXPECT_EQ(e.required_work[1].work_interval->high, a.sets[1].work_high);
  EXPECT_EQ(e.required_work[1].parameter_interval->level, 0.95);
  EXPECT_FALSE(e.required_work[1].precision);  // the plan asks no precision
  EXPECT_FALSE(collector::precision_check(e, e.required_work[1]));
  ASSERT_EQ(e.psi.size(), 1u);
  ASSERT_TRUE(e.psi[0].psi_interval);
  EXPECT_EQ(e.psi[0].psi_interval->low, a.psi[0].psi_low);
  EXPECT_EQ(e.psi[0].psi_interval->high, a.psi[0].psi_high);
  // Each interval's level, method and resamples as stored (migration 23 for psi's).
  EXPECT_EQ(e.required_work[1].parameter_interval->method, residual_bootstrap_method);
  EXPECT_EQ(e.required_work[1].parameter_interval->resamples, 2000);
  EXPECT_EQ(e.psi[0].psi_interval->level, 0.95);
  EXPECT_EQ(e.psi[0].psi_interval->method, residual_bootstrap_method);
  EXPECT_EQ(e.psi[0].psi_interval->resamples, 2000);
  // The same runs give the same intervals: the resamples' seed is the experiment's, set's
  // and target's.
  const std::string stored = "SELECT string_agg(parameter_low || ' ' || parameter_high, ', ' ORDER BY set_index) "
                             "FROM hetscale.required_work";
  const std::string first = db_.scalar(stored);
  collector::analyze(conn, "mm-small", 0.5);
  EXPECT_EQ(db_.scalar(stored), first);
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.efficiency_intervals"), "10");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.psi_intervals"), "1");
}

// One run per size: no interval anywhere, and every figure says why.
TEST_F(Analyze, AFigureFromTooFewRunsSaysSoInsteadOfAnInterval) {
  int serial = 0;
  std::vector<nlohmann::json> all = scaled_runs(0, {10, 20, 40, 80}, {1.0}, serial);
  for (auto& r : scaled_runs(1, {20, 40, 80, 160}, {1.0}, serial)) all.push_back(r);
  load(all);
  pg::Connection conn = db_.connect();
  // 0.45 lies between 20 and 40 on 2 nodes (N = 32.7), between 40 and 80 on 4 (N = 65.5).
  const collector::Analysis a = collector::analyze(conn, "mm-small", 0.45);
  ASSERT_EQ(a.sets.size(), 2u);
  ASSERT_TRUE(a.sets[0].work);
  EXPECT_FALSE(a.sets[0].parameter_interval.low || a.sets[0].parameter_interval.high);
  EXPECT_FALSE(a.sets[0].work_low || a.sets[0].work_high);
  EXPECT_EQ(a.sets[0].resamples, 0u);
  const std::string note =
      "too few runs: 1 run at 20 and 1 run at 40, the sizes that bracket the target; an interval needs 2 at each";
  EXPECT_EQ(a.sets[0].parameter_interval.note, note);
  EXPECT_EQ(a.sets[0].parameter_interval.reason, "too few runs");
  EXPECT_EQ(a.sets[0].sizes[0].efficiency.note, "1 run");
  EXPECT_EQ(a.sets[0].sizes[0].efficiency.reason, "1 run");
  EXPECT_FALSE(a.sets[0].sizes[0].efficiency.low);
  ASSERT_EQ(a.psi.size(), 1u);
  EXPECT_TRUE(a.psi[0].psi);
  EXPECT_FALSE(a.psi[0].psi_low || a.psi[0].psi_high);
  EXPECT_EQ(a.psi[0].psi_interval_note, "no interval: set 0 has none (" + note + ")");
  EXPECT_EQ(a.psi[0].psi_interval_reason, "too few runs");
  EXPECT_EQ(db_.scalar("SELECT interval_reason || ' / ' || psi_interval_reason FROM hetscale.set_psi "
                       "JOIN hetscale.set_required_work USING (experiment_id, target_efficiency, set_index)"),
            "too few runs / too few runs");
  EXPECT_EQ(db_.scalar("SELECT interval_note FROM hetscale.set_required_work WHERE set_index = 0"), note);
  EXPECT_EQ(db_.scalar("SELECT interval_resamples IS NULL FROM hetscale.set_required_work WHERE set_index = 0"),
            "t");
  EXPECT_EQ(db_.scalar("SELECT psi_interval_note FROM hetscale.set_psi"), a.psi[0].psi_interval_note);
  EXPECT_EQ(db_.scalar("SELECT speed_efficiency_interval_note FROM hetscale.set_efficiency_curve "
                       "WHERE set_index = 0 AND parameter_value = 20"),
            "1 run");
  // A run loaded since the analysis: the point's stored interval is not that of its runs.
  all.push_back(scaled_runs(0, {20}, {1.0, 1.02}, serial).back());
  load(all);
  EXPECT_EQ(db_.scalar("SELECT speed_efficiency_interval_note || ' ' || (speed_efficiency_low IS NULL) "
                       "FROM hetscale.set_efficiency_curve WHERE set_index = 0 AND parameter_value = 20"),
            "not analyzed since these runs were loaded: run hetscale analyze true");
  EXPECT_EQ(db_.scalar("SELECT speed_efficiency_interval_reason FROM hetscale.set_efficiency_curve "
                       "WHERE set_index = 0 AND parameter_value = 20"),
            "not analyzed");
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

// Set 1 (4 nodes) measured at N = 20 and at the N where E_s = 0.5 (1 - miss): the runs
// do not bracket the target 0.5, the nearest point misses it by `miss` (relative).
struct NearMiss {
  double n = 0;  // the nearest measured N of set 1
  std::vector<nlohmann::json> records;
};

NearMiss near_miss(double miss) {
  int serial = 0;
  NearMiss out;
  out.records = runs(0, {10, 20, 40, 80, 160}, serial);
  const double e = 0.5 * (1 - miss);
  out.n = 80 * e / (1 - e);  // N / (N + 80) = e
  for (auto& r : runs(1, {20, out.n}, serial)) out.records.push_back(r);
  return out;
}

TEST_F(Analyze, AcceptsAMeasuredPointWithinTheTolerance) {
  const NearMiss m = near_miss(0.03);
  load(m.records);
  pg::Connection conn = db_.connect();
  const collector::Analysis a = collector::analyze(conn, "mm-small", 0.5, 0.05);
  ASSERT_EQ(a.sets.size(), 2u);
  EXPECT_EQ(a.sets[0].reading.status, TargetReading::Status::found);
  ASSERT_EQ(a.sets[1].reading.status, TargetReading::Status::within_tolerance);
  EXPECT_EQ(a.sets[1].reading.parameter, m.n);
  EXPECT_NEAR(*a.sets[1].work, 2 * m.n * m.n * m.n, 1e-6);
  EXPECT_EQ(a.sets[1].advice, "");
  EXPECT_NE(a.sets[1].reading.explanation.find("is within 5% of it: taken as reached there"),
            std::string::npos)
      << a.sets[1].reading.explanation;
  // psi from the measured point's work: (C' W) / (C W') with C = 100, C' = 200.
  ASSERT_EQ(a.psi.size(), 1u);
  ASSERT_TRUE(a.psi[0].psi.has_value());
  EXPECT_NEAR(*a.psi[0].psi, (200 * 128000.0) / (100 * 2 * m.n * m.n * m.n), 1e-9);
  EXPECT_EQ(db_.scalar("SELECT status || ' ' || (parameter_value IS NOT NULL) || ' ' || "
                       "(work IS NOT NULL) FROM hetscale.required_work WHERE set_index = 1"),
            "within_tolerance true true");
  EXPECT_EQ(db_.scalar("SELECT psi IS NOT NULL FROM hetscale.set_psi"), "t");
}

TEST_F(Analyze, OutsideTheToleranceStaysUnbracketed) {
  const NearMiss m = near_miss(0.08);
  load(m.records);
  pg::Connection conn = db_.connect();
  const collector::Analysis a = collector::analyze(conn, "mm-small", 0.5, 0.05);
  ASSERT_EQ(a.sets.size(), 2u);
  EXPECT_EQ(a.sets[1].reading.status, TargetReading::Status::above_range);
  EXPECT_FALSE(a.sets[1].work.has_value());
  EXPECT_NEAR(*a.sets[1].nearest_efficiency, 0.46, 1e-12);
  EXPECT_FALSE(a.psi[0].psi.has_value());
  EXPECT_EQ(db_.scalar("SELECT status FROM hetscale.required_work WHERE set_index = 1"),
            "above_range");
}

TEST_F(Analyze, TheDefaultToleranceIsJobgensTwoPercent) {
  const NearMiss m = near_miss(0.03);  // within 5%, not within 2%
  load(m.records);
  pg::Connection conn = db_.connect();
  EXPECT_EQ(collector::analyze(conn, "mm-small", 0.5).sets[1].reading.status,
            TargetReading::Status::above_range);
}

TEST_F(Analyze, TheSchemaRefusesAParameterlessWithinTolerance) {
  load(near_miss(0.03).records);
  pg::Connection conn = db_.connect();
  collector::analyze(conn, "mm-small", 0.5, 0.05);
  try {
    conn.exec("UPDATE hetscale.required_work SET work = NULL WHERE status = 'within_tolerance'");
    FAIL() << "no error";
  } catch (const pg::DbError& e) {
    EXPECT_EQ(e.sqlstate(), "23514");  // check_violation
  }
}

std::vector<nlohmann::json> parse_lines(const std::string& text) {
  std::istringstream lines(text);
  std::vector<nlohmann::json> parsed;
  for (std::string line; std::getline(lines, line);) parsed.push_back(nlohmann::json::parse(line));
  return parsed;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Sets of their own sizes: one file per set over N, and no (p, N) grid.
TEST_F(Analyze, ExportsEachSetOverItsParameter) {
  int serial = 0;
  std::vector<nlohmann::json> all = runs(0, {10, 20}, serial);  // 2 nodes, so p = 2 ranks
  for (auto& r : runs(1, {20, 40}, serial)) all.push_back(r);
  load(all);
  pg::Connection conn = db_.connect();
  const collector::ExtrapExport e = collector::export_extrap(conn, "mm-small");
  ASSERT_EQ(e.sets.size(), 2u);
  EXPECT_EQ(e.sets[0].set_index, 0);
  EXPECT_EQ(e.sets[0].runs, 4u);
  EXPECT_EQ(e.sets[1].set_index, 1);
  const std::vector<nlohmann::json> parsed = parse_lines(e.sets[0].lines);
  ASSERT_EQ(parsed.size(), 4u);
  const double expected_n[] = {10, 10, 20, 20};
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const nlohmann::json& j = parsed[i];
    SCOPED_TRACE(j.dump());
    EXPECT_EQ(j.size(), 4u);  // params, metric, value, callpath: nothing else
    EXPECT_EQ(j.at("callpath"), "mm.set0");
    EXPECT_EQ(j.at("metric"), "time");
    EXPECT_EQ(j.at("params"), (nlohmann::json{{"N", expected_n[i]}}));
    const double n = expected_n[i];
    EXPECT_DOUBLE_EQ(j.at("value").get<double>(), 2 * n * n * n / (efficiency(n, 2) * 100e6));
  }
  EXPECT_EQ(parse_lines(e.sets[1].lines).front().at("callpath"), "mm.set1");
  EXPECT_EQ(e.grid, "");
  EXPECT_EQ(e.grid_runs, 0u);
  EXPECT_EQ(e.grid_refusal, "2 machine sets measured, Extra-P needs 5 values of p");
}

// Five sets (p = 2, 4, 8, 16, 32) at the same five sizes, as a same_on_every_set study
// runs them: the golden files are what Extra-P reads (docs/collector.md).
TEST_F(Analyze, ExportsTheSameSizesOnEverySetOverPAndN) {
  int serial = 0;
  std::vector<nlohmann::json> all;
  for (int set = 0; set < 5; ++set)
    for (auto& r : runs(set, {10, 20, 40, 80, 160}, serial)) all.push_back(r);
  for (auto& r : runs(4, {320}, serial)) all.push_back(r);  // a refined size on one set only
  load(all);
  pg::Connection conn = db_.connect();
  const collector::ExtrapExport e = collector::export_extrap(conn, "mm-small");
  const fs::path golden = fs::path(HETSCALE_FIXTURES_DIR) / "extrap";
  ASSERT_EQ(e.sets.size(), 5u);
  EXPECT_EQ(e.sets[0].lines, read_text(golden / "mm-grid.set0.jsonl"));
  EXPECT_EQ(e.sets[4].runs, 12u);
  EXPECT_EQ(e.grid_refusal, "");
  EXPECT_EQ(e.grid_runs, 50u);  // not the runs at 320
  EXPECT_EQ(e.grid, read_text(golden / "mm-grid.jsonl"));
}

// A run whose step failed (exit status not 0) is stored, never modelled.
TEST_F(Analyze, ExportLeavesFailedStepsOut) {
  int serial = 0;
  std::vector<nlohmann::json> all = runs(0, {10, 20}, serial);
  std::vector<nlohmann::json> failed = runs(0, {40}, serial);
  for (auto& r : failed) r["exit_status"] = 3;
  for (auto& r : failed) all.push_back(r);
  load(all);
  pg::Connection conn = db_.connect();
  const collector::ExtrapExport e = collector::export_extrap(conn, "mm-small");
  ASSERT_EQ(e.sets.size(), 1u);
  EXPECT_EQ(e.sets[0].runs, 4u);
  for (const nlohmann::json& j : parse_lines(e.sets[0].lines)) EXPECT_NE(j.at("params").at("N"), 40);
}

TEST_F(Analyze, ExportNeedsFiveSizesOnEverySetForTheGrid) {
  int serial = 0;
  std::vector<nlohmann::json> all;
  for (int set = 0; set < 5; ++set)
    for (auto& r : runs(set, {10, 20, 40, 80, set == 2 ? 150.0 : 160.0}, serial)) all.push_back(r);
  load(all);
  pg::Connection conn = db_.connect();
  const collector::ExtrapExport e = collector::export_extrap(conn, "mm-small");
  EXPECT_EQ(e.sets.size(), 5u);
  EXPECT_EQ(e.grid_runs, 0u);
  EXPECT_EQ(e.grid_refusal,
            "4 values of N measured on every set, Extra-P needs 5 (plan the study with "
            "[parameter] same_on_every_set = true)");
}

TEST(ExtrapExport, PutsTheSetBeforeTheExtension) {
  EXPECT_EQ(collector::extrap_set_path("out/mm.jsonl", 3), fs::path("out/mm.set3.jsonl"));
  EXPECT_EQ(collector::extrap_set_path("mm.extrap.jsonl", 0), fs::path("mm.extrap.set0.jsonl"));
  EXPECT_EQ(collector::extrap_set_path("mm", 1), fs::path("mm.set1"));
}

TEST_F(Analyze, ExportNamesAnUnknownExperiment) {
  pg::Connection conn = db_.connect();
  try {
    (void)collector::export_extrap(conn, "nope");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "analyze: no experiment 'nope' in the database");
  }
}

std::string analyze_error(pg::Connection& conn, const std::string& experiment) {
  try {
    collector::analyze(conn, experiment, 0.5);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The testbed's site table declares relative speeds (unit speed-factor): E_s needs C in
// operations per second, which such a unit does not give.
TEST_F(Analyze, SaysWhyThereIsNoEfficiencyAndWhatToDo) {
  nlohmann::json plan = nlohmann::json::parse(std::ifstream(plan_fixture));
  plan["site"]["speed_unit"] = "speed-factor";
  const fs::path plan_file = fs::path(file_).replace_extension(".json");
  std::ofstream(plan_file) << plan.dump();
  int serial = 0;
  std::vector<nlohmann::json> records = runs(0, {10, 20}, serial);
  for (auto& r : records) r["speed_unit"] = "speed-factor";
  load(records, plan_file);
  fs::remove(plan_file);
  pg::Connection conn = db_.connect();
  EXPECT_EQ(analyze_error(conn, "mm-small"),
            "analyze: experiment 'mm-small' has 4 runs on machine sets, but their speed unit "
            "'speed-factor' is no rate: E_s = W / (T C) needs the marked speed C in operations "
            "per second, and hetscale.speed_units does not convert 'speed-factor'; classify the "
            "nodes (hetscale classify, then hetscale groups) for marked speeds in a rate such as "
            "Mflops, or have an administrator declare the unit's rate: INSERT INTO "
            "hetscale.speed_units (unit, ops_per_second) VALUES ('speed-factor', <operations per "
            "second of one speed-factor>)");
  // Either fix gives E_s: here the unit's rate, declared as the message says.
  conn.exec("INSERT INTO hetscale.speed_units (unit, ops_per_second) VALUES ('speed-factor', 1e6)");
  EXPECT_EQ(collector::analyze(conn, "mm-small", 0.5).sets.size(), 1u);

  // Runs on no machine set at all.
  records = runs(0, {10, 20}, serial);
  for (auto& r : records) {
    r["experiment"] = "no-sets";
    r.erase("machine_set");
  }
  load(records);
  EXPECT_EQ(analyze_error(conn, "no-sets"),
            "analyze: experiment 'no-sets' has no runs on a machine set");
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
