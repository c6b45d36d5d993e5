#include "analytic_report.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hetscale {
namespace {

// A file under the temporary directory, removed at the end of the test.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() / ("hetscale-analytic-report-" + name)) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(KernelOverheadFrom, NetworkOfASiteTableOrTheDefault) {
  // 50 us latency, two links a message: 0.1 ms; 125 MB/s: 8e-06 ms a byte.
  const TempFile site("site.toml",
                      "[site]\nname = \"s\"\n[[group]]\nname = \"g\"\nmarked_speed = 100\n"
                      "[[node]]\nname = \"n1\"\ngroup = \"g\"\n[network]\ntopology = \"star\"\n"
                      "latency_us = 50\nbandwidth_MBps = 125\n");
  const KernelOverhead mm = kernel_overhead_from_network("mm", site.path());
  EXPECT_EQ(mm.expression, "2*(p - 1)*(0.1 + 8e-06*(8*N^2/p)) + (0.1*lg(p)) + lg(p)*8e-06*8*N^2");
  EXPECT_EQ(mm.source, "[network] of " + site.path());
  const TempFile bare("bare.toml",
                      "[site]\nname = \"s\"\n[[group]]\nname = \"g\"\nmarked_speed = 100\n"
                      "[[node]]\nname = \"n1\"\ngroup = \"g\"\n");
  const KernelOverhead defaults = kernel_overhead_from_network("mm", bare.path());
  EXPECT_EQ(defaults.expression, kernel_overhead_expression("mm", communication_costs(Network{})));
  EXPECT_EQ(defaults.source, "the default [network] (" + bare.path() + " has none)");
}

TEST(KernelOverheadFrom, CommbenchModels) {
  // Sunwulf's figures in seconds: T_send = 80 us + 3.75 ns a byte, T_bcast = 0.12 ms +
  // 0.23 ms p, T_barrier = 0.39 ms p.
  const TempFile models("commbench.json", R"({"models": {
      "send": {"intercept": 0.00008, "slope": 3.75e-9, "r2": 1},
      "bcast": {"intercept": 0.00012, "slope": 0.00023, "r2": 1},
      "barrier": {"intercept": 0, "slope": 0.00039, "r2": 1}}})");
  const KernelOverhead ge = kernel_overhead_from_commbench("ge", models.path());
  EXPECT_EQ(ge.expression,
            "(0.12 + 0.23*p) + 2*(p - 1)*((0.08 + 3.75e-06*(8*N)) + (0.08 + 3.75e-06*(8*N))) + "
            "N*(2*(0.12 + 0.23*p) + (0.39*p))");
  EXPECT_EQ(ge.source, "hetscale-commbench models of " + models.path());
}

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
