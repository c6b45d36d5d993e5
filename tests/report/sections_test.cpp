// The mapping from view rows to charts and sections (report_sections.hpp), without a
// database: which series, bars, guides and notes each set of rows gives.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "report_sections.hpp"

namespace hetscale::report {
namespace {

ExperimentData mm() {
  ExperimentData e;
  e.name = "mm-small";
  e.parameter = "N";
  e.speed_unit = "Mflops";
  for (double n : {40.0, 10.0, 20.0})
    e.curve.push_back({0, n, 2, 2 * n * n * n, n / (n + 40), 0, 1, {}});
  for (double n : {20.0, 40.0, 80.0})
    e.curve.push_back({1, n, 2, 2 * n * n * n, n / (n + 80), 0, 1, 0.01});
  e.required_work.push_back({0, 2, 100, 0.5, "found", 40.0, 128000.0, 0.5, "reached"});
  e.required_work.push_back(
      {1, 4, 200, 0.5, "above_range", {}, {}, 0.33, "the target lies above the measured range"});
  e.psi.push_back({0.5, 0, 1, 100, 200, 128000.0, {}, {}});
  return e;
}

ExperimentData ge() {
  ExperimentData e;
  e.name = "ge-small";
  e.psi.push_back({0.3, 0, 1, 100, 200, 10.0, 20.0, 1.0});
  e.psi.push_back({0.3, 1, 2, 200, 400, 20.0, 50.0, 0.8});
  return e;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

bool mentions(const ReportSection& section, const std::string& what) {
  for (const auto& note : section.notes)
    if (note.find(what) != std::string::npos) return true;
  return false;
}

/// The table of the section's figures with that id; nullptr when there is none.
const ReportTable* table_of(const ReportSection& section, const std::string& id) {
  for (const auto& f : section.figures)
    for (const auto& t : f.tables)
      if (t.id == id) return &t;
  return nullptr;
}

TEST(EfficiencyChart, OneCurvePerSetSortedWithTargetAndReadOff) {
  const LineChart chart = efficiency_chart(mm());
  ASSERT_EQ(chart.series.size(), 2u);
  EXPECT_EQ(chart.series[0].name, "set 0 (2 nodes)");
  EXPECT_EQ(chart.series[1].name, "set 1 (4 nodes)");
  ASSERT_EQ(chart.series[0].points.size(), 3u);
  EXPECT_EQ(chart.series[0].points[0].x, 10);  // sorted by the parameter
  EXPECT_DOUBLE_EQ(chart.series[0].points[2].y, 0.5);
  ASSERT_EQ(chart.horizontal_lines.size(), 1u);
  EXPECT_EQ(chart.horizontal_lines[0].y, 0.5);
  ASSERT_EQ(chart.highlights.size(), 1u);  // only the found set is read off
  ASSERT_EQ(chart.highlights[0].points.size(), 1u);
  EXPECT_EQ(chart.highlights[0].points[0].x, 40);
  EXPECT_TRUE(chart.log_x);
  EXPECT_NE(chart.x_label.find("problem parameter N"), std::string::npos);
  EXPECT_NE(chart.y_label.find("dimensionless"), std::string::npos);
}

TEST(EfficiencySection, FigureWithTablesAndTheUnbracketedSetExplained) {
  ReportData data;
  data.experiments = {mm()};
  const ReportSection s = efficiency_section(data);
  ASSERT_EQ(s.figures.size(), 1u);
  EXPECT_EQ(s.figures[0].tables.size(), 2u);
  EXPECT_EQ(s.figures[0].tables[0].cells.size(), 6u);
  EXPECT_EQ(count(s.figures[0].chart, "class=\"point\""), 6u);
  EXPECT_TRUE(mentions(s, "set 1 at E_s 0.5: the target lies above the measured range"));
}

TEST(EfficiencySection, WithoutRunsNamesTheCommands) {
  ReportData data;
  EXPECT_TRUE(mentions(efficiency_section(data), "hetscale collect --db URI"));
  ExperimentData curves_only = mm();
  curves_only.required_work.clear();
  data.experiments = {curves_only};
  EXPECT_TRUE(
      mentions(efficiency_section(data),
               "no required work stored: run hetscale analyze --db URI --experiment mm-small"));
}

TEST(PsiChart, ExperimentsSideBySideOverTheUnionOfPairs) {
  const BarChart chart = psi_chart({mm(), ge()});
  EXPECT_EQ(chart.categories, (std::vector<std::string>{"set 0 -> 1", "set 1 -> 2"}));
  EXPECT_EQ(chart.series, (std::vector<std::string>{"mm-small (E_s 0.5)", "ge-small (E_s 0.3)"}));
  ASSERT_EQ(chart.values.size(), 2u);
  EXPECT_TRUE(std::isnan(chart.values[0][0]));  // psi unknown
  EXPECT_TRUE(std::isnan(chart.values[0][1]));  // no such pair for mm
  EXPECT_EQ(chart.values[1], (std::vector<double>{1.0, 0.8}));
}

TEST(PsiSection, AllUnknownIsANoteNotAnEmptyChart) {
  ReportData data;
  data.experiments = {mm()};
  const ReportSection s = psi_section(data);
  EXPECT_TRUE(s.figures.empty());
  EXPECT_TRUE(mentions(s, "psi is n/a for every pair"));
  data.experiments = {};
  EXPECT_TRUE(mentions(psi_section(data), "no psi stored: run hetscale analyze"));
}

TEST(NodeMap, NodeSpeedColouredByGroupWithStatesMarked) {
  const std::vector<NodeRow> nodes = {{"lab", "blade", 20, "b1", 1, 20, "Mflops", "ok"},
                                      {"lab", "server", 40, "s1", 2, 40, "Mflops", "degraded"},
                                      {"lab", "server", 40, "s2", 2, 40, "Mflops", "excluded"}};
  const BarChart chart = node_map_chart("lab", nodes);
  EXPECT_EQ(chart.values[0], (std::vector<double>{20, 80, 80}));  // per processor x processors
  EXPECT_EQ(chart.category_groups, (std::vector<std::string>{"blade", "server", "server"}));
  EXPECT_EQ(chart.category_notes, (std::vector<std::string>{"", "degraded", "excluded"}));
  EXPECT_NE(chart.y_label.find("Mflops"), std::string::npos);
  const std::string svg = render_svg(chart);
  EXPECT_EQ(count(svg, ">degraded<"), 1u);
  EXPECT_EQ(count(svg, ">server<"), 1u);  // the group is in the legend
  ReportData data;
  data.nodes = nodes;
  EXPECT_TRUE(mentions(node_map_section(data), "s1 (server, degraded), s2 (server, excluded)"));
}

TEST(NodeMap, ALargeSiteIsSummarisedPerGroup) {
  ReportData data;
  for (std::size_t i = 0; i <= kMaxNodeBars; ++i)
    data.nodes.push_back({"big", i % 2 ? "fat" : "thin", 10, "n" + std::to_string(i), 1,
                          i % 2 ? 30.0 + static_cast<double>(i % 3) : 10.0, "Gflops",
                          i == 3 ? "degraded" : "ok"});
  const BarChart chart = group_speed_chart("big", data.nodes);
  EXPECT_EQ(chart.categories, (std::vector<std::string>{"fat (48 nodes)", "thin (49 nodes)"}));
  EXPECT_EQ(chart.values[0], (std::vector<double>{30, 10}));
  EXPECT_DOUBLE_EQ(chart.values[1][0], 31);
  EXPECT_EQ(chart.values[2], (std::vector<double>{32, 10}));
  EXPECT_EQ(chart.category_notes, (std::vector<std::string>{"1 not ok", ""}));
  const ReportSection s = node_map_section(data);
  ASSERT_EQ(s.figures.size(), 1u);
  EXPECT_NE(s.figures[0].chart.find("by group, site big"), std::string::npos);
  EXPECT_EQ(s.figures[0].tables[0].cells.size(), kMaxNodeBars + 1);  // the table keeps every node
  for (auto& n : data.nodes) n.state = "degraded";
  EXPECT_TRUE(mentions(node_map_section(data), "site big: 97 node(s) not ok: "));
  EXPECT_TRUE(mentions(node_map_section(data), " and 73 more"));
}

TEST(Heterogeneity, TimeVariabilityPerHostAndSetShPerExperiment) {
  ExperimentData e = mm();
  e.node_time_variability = {{0, "n2", 1, 2, 0.1}, {0, "n1", 1, 2, 0.05}, {1, "n3", 1, 2, 0.2}};
  e.set_sh = {{0, 2, 2, 0.1, 0.075, 0.025}, {1, 1, 1, 0.2, 0.2, 0}};
  const BarChart th = time_variability_chart(e);
  EXPECT_EQ(th.categories, (std::vector<std::string>{"n1", "n2", "n3"}));
  ASSERT_EQ(th.values.size(), 2u);
  EXPECT_EQ(th.values[0][0], 0.05);
  EXPECT_TRUE(std::isnan(th.values[0][2]));
  EXPECT_EQ(th.values[1][2], 0.2);
  const BarChart sh = sh_chart({e, ge()});  // ge has no SH: no series
  EXPECT_EQ(sh.series, (std::vector<std::string>{"mm-small"}));
  EXPECT_EQ(sh.values[0], (std::vector<double>{0.025, 0}));
}

PartitionShare share(long long id, const std::string& method, const std::string& host, double s,
                     double tau) {
  PartitionShare p;
  p.partition_id = id;
  p.set_index = 1;
  p.method = method;
  p.seconds = 100;
  p.node_list = "n[1-2]";
  p.simulated_tau = tau;
  p.host = host;
  p.share = s;
  return p;
}

TEST(Partitions, SharesPerMethodTauPerSetAndTheChangeAgainstProportional) {
  ExperimentData e = mm();
  e.partitions = {share(1, "proportional", "n1", 0.5, 120),
                  share(1, "proportional", "n2", 0.5, 120), share(2, "equalized", "n1", 0.6, 108),
                  share(2, "equalized", "n2", 0.4, 108)};
  const BarChart shares = shares_chart(e, 1);
  EXPECT_EQ(shares.series, (std::vector<std::string>{"proportional", "equalized"}));
  EXPECT_EQ(shares.values[1], (std::vector<double>{0.6, 0.4}));
  const BarChart tau = tau_chart({e});
  EXPECT_EQ(tau.categories, (std::vector<std::string>{"mm-small, set 1"}));
  EXPECT_EQ(tau.values, (std::vector<std::vector<double>>{{120}, {108}}));
  ReportData data;
  data.experiments = {e};
  const ReportSection s = heterogeneity_section(data);
  const ReportTable* partitions = table_of(s, "partitions");
  ASSERT_NE(partitions, nullptr);
  ASSERT_EQ(partitions->cells.size(), 2u);
  EXPECT_EQ(partitions->cells[1].back(), "-10.00 %");
  EXPECT_TRUE(mentions(s, "no measured gain"));
  EXPECT_TRUE(mentions(s, "no TH/SH"));
}

TEST(Partitions, FromInputFilesAreLabelledAndHaveNoCurve) {
  ExperimentData files;
  files.from_files = true;
  files.partitions = {share(7, "equalized", "n1", 1, 50)};
  files.partitions[0].set_index.reset();
  ReportData data;
  data.experiments = {files};
  EXPECT_EQ(tau_chart(data.experiments).categories,
            (std::vector<std::string>{"(input file), no set"}));
  const ReportSection s = efficiency_section(data);
  EXPECT_TRUE(s.figures.empty());
  EXPECT_FALSE(mentions(s, "(input file)"));  // no "no runs" note for it
}

TEST(Partitions, NoneStoredNamesEqualize) {
  ReportData data;
  data.experiments = {mm()};
  EXPECT_TRUE(
      mentions(heterogeneity_section(data), "no partitions stored: run hetscale equalize --db"));
}

TEST(MeasuredGain, OnlyConfigurationsRunWithBothSources) {
  ExperimentData e = mm();
  e.weights = {{1, 80.0, "marked", 3, 10, {}},
               {1, 80.0, "equalized", 3, 9, {}},
               {1, 40.0, "marked", 3, 5, {}},
               {0, 80.0, "equalized", 3, 4, {}}};
  const auto gains = measured_gains(e);
  ASSERT_EQ(gains.size(), 1u);
  EXPECT_DOUBLE_EQ(gains[0].gain(), 0.1);
  const BarChart chart = gain_chart(e);
  EXPECT_EQ(chart.categories, (std::vector<std::string>{"set 1, 80"}));
  EXPECT_EQ(chart.values, (std::vector<std::vector<double>>{{10}, {9}}));
}

Forecast forecast(int position, const std::string& kind, double speed, double work,
                  OptionalNumber psi, OptionalNumber measured, OptionalNumber error) {
  Forecast f;
  f.position = position;
  f.target_efficiency = 0.5;
  f.kind = kind;
  f.label = kind + std::to_string(position);
  f.node_count = 2 << position;
  f.marked_speed = speed;
  f.predicted_work = work;
  f.predicted_psi = psi;
  f.measured_work = measured;
  f.relative_error = error;
  f.model = "fit";
  return f;
}

TEST(Capacity, PsiPerRowWorkLogLogAndTheErrorSummarised) {
  ExperimentData e = mm();
  e.forecasts = {forecast(0, "measured", 100, 1.2e5, {}, 1.28e5, -0.06),
                 forecast(1, "measured", 200, 1.0e6, 0.25, 1.024e6, 0.02),
                 forecast(2, "doubling", 400, 8e6, 0.25, {}, {}),
                 forecast(3, "what_if", 300, 4e6, 0.3, {}, {})};
  const BarChart psi = forecast_psi_chart(e, 0.5);
  EXPECT_EQ(psi.categories.size(), 4u);
  EXPECT_TRUE(std::isnan(psi.values[0][0]));
  EXPECT_EQ(psi.category_notes[3], "what-if");
  const LineChart work = forecast_work_chart(e, 0.5);
  EXPECT_TRUE(work.log_x && work.log_y);
  ASSERT_EQ(work.series.size(), 3u);
  EXPECT_EQ(work.series[0].points.size(), 3u);  // measured sets and the doubling
  EXPECT_EQ(work.series[1].points.size(), 1u);  // what-if
  EXPECT_EQ(work.series[2].points.size(), 2u);  // measured work
  ReportData data;
  data.experiments = {e};
  const ReportSection s = capacity_section(data);
  EXPECT_EQ(s.figures.size(), 2u);
  EXPECT_TRUE(mentions(s, "mean |error| 4.00 %, largest 6.00 % (2 sets)"));
  data.experiments = {mm()};
  EXPECT_TRUE(mentions(capacity_section(data), "no forecasts stored: run hetscale predict --db"));
}

TEST(Report, EverySectionEveryChartHasMarksAndATable) {
  ExperimentData e = mm();
  e.psi[0].psi = 0.9;
  ReportData data;
  data.experiments = {e, ge()};
  data.nodes = {{"lab", "blade", 20, "b1", 1, 20, "Mflops", "ok"}};
  const Report report = build_report(data, "t", "s");
  ASSERT_EQ(report.sections.size(), 5u);
  for (const auto& section : report.sections)
    for (const auto& figure : section.figures) {
      EXPECT_EQ(figure.chart.find("no data"), std::string::npos) << section.id;
      EXPECT_FALSE(figure.tables.empty()) << section.id;
    }
  const std::string html = render_html(report);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(Tables, RawValuesAtFullPrecisionAndNumbersInJson) {
  ReportData data;
  data.experiments = {mm()};
  const ReportSection section = efficiency_section(data);
  const ReportTable& t = section.figures[0].tables[1];
  EXPECT_EQ(t.cells[0][6], "1.28e+05");
  EXPECT_EQ(t.raw[0][6], "128000");
  const auto json = nlohmann::json::parse(table_json(t));
  EXPECT_EQ(json[0]["work"], 128000);
  EXPECT_TRUE(json[1]["work"].is_null());
  EXPECT_EQ(json[0]["status"], "found");
}

// --- measured and twin ------------------------------------------------------------------

/// The twin of mm(): set 0 and 1 as measured (set 1 with one more parameter value), a set 2
/// of 8 nodes and a set 3 of 16 nodes beyond the machine, analyzed at E_s 0.5.
ExperimentData mm_twin() {
  ExperimentData e;
  e.name = "mm-small-twin";
  e.parameter = "N";
  for (double n : {10.0, 20.0, 40.0})
    e.curve.push_back({0, n, 1, 2 * n * n * n, 0.6, 0.6, 0.6, {}});
  for (double n : {20.0, 40.0, 80.0, 160.0})
    e.curve.push_back({1, n, 1, 2 * n * n * n, 0.4, 0.4, 0.4, {}});
  e.curve.push_back({2, 80.0, 1, 1, 0.3, 0.3, 0.3, {}});
  e.required_work.push_back({0, 2, 100, 0.5, "found", 30.0, 54000.0, 0.5, "reached"});
  e.required_work.push_back({1, 4, 200, 0.5, "found", 90.0, 1458000.0, 0.5, "reached"});
  e.required_work.push_back({2, 8, 400, 0.5, "found", 200.0, 16e6, 0.5, "reached"});
  e.required_work.push_back({3, 16, 800, 0.5, "found", 500.0, 250e6, 0.5, "reached"});
  e.psi.push_back({0.5, 0, 1, 100, 200, 54000.0, 1458000.0, 0.074});
  e.psi.push_back({0.5, 1, 2, 200, 400, 1458000.0, 16e6, 0.18});
  return e;
}

/// mm() with a forecast: a what-if set and a doubling of 8 nodes, none of 16 nodes.
ExperimentData mm_forecast() {
  ExperimentData e = mm();
  e.forecasts.push_back({2,
                         0.5,
                         "what_if",
                         "+4 blade",
                         {},
                         8,
                         380,
                         150.0,
                         6.75e6,
                         0.2,
                         {},
                         {},
                         {},
                         "isospeed-e fit"});
  e.forecasts.push_back(
      {3, 0.5, "doubling", "set 2", {}, 8, 400, 160.0, 8.2e6, 0.25, {}, {}, {}, "isospeed-e fit"});
  e.forecasts.push_back(
      {4, 0.3, "doubling", "set 2", {}, 16, 800, 90.0, 1e6, 0.25, {}, {}, {}, "isospeed-e fit"});
  return e;
}

ReportData twin_data() {
  ReportData data;
  data.experiments = {mm_forecast()};
  data.twins.push_back({"mm-small", mm_twin()});
  return data;
}

TEST(TwinEfficiencyRows, SetsInBothByParameterValueWithTheRelativeDifference) {
  const auto rows = twin_efficiency_rows(mm(), mm_twin());
  ASSERT_EQ(rows.size(), 7u);  // set 0: 10 20 40; set 1: 20 40 80 160; not set 2
  EXPECT_EQ(rows[0].set_index, 0);
  EXPECT_EQ(rows[0].parameter_value, 10);
  ASSERT_TRUE(rows[0].measured && rows[0].twin);
  EXPECT_DOUBLE_EQ(rows[0].relative_difference(), (0.6 - 10.0 / 50) / (10.0 / 50));
  EXPECT_EQ(rows[6].set_index, 1);
  EXPECT_EQ(rows[6].parameter_value, 160);
  EXPECT_FALSE(rows[6].measured);
  EXPECT_TRUE(std::isnan(rows[6].relative_difference()));
}

TEST(TwinEfficiencyChart, MeasuredMeanAndSpreadAndTheTwinDashed) {
  const LineChart chart = twin_efficiency_chart(mm(), mm_twin(), 1);
  ASSERT_EQ(chart.series.size(), 3u);
  EXPECT_EQ(chart.series[0].name, "measured mean E_s");
  EXPECT_EQ(chart.series[0].points.size(), 3u);
  EXPECT_FALSE(chart.series[0].dashed);
  EXPECT_EQ(chart.series[1].points.size(), 6u);  // smallest and largest per value
  EXPECT_FALSE(chart.series[1].line);
  EXPECT_EQ(chart.series[2].name, "twin E_s (mm-small-twin)");
  EXPECT_EQ(chart.series[2].points.size(), 4u);
  EXPECT_TRUE(chart.series[2].dashed);
  EXPECT_EQ(chart.title, "Measured and twin E_s, mm-small, set 1 (4 nodes)");
  ASSERT_EQ(chart.horizontal_lines.size(), 1u);
  const std::string svg = render_svg(chart);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(svg.find("twin E_s (mm-small-twin)"), std::string::npos);  // in the legend
}

TEST(TwinPsiRows, PairsOfEitherSideBySide) {
  ExperimentData measured = mm();
  measured.psi[0].psi = 0.08;
  const auto rows = twin_psi_rows(measured, mm_twin());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(*rows[0].measured, 0.08);
  EXPECT_DOUBLE_EQ(*rows[0].twin, 0.074);
  EXPECT_DOUBLE_EQ(rows[0].relative_difference(), (0.074 - 0.08) / 0.08);
  EXPECT_EQ(rows[1].set_index, 1);
  EXPECT_FALSE(rows[1].measured);
  EXPECT_TRUE(std::isnan(rows[1].relative_difference()));
}

TEST(CapacityTwinRows, ForecastsAndTwinSetsBeyondTheMeasuredOnesByTargetAndNodes) {
  ExperimentData measured = mm_forecast();
  // A doubling of 32 nodes at E_s 0.5, past the twin's largest set.
  measured.forecasts.push_back(
      {5, 0.5, "doubling", "set 4", {}, 32, 1600, 700.0, 7e8, 0.1, {}, {}, {}, "isospeed-e fit"});
  const auto rows = capacity_twin_rows(measured, mm_twin());
  ASSERT_EQ(rows.size(), 3u);  // 8, 16 and 32 nodes at 0.5; not 16 nodes at 0.3 (no twin there)
  EXPECT_EQ(rows[0].node_count, 8);
  ASSERT_TRUE(rows[0].forecast && rows[0].twin);
  EXPECT_EQ(rows[0].forecast->kind, "doubling");  // before the what-if set of 8 nodes
  EXPECT_EQ(rows[0].twin->set_index, 2);
  EXPECT_DOUBLE_EQ(*rows[0].twin_psi, 0.18);  // twin set 1 -> set 2
  EXPECT_DOUBLE_EQ(rows[0].parameter_error(), (160.0 - 200) / 200);
  EXPECT_DOUBLE_EQ(rows[0].work_error(), (8.2e6 - 16e6) / 16e6);
  EXPECT_DOUBLE_EQ(rows[0].psi_error(), (0.25 - 0.18) / 0.18);
  EXPECT_EQ(rows[1].node_count, 16);
  EXPECT_TRUE(rows[1].twin);
  EXPECT_FALSE(rows[1].forecast);  // the 16-node forecast is at another target
  EXPECT_FALSE(rows[1].twin_psi);  // no psi 2 -> 3 stored
  EXPECT_TRUE(std::isnan(rows[1].parameter_error()));
  EXPECT_EQ(rows[2].node_count, 32);
  EXPECT_TRUE(rows[2].forecast);
  EXPECT_FALSE(rows[2].twin);
  EXPECT_TRUE(std::isnan(rows[2].work_error()));
  EXPECT_TRUE(std::isnan(rows[2].psi_error()));
}

TEST(TwinSection, ChartsPerCommonSetAndPsi) {
  const ReportSection s = twin_section(twin_data());
  ASSERT_EQ(s.figures.size(), 3u);  // set 0, set 1, psi
  EXPECT_EQ(s.figures[0].heading, "mm-small and its twin mm-small-twin");
  EXPECT_EQ(s.figures[1].tables[0].cells.size(), 4u);
  EXPECT_EQ(s.figures[1].tables[0].cells[3][8], "n/a");  // no measured point at N = 160
  EXPECT_NE(s.figures[2].chart.find("mm-small-twin (E_s 0.5)"), std::string::npos);
}

TEST(TwinEfficiencyRows, TheTimeSplitsOfBothSidesAndTheirDifferences) {
  ExperimentData measured = mm();
  ExperimentData twin = mm_twin();
  measured.time_split.push_back({0, 10.0, 2, 4.0, 1.0, 3.0});
  twin.time_split.push_back({0, 10.0, 1, 2.0, 1.2, 0.8});
  twin.time_split.push_back({2, 80.0, 1, 9.0, 8.0, 1.0});  // a set not measured: no row
  measured.time_split.push_back({1, 20.0, 2, 1.0, 0.5, 0.5});  // no twin split beside it
  const auto rows = twin_efficiency_rows(measured, twin);
  ASSERT_EQ(rows.size(), 7u);
  ASSERT_TRUE(rows[0].measured_split && rows[0].twin_split);
  EXPECT_DOUBLE_EQ(rows[0].measured_split->wall_seconds, 4.0);
  EXPECT_DOUBLE_EQ(rows[0].twin_split->slowest_compute_seconds, 1.2);
  EXPECT_DOUBLE_EQ(rows[0].wall_difference(), (2.0 - 4.0) / 4.0);
  EXPECT_DOUBLE_EQ(rows[0].compute_difference(), (1.2 - 1.0) / 1.0);
  EXPECT_DOUBLE_EQ(rows[0].outside_compute_difference(), (0.8 - 3.0) / 3.0);
  EXPECT_FALSE(rows[1].measured_split || rows[1].twin_split);
  EXPECT_TRUE(std::isnan(rows[1].compute_difference()));
  ASSERT_EQ(rows[3].set_index, 1);
  EXPECT_TRUE(rows[3].measured_split);
  EXPECT_FALSE(rows[3].twin_split);
  EXPECT_TRUE(std::isnan(rows[3].wall_difference()));
}

// Measured set 0: E_s 0.2, 0.333, 0.5 at N = 10, 20, 40 (runs from 0 to 1); set 1: 0.2,
// 0.333, 0.5 at N = 20, 40, 80. Twin: 0.6 on set 0 but 0.52 at N = 40 (+4%), 0.4 on set 1.
TEST(TwinSection, NamesTheSizesBeyondTheToleranceAndWhereTheirTimeGoes) {
  ReportData data = twin_data();
  ExperimentData& measured = data.experiments[0];
  ExperimentData& twin = data.twins[0].twin;
  for (auto& p : twin.curve)
    if (p.set_index == 0 && p.parameter_value == 40) p.speed_efficiency = 0.52;
  for (auto& p : measured.curve)
    if (p.set_index == 1 && p.parameter_value == 80) {
      p.min_speed_efficiency = 0.45;
      p.max_speed_efficiency = 0.55;
    }
  measured.time_split.push_back({0, 10.0, 2, 4.0, 1.0, 3.0});
  twin.time_split.push_back({0, 10.0, 1, 2.0, 1.2, 0.8});
  const ReportSection s = twin_section(data);
  EXPECT_TRUE(mentions(s,
                       "mm-small and its twin mm-small-twin: the twin's E_s differs from the "
                       "measured mean by more than 10% at 5 of 6 sizes. "));
  EXPECT_TRUE(mentions(s,
                       "set 0 (2 nodes), N = 10: E_s +200.0% (within the measured runs' range, 2 "
                       "measured runs); T -50.0%: the slowest rank's compute +20.0%, the time "
                       "beyond it -73.3%"));
  EXPECT_TRUE(mentions(s, "set 0 (2 nodes), N = 20: E_s +80.0% (within the measured runs' "
                          "range, 2 measured runs); no compute times of both"));
  EXPECT_FALSE(mentions(s, "set 0 (2 nodes), N = 40"));  // +4%: within the tolerance
  measured.curve[1].runs = 1;                              // N = 10 on set 0
  EXPECT_TRUE(mentions(twin_section(data), "N = 10: E_s +200.0% (within the measured runs' "
                                           "range, 1 measured run); T"));
  EXPECT_TRUE(mentions(s, "set 1 (4 nodes), N = 80: E_s -20.0% (outside the measured runs' "
                          "range"));
  const ReportTable* table = table_of(s, "mm-small-twin-efficiency-set-0");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->columns.size(), 18u);
  EXPECT_EQ(table->columns[16], "compute_difference");
  EXPECT_EQ(table->cells[0][9], "4");        // measured T at N = 10
  EXPECT_EQ(table->cells[0][14], "0.8");     // twin's time beyond its slowest compute
  EXPECT_EQ(table->cells[0][15], "-50.00 %");
  EXPECT_EQ(table->cells[0][16], "20.00 %");
  EXPECT_EQ(table->cells[0][17], "-73.33 %");
  EXPECT_EQ(table->cells[1][15], "n/a");  // N = 20: no split
}

TEST(TwinSection, NoNoteWhenEverySizeIsWithinTheTolerance) {
  ReportData data = twin_data();
  data.twins[0].twin = data.experiments[0];  // the twin reads exactly what was measured
  data.twins[0].twin.name = "mm-small-twin";
  EXPECT_FALSE(mentions(twin_section(data), "differs from the measured mean"));
}

TEST(CapacitySection, TheTwinBesideTheForecastsWithEitherSideMissingNoted) {
  ReportData data = twin_data();
  data.experiments[0].forecasts.push_back(
      {5, 0.5, "doubling", "set 4", {}, 32, 1600, 700.0, 7e8, 0.1, {}, {}, {}, "isospeed-e fit"});
  const ReportSection s = capacity_section(data);
  const ReportTable* table = table_of(s, "mm-small-twin-capacity");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->cells.size(), 3u);
  EXPECT_EQ(table->cells[0][2], "doubling: set 2");
  EXPECT_EQ(table->cells[0][13], "-20.00 %");   // parameter
  EXPECT_EQ(table->cells[0][14], "-48.75 %");   // work
  EXPECT_EQ(table->cells[0][15], "38.89 %");    // psi 0.25 against 0.18
  EXPECT_EQ(table->cells[1][2], "no forecast");
  EXPECT_EQ(table->cells[2][8], "not simulated");
  EXPECT_TRUE(mentions(s,
                       "twin set 3 (16 nodes) at E_s 0.5: no forecast of hetscale predict "
                       "for 16 nodes from mm-small"));
  EXPECT_TRUE(mentions(s, "forecasts for 32 nodes have no twin set beside them"));
  EXPECT_FALSE(mentions(s, "no forecasts stored"));
}

TEST(BuildReport, TheTwinSectionOnlyWithTwinsAfterPsi) {
  const Report with = build_report(twin_data(), "t", "s");
  ASSERT_EQ(with.sections.size(), 6u);
  EXPECT_EQ(with.sections[2].id, "twin");
  EXPECT_EQ(with.sections[2].title, "Measured and twin");
  ReportData without = twin_data();
  without.twins.clear();
  const Report plain = build_report(without, "t", "s");
  ASSERT_EQ(plain.sections.size(), 5u);
  for (const auto& section : plain.sections) EXPECT_NE(section.id, "twin");
  EXPECT_EQ(render_html(plain).find("Measured and twin"), std::string::npos);
}

}  // namespace
}  // namespace hetscale::report
