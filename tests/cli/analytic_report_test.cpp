#include "analytic_report.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace hetscale {
namespace {

// W = N, T0 = 1 ms, t_c = 2 ms: the figures below follow by hand.
AnalyticReport report(ComputeTime compute, std::string note) {
  AnalyticReport r{
      .model = AnalyticModel(Workload::parse("N"), Workload::parse("1"), 1e-3, 2e-3, compute),
      .overhead = "1",
      .overhead_unit = "ms",
      .overhead_source = "--overhead",
      .speed_unit = "Mflops",
      .speed_scale = 1e6,
      .prediction = {}};
  AnalyticPrediction& p = r.prediction;
  p.base.marked_speed = 4e6;
  p.base.processes = 2;
  p.base_parameter = 1000;
  p.base_work = 1000;
  p.base_seconds = 1.001;  // 1000 x 2 ms / 2 + 1 ms
  p.base_overhead_seconds = 1e-3;
  p.base_efficiency = 0.25;
  p.note = std::move(note);
  AnalyticTarget t;
  t.system.marked_speed = 8e6;
  t.system.processes = 4;
  t.parameter = 2000;
  t.work = 2000;
  t.seconds = 1.001;
  t.overhead_seconds = 1e-3;
  t.speed_efficiency = 0.25;
  t.psi = 1;
  t.psi_definition = 1;
  p.targets = {t};
  return r;
}

TEST(AnalyticTable, TargetsInTheSpeedUnitAndMilliseconds) {
  const Table t = analytic_table(report(ComputeTime::per_process, ""));
  ASSERT_EQ(t.columns.size(), 9u);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0][0], Cell(8.0));  // 8e6 ops/s in Mflops
  EXPECT_EQ(t.rows[0][1], Cell(std::int64_t{4}));
  EXPECT_EQ(t.rows[0][2], Cell(2000.0));
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][4]), 1001);  // predicted_ms
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][5]), 1);     // overhead_ms
}

TEST(PrintAnalyticReport, SummaryNoteAndJson) {
  std::ostringstream text;
  print_analytic_report(text, report(ComputeTime::balanced, "t_c and C disagree"),
                        TableFormat::table);
  EXPECT_TRUE(text.str().starts_with(
      "analytic prediction: T = W t_c (C_base / p_base) / C + T0(N, p), W = N, t_c = 2 ms per "
      "unit of work\nT0 (ms, from --overhead) = 1\nbase: C = 4 Mflops, p = 2, N = 1000: W = "
      "1000, T = 1001 ms, T0 = 1 ms, E_s = 0.25\npsi = T0 / T0' (Corollary 2); psi_definition "
      "= (C' W) / (C W')\n\nnote: t_c and C disagree\n\nmarked_speed "))
      << text.str();
  std::ostringstream plain;
  print_analytic_report(plain, report(ComputeTime::per_process, ""), TableFormat::table);
  EXPECT_TRUE(plain.str().starts_with("analytic prediction: T = W t_c / p + T0(N, p)"));
  EXPECT_EQ(plain.str().find("note:"), std::string::npos);

  std::ostringstream json;
  print_analytic_report(json, report(ComputeTime::balanced, ""), TableFormat::json);
  const auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["compute"], "balanced");
  EXPECT_DOUBLE_EQ(j["unit_time_ms"].get<double>(), 2);
  EXPECT_EQ(j["base"]["marked_speed"], 4.0);
  EXPECT_DOUBLE_EQ(j["base"]["ms"].get<double>(), 1001);
  EXPECT_EQ(j["rows"][0]["predicted_parameter"], 2000.0);
}

}  // namespace
}  // namespace hetscale
