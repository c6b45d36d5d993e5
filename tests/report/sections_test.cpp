// The mapping from view rows to charts and sections (report_sections.hpp), without a
// database: which series, bars, guides and notes each set of rows gives.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "hetscale/model/bootstrap.hpp"
#include "hetscale/model/sample_statistics.hpp"
#include "html_report.hpp"
#include "number_format.hpp"
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

/// An interval of the views from the model's own (what analyze stores, migration 23).
collector::Interval view_interval(const ReportedInterval& i, std::string method) {
  return {measured_interval_level, i.low, i.high, i.reason, i.note, std::move(method), {}};
}

// A figure without an interval keeps its cell short: the cell shows the model's short
// reason, the table's footnote the whole note that analyze writes (taken from the model,
// which writes it: one run per size, a set whose psi replicates all lie beyond the sizes).
TEST(EfficiencySection, AFigureWithoutAnIntervalShowsItsReasonAndFootnotesTheNote) {
  ExperimentData e = mm();
  std::vector<EfficiencyPoint> one_run_each;
  for (const auto& p : e.curve)
    if (p.set_index == 0) one_run_each.push_back({p.parameter_value, p.speed_efficiency});
  const ParameterInterval parameter =
      required_parameter_interval(one_run_each, 0.4, default_efficiency_tolerance, {});
  ASSERT_EQ(parameter.interval.reason, "too few runs");
  ASSERT_GT(parameter.interval.note.size(), 60u) << parameter.interval.note;
  e.required_work[0].parameter_interval =
      view_interval(parameter.interval, std::string(residual_bootstrap_method));
  e.required_work[0].work_interval = e.required_work[0].parameter_interval;
  const MeanEstimate one_run = mean_estimate(std::vector<double>{e.curve[0].speed_efficiency});
  e.curve[0].speed_efficiency_interval = collector::Interval{
      measured_interval_level, one_run.low, one_run.high, one_run.reason, one_run.note,
      std::string(mean_t_interval_method)};
  const std::vector<double> beyond(50, std::numeric_limits<double>::quiet_NaN());
  const ReportedInterval open = reported_interval(beyond, measured_interval_level, "below", "above");
  e.psi[0].psi = 0.93;
  e.psi[0].psi_interval = view_interval(open, std::string(residual_bootstrap_method));
  ReportData data;
  data.experiments = {e};
  const ReportSection s = efficiency_section(data);
  const ReportTable* work = table_of(s, "required-work-mm-small");
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->cells[0][5], "40 (too few runs)");
  EXPECT_EQ(work->cells[0][6], "128,000 (too few runs)");
  EXPECT_EQ(work->footnotes[0][5], parameter.interval.note);
  EXPECT_EQ(work->raw[0][5], "40");
  const ReportTable* curve = table_of(s, "efficiency-mm-small");
  ASSERT_NE(curve, nullptr);
  EXPECT_EQ(curve->cells[0][4], fmt::format("{} (1 run)", shown_number(e.curve[0].speed_efficiency)));
  EXPECT_EQ(curve->footnotes[0][4], "");  // the note says no more than the reason
  const ReportTable psi = psi_section(data).figures.at(0).tables.at(0);
  EXPECT_EQ(psi.cells[0][8], "0.93 [open, open]");
  EXPECT_EQ(psi.footnotes[0][8], open.note);
  // No numeric cell carries a note: each is a figure, its bounds or a short reason.
  for (const ReportTable* t : {work, curve, &psi})
    for (const auto& row : t->cells)
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (t->numeric[c]) {
          EXPECT_LE(row[c].size(), 24u) << t->id << ": " << row[c];
        }
      }
  // The page links the cell to the note under its table.
  Report report;
  report.sections.push_back(s);
  const std::string page = render_html(report);
  EXPECT_NE(page.find("<td class=\"num\"><span>40</span> <span>(too few runs)</span><sup><a "
                      "href=\"#required-work-mm-small-note-1\">1</a></sup></td>"),
            std::string::npos);
  EXPECT_NE(page.find("<li id=\"required-work-mm-small-note-1\">too few runs: 1 run at "),
            std::string::npos);
}

// Each table with intervals says what they are, as the views store them.
TEST(EfficiencySection, TablesSayTheLevelAndMethodOfTheirIntervals) {
  ExperimentData e = mm();
  for (auto& p : e.curve)
    p.speed_efficiency_interval = collector::Interval{
        0.95, p.speed_efficiency - 0.01, p.speed_efficiency + 0.01, "", "", std::string(mean_t_interval_method)};
  e.required_work[0].parameter_interval = collector::Interval{
      0.9, 35.0, 45.0, "", "", std::string(residual_bootstrap_method), 2000};
  e.psi[0].psi = 0.9;
  e.psi[0].psi_interval = collector::Interval{0.9, 0.8, 1.0, "", "", "", 2000};
  ReportData data;
  data.experiments = {e};
  const ReportSection s = efficiency_section(data);
  EXPECT_EQ(table_of(s, "efficiency-mm-small")->title,
            "E_s curve points, mm-small (intervals: 95% (Student t interval of the mean))");
  EXPECT_EQ(table_of(s, "required-work-mm-small")->title,
            "Required work at the target, mm-small (intervals: 90% (stratified residual "
            "bootstrap, percentile; 2000 resamples))");
  EXPECT_EQ(psi_section(data).figures.at(0).tables.at(0).title,
            "psi between consecutive sets (intervals: 90% (2000 resamples))");
  e.required_work[0].parameter_interval->reason = "too few runs";
  e.required_work[0].parameter_interval->low.reset();
  e.required_work[0].parameter_interval->high.reset();
  data.experiments = {e};
  EXPECT_EQ(table_of(efficiency_section(data), "required-work-mm-small")->title,
            "Required work at the target, mm-small");  // no interval: nothing to say
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
  EXPECT_TRUE(mentions(node_map_section(data), "site lab: nodes not ok: 1 degraded (s1); 1 excluded (s2)"));
}

// One row per group and state, its hosts in natural order as a Slurm host list; every node
// in the folded table beside it, in natural order too.
TEST(NodeMap, GroupedByGroupAndStateWithCompressedHostListsInNaturalOrder) {
  ReportData data;
  for (int i = 341; i >= 1; --i)
    data.nodes.push_back({"grown", "amd-epyc-1", 100, "amd-epyc-1-t" + std::to_string(i), 2, 100,
                          "Gflops", i == 12 || i == 119 ? "degraded" : "ok"});
  data.nodes.push_back({"grown", "intel", 50, "intel-2", 1, 50, "Gflops", "ok"});
  data.nodes.push_back({"grown", "intel", 50, "intel-10", 1, 60, "Gflops", "ok"});
  const auto groups = node_groups(data.nodes);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].group, "amd-epyc-1");
  EXPECT_EQ(groups[0].state, "ok");
  EXPECT_EQ(groups[0].hosts.size(), 339u);
  EXPECT_EQ(groups[0].hosts[1], "amd-epyc-1-t2");  // t2 before t12 and t119
  EXPECT_EQ(groups[1].state, "degraded");
  EXPECT_EQ(groups[1].hosts, (std::vector<std::string>{"amd-epyc-1-t12", "amd-epyc-1-t119"}));
  EXPECT_EQ(groups[2].hosts, (std::vector<std::string>{"intel-2", "intel-10"}));
  EXPECT_DOUBLE_EQ(groups[2].min_node_speed, 50);
  EXPECT_DOUBLE_EQ(groups[2].max_node_speed, 60);
  const ReportSection s = node_map_section(data);
  ASSERT_EQ(s.figures.size(), 1u);
  ASSERT_EQ(s.figures[0].tables.size(), 2u);
  const ReportTable& grouped = s.figures[0].tables[0];
  ASSERT_EQ(grouped.cells.size(), 3u);
  EXPECT_EQ(grouped.cells[0][3], "amd-epyc-1-t[1-11,13-118,120-341]");
  EXPECT_EQ(grouped.cells[0][2], "339");
  EXPECT_EQ(grouped.cells[0][5], "200");  // 2 processors of 100
  EXPECT_EQ(grouped.cells[1][3], "amd-epyc-1-t[12,119]");
  EXPECT_EQ(grouped.cells[2][3], "intel-[2,10]");
  EXPECT_EQ(grouped.cells[2][5], "50 to 60");
  EXPECT_FALSE(grouped.folded);
  const ReportTable& every = s.figures[0].tables[1];
  EXPECT_TRUE(every.folded);
  ASSERT_EQ(every.cells.size(), 343u);
  EXPECT_EQ(every.cells[0][2], "amd-epyc-1-t1");
  EXPECT_EQ(every.cells[1][2], "amd-epyc-1-t2");
  EXPECT_EQ(every.cells[11][2], "amd-epyc-1-t12");
  EXPECT_EQ(every.cells[342][2], "intel-10");
  EXPECT_TRUE(mentions(s, "site grown: nodes not ok: 2 degraded (amd-epyc-1-t[12,119])"));
}

// What the stored site table says each group's nodes have (migration 27): a hardware
// column in the grouped table, and a table of the hybrid groups' kinds of core.
TEST(NodeMap, TheGroupsHardwareAndKindsOfCoreAreShownWhereStored) {
  ReportData data;
  data.nodes = {{"lab", "blade", 20, "b1", 1, 20, "Mflops", "ok", "2x64c AMD EPYC 7763, 256 GB DRAM"},
                {"lab", "laptop", 40, "l1", 20, 40, "Mflops", "ok", "1x14c Intel Core i7-1370P"},
                {"lab", "old", 10, "o1", 1, 10, "Mflops", "ok"}};
  GroupCpuKindRow efficient{"lab", "laptop", 0, {12, 13, 14, 15, 16, 17, 18, 19}};
  efficient.efficiency = 0;
  efficient.core_type = "IntelAtom";
  efficient.marked_speed = 20;
  efficient.group_marked_speed = 40;
  efficient.speed_unit = "Mflops";
  GroupCpuKindRow performance{"lab", "laptop", 1, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 30}};
  performance.marked_speed = 52.5;
  performance.group_marked_speed = 40;
  performance.speed_unit = "Mflops";
  data.cpu_kinds = {efficient, performance, {"other-site", "x", 0, {0}}};
  const ReportSection s = node_map_section(data);
  ASSERT_EQ(s.figures.size(), 1u);
  ASSERT_EQ(s.figures[0].tables.size(), 3u);
  const ReportTable& grouped = s.figures[0].tables[0];
  ASSERT_EQ(grouped.columns.back(), "hardware");
  ASSERT_EQ(grouped.cells.size(), 3u);
  EXPECT_EQ(grouped.cells[0].back(), "2x64c AMD EPYC 7763, 256 GB DRAM");
  EXPECT_EQ(grouped.cells[1].back(), "1x14c Intel Core i7-1370P");
  EXPECT_EQ(grouped.cells[2].back(), "");  // a group the table does not describe
  const ReportTable& kinds = s.figures[0].tables[1];
  EXPECT_EQ(kinds.columns, (std::vector<std::string>{"group", "kind", "cpus", "cpu_count", "efficiency",
                                                     "core_type", "kind_marked_speed",
                                                     "group_marked_speed"}));
  ASSERT_EQ(kinds.cells.size(), 2u);  // this site's only
  EXPECT_EQ(kinds.cells[0], (std::vector<std::string>{"laptop", "0", "12-19", "8", "0", "IntelAtom",
                                                      "20", "40"}));
  EXPECT_EQ(kinds.cells[1], (std::vector<std::string>{"laptop", "1", "0-11,30", "13", "", "", "52.5",
                                                      "40"}));
  EXPECT_TRUE(s.figures[0].tables[2].folded);  // every node, last

  // A site whose table describes nothing has neither.
  for (auto& n : data.nodes) n.group_hardware.clear();
  data.cpu_kinds.clear();
  const ReportSection plain = node_map_section(data);
  ASSERT_EQ(plain.figures[0].tables.size(), 2u);
  EXPECT_EQ(plain.figures[0].tables[0].columns.back(), "group_marked_speed");
}

TEST(NodeMap, ALargeSiteIsSummarisedPerGroup) {
  ReportData data;
  for (std::size_t i = 0; i <= kMaxNodeBars; ++i)
    data.nodes.push_back({"big", i % 2 ? "fat" : "thin", 10, "n" + std::to_string(i), 1,
                          i % 2 ? 30.0 + static_cast<double>(i % 3) : 10.0, "Gflops",
                          i == 3 ? "degraded" : "ok"});
  const BarChart chart = group_speed_chart("big", data.nodes);
  EXPECT_EQ(chart.categories, (std::vector<std::string>{"fat (20 nodes)", "thin (21 nodes)"}));
  EXPECT_EQ(chart.values[0], (std::vector<double>{30, 10}));
  EXPECT_DOUBLE_EQ(chart.values[1][0], 30.95);
  EXPECT_EQ(chart.values[2], (std::vector<double>{32, 10}));
  EXPECT_EQ(chart.category_notes, (std::vector<std::string>{"1 not ok", ""}));
  const ReportSection s = node_map_section(data);
  ASSERT_EQ(s.figures.size(), 1u);
  EXPECT_NE(s.figures[0].chart.find("by group, site big"), std::string::npos);
  EXPECT_EQ(s.figures[0].tables[1].cells.size(), kMaxNodeBars + 1);  // the table keeps every node
  for (auto& n : data.nodes) n.state = "degraded";
  EXPECT_TRUE(mentions(node_map_section(data),
                       "site big: nodes not ok: " + std::to_string(kMaxNodeBars + 1) +
                           " degraded (n[0-" + std::to_string(kMaxNodeBars) + "])"));
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
  EXPECT_EQ(partitions->cells[1].back(), "-10%");
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
  const LineChart psi = forecast_psi_chart(e, 0.5);
  EXPECT_TRUE(psi.log_x);  // nodes, not categories: no label to crowd
  ASSERT_EQ(psi.series.size(), 2u);
  ASSERT_EQ(psi.series[0].points.size(), 3u);  // measured sets and the doubling, joined
  EXPECT_TRUE(std::isnan(psi.series[0].points[0].y));
  EXPECT_EQ(psi.series[0].points[2].x, 8);
  EXPECT_FALSE(psi.series[1].line);  // what-if sets: points, each against its own base
  EXPECT_EQ(psi.series[1].points[0].x, 16);
  const LineChart work = forecast_work_chart(e, 0.5);
  EXPECT_TRUE(work.log_x && work.log_y);
  ASSERT_EQ(work.series.size(), 3u);
  EXPECT_EQ(work.series[0].points.size(), 3u);  // measured sets and the doubling
  EXPECT_EQ(work.series[1].points.size(), 1u);  // what-if
  EXPECT_EQ(work.series[2].points.size(), 2u);  // measured work
  ReportData data;
  data.experiments = {e};
  const ReportSection s = capacity_section(data);
  ASSERT_EQ(s.figures.size(), 1u);  // work and psi side by side, the forecast's table under
  EXPECT_NE(s.figures[0].chart.find("<title>Required work at E_s 0.5, mm-small"), std::string::npos);
  ASSERT_EQ(s.figures[0].beside.size(), 1u);
  EXPECT_NE(s.figures[0].beside[0].find("<title>Predicted psi, mm-small"), std::string::npos);
  EXPECT_EQ(s.figures[0].tables[0].cells.size(), 4u);
  EXPECT_TRUE(mentions(s, "mean |error| 4%, largest 6% (2 sets)"));
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
  ASSERT_EQ(report.sections.size(), 6u);
  EXPECT_EQ(report.sections[0].id, "summary");
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
  EXPECT_EQ(t.cells[0][6], "128,000");
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
  // Sets 0 and 1 side by side over one table of both; the sizes beyond the tolerance; psi.
  ASSERT_EQ(s.figures.size(), 3u);
  EXPECT_EQ(s.figures[0].heading, "mm-small and its twin mm-small-twin");
  EXPECT_NE(s.figures[0].chart.find("set 0 (2 nodes)"), std::string::npos);
  ASSERT_EQ(s.figures[0].beside.size(), 1u);
  EXPECT_NE(s.figures[0].beside[0].find("set 1 (4 nodes)"), std::string::npos);
  const ReportTable& both = s.figures[0].tables[0];
  EXPECT_EQ(both.id, "mm-small-twin-efficiency");
  ASSERT_EQ(both.cells.size(), 7u);  // set 0: 3 sizes, set 1: 4
  EXPECT_EQ(both.cells[6][0], "1");
  EXPECT_EQ(both.cells[6][8], "n/a");  // no measured point at N = 160
  EXPECT_EQ(s.figures[1].tables[0].id, "mm-small-twin-misses");
  EXPECT_NE(s.figures[2].chart.find("mm-small-twin (E_s 0.5)"), std::string::npos);
}

// The measured figures beside the twin's carry their intervals as everywhere else.
TEST(TwinSection, TheMeasuredFiguresCarryTheirIntervals) {
  ReportData data = twin_data();
  ExperimentData& measured = data.experiments[0];
  for (auto& p : measured.curve)
    p.speed_efficiency_interval = collector::Interval{0.95, 0.1, 0.9, "", "", "Student t"};
  measured.psi[0].psi = 0.08;
  measured.psi[0].psi_interval = collector::Interval{0.95, {}, {}, "too few runs", "detail"};
  const ReportSection s = twin_section(data);
  const ReportTable& both = s.figures[0].tables[0];
  EXPECT_EQ(both.cells[0][3], "0.2 [0.1, 0.9]");  // set 0 at N = 10
  EXPECT_NE(both.title.find("(intervals: 95% (Student t))"), std::string::npos) << both.title;
  const ReportTable& misses = s.figures[1].tables[0];
  EXPECT_NE(misses.cells[0][3].find(" [0.1, 0.9]"), std::string::npos);
  const ReportTable& psi = s.figures[2].tables[0];
  EXPECT_EQ(psi.cells[0][3], "0.08 (too few runs)");
  EXPECT_EQ(psi.footnotes[0][3], "detail");
}

// A set within tolerance has a parameter like a found one: the chart reads it off too, as
// the summary counts it (one predicate of report/, reaches_target).
TEST(EfficiencyChart, ReadsOffASetWithinToleranceAsTheSummaryCountsIt) {
  ExperimentData e = mm();
  e.required_work[1].status = "within_tolerance";
  e.required_work[1].parameter_value = 80.0;
  const LineChart chart = efficiency_chart(e);
  ASSERT_EQ(chart.highlights.size(), 1u);
  ASSERT_EQ(chart.highlights[0].points.size(), 2u);
  EXPECT_EQ(chart.highlights[0].points[1].x, 80);
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
                       "measured mean by more than 10% at 5 of 6 sizes (table \"Sizes where the "
                       "twin's E_s misses the measured mean by more than 10%, mm-small\")"));
  const ReportTable* misses = table_of(s, "mm-small-twin-misses");
  ASSERT_NE(misses, nullptr);
  ASSERT_EQ(misses->cells.size(), 5u);  // not N = 40 on set 0: +4%, within the tolerance
  EXPECT_EQ(misses->columns, (std::vector<std::string>{
                                 "set_index", "N", "measured_runs", "measured_speed_efficiency",
                                 "twin_speed_efficiency", "difference",
                                 "twin_within_measured_runs", "wall_difference",
                                 "compute_difference", "outside_compute_difference",
                                 "larger_difference_in"}));
  // Set 0, N = 10: E_s 0.6 against 0.2, within the runs' range (0 to 1); T -50%, its
  // compute +20%, the time beyond it -73.3%.
  EXPECT_EQ(misses->cells[0], (std::vector<std::string>{"0", "10", "2", "0.2", "0.6", "+200%",
                                                        "yes", "-50%", "+20%", "-73.3%",
                                                        "beyond compute"}));
  EXPECT_EQ(misses->cells[1][1], "20");
  EXPECT_EQ(misses->cells[1][10], "no compute times");
  // Set 1, N = 80: 0.4 against 0.5, outside the runs (0.45 to 0.55).
  EXPECT_EQ(misses->cells[4][0], "1");
  EXPECT_EQ(misses->cells[4][1], "80");
  EXPECT_EQ(misses->cells[4][5], "-20%");
  EXPECT_EQ(misses->cells[4][6], "no");
  measured.curve[1].runs = 1;  // N = 10 on set 0
  EXPECT_EQ(table_of(twin_section(data), "mm-small-twin-misses")->cells[0][2], "1");
  const ReportTable* table = table_of(s, "mm-small-twin-efficiency");  // set 0 first
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->columns.size(), 18u);
  EXPECT_EQ(table->columns[16], "compute_difference");
  EXPECT_EQ(table->cells[0][9], "4");        // measured T at N = 10
  EXPECT_EQ(table->cells[0][14], "0.8");     // twin's time beyond its slowest compute
  EXPECT_EQ(table->cells[0][15], "-50%");
  EXPECT_EQ(table->cells[0][16], "+20%");
  EXPECT_EQ(table->cells[0][17], "-73.3%");
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
  EXPECT_EQ(table->cells[0][13], "-20%");     // parameter
  EXPECT_EQ(table->cells[0][14], "-48.8%");   // work
  EXPECT_EQ(table->cells[0][15], "+38.9%");   // psi 0.25 against 0.18
  // The marked speeds, the twin's set index and status are in the downloads only; the
  // status shows in place of a twin's missing parameter.
  EXPECT_TRUE(table->hidden[3]);
  EXPECT_TRUE(table->hidden[7]);
  EXPECT_TRUE(table->hidden[8]);
  EXPECT_FALSE(table->hidden[10]);
  EXPECT_EQ(table->cells[2][10], "not simulated");
  EXPECT_EQ(table->cells[1][2], "no forecast");
  EXPECT_EQ(table->cells[2][8], "not simulated");
  EXPECT_TRUE(mentions(s,
                       "twin set 3 (16 nodes) at E_s 0.5: no forecast of hetscale predict "
                       "for 16 nodes from mm-small"));
  EXPECT_TRUE(mentions(s, "forecasts for 32 nodes have no twin set beside them"));
  EXPECT_FALSE(mentions(s, "no forecasts stored"));
}

// The forecast's 90% intervals in the table beside the twin; a twin figure beyond a bound
// is named in the row and in a note, an open bound holds everything on its side.
TEST(CapacitySection, ATwinFigureOutsideTheForecastsIntervalIsNamed) {
  ReportData data = twin_data();
  for (auto& f : data.experiments[0].forecasts)
    if (f.node_count == 8 && f.kind == "doubling") {
      f.predicted_parameter_interval = collector::Interval{0.9, 150.0, 180.0, ""};
      f.predicted_work_interval = collector::Interval{0.9, 7e6, {}, "", "upper bound open"};
      f.predicted_psi_interval = collector::Interval{0.9, 0.2, 0.3, ""};
    }
  const std::vector<CapacityTwinRow> rows =
      capacity_twin_rows(data.experiments[0], data.twins[0].twin);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].twin_outside_interval(), (std::vector<std::string>{"parameter", "psi"}));
  const ReportSection s = capacity_section(data);
  const ReportTable* table = table_of(s, "mm-small-twin-capacity");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->columns[16], "twin_outside_interval");
  EXPECT_EQ(table->cells[0][4], "160 [150, 180]");
  EXPECT_EQ(table->cells[0][5], "8.2×10⁶ [7×10⁶, open]");
  EXPECT_EQ(table->cells[0][16], "twin outside the 90% interval: parameter, psi");
  EXPECT_EQ(table->cells[1][16], "");  // no forecast
  // The headings say what the intervals are, as every table with intervals does.
  EXPECT_NE(table->title.find(" (intervals: 90%)"), std::string::npos) << table->title;
  const ReportTable* forecast = table_of(s, "forecast-mm-small-0-5");
  ASSERT_NE(forecast, nullptr);
  EXPECT_NE(forecast->title.find(" (intervals: 90%)"), std::string::npos) << forecast->title;
  // One note for the experiment names every set outside, with the figures outside.
  EXPECT_TRUE(mentions(s, "the twin lies outside the forecast's interval on 1 of 1 sets: 8 nodes at E_s 0.5 "
                          "(parameter, psi)"));
  // Inside every interval: nothing named.
  for (auto& f : data.experiments[0].forecasts)
    if (f.node_count == 8 && f.kind == "doubling") {
      f.predicted_parameter_interval = collector::Interval{0.9, 150.0, 210.0, ""};
      f.predicted_psi_interval = collector::Interval{0.9, 0.1, 0.3, ""};
    }
  EXPECT_TRUE(capacity_twin_rows(data.experiments[0], data.twins[0].twin)[0]
                  .twin_outside_interval()
                  .empty());
  EXPECT_FALSE(mentions(capacity_section(data), "lies outside"));
}

// The forecast line of each capacity chart carries the band of its rows' intervals: joined
// over the measured sets and doublings, a bar at each what-if set; open where a bound is.
TEST(Capacity, TheChartsDrawTheForecastsIntervalsAsABand) {
  ExperimentData e = mm();
  e.forecasts = {forecast(0, "measured", 100, 1.2e5, {}, 1.28e5, -0.06),
                 forecast(1, "measured", 200, 1.0e6, 0.25, 1.024e6, 0.02),
                 forecast(2, "doubling", 400, 8e6, 0.25, {}, {}),
                 forecast(3, "what_if", 300, 4e6, 0.3, {}, {})};
  EXPECT_TRUE(forecast_work_chart(e, 0.5).bands.empty());  // no intervals stored
  e.forecasts[0].predicted_work_interval = collector::Interval{0.9, 1e5, 1.5e5, ""};
  e.forecasts[1].predicted_work_interval = collector::Interval{0.9, 0.8e6, 1.3e6, ""};
  e.forecasts[2].predicted_work_interval =
      collector::Interval{0.9, 6e6, {}, "", "upper bound open"};
  e.forecasts[3].predicted_work_interval = collector::Interval{0.9, 3e6, 5e6, ""};
  e.forecasts[1].predicted_psi_interval = collector::Interval{0.9, 0.2, 0.3, ""};
  e.forecasts[2].predicted_psi_interval = collector::Interval{0.9, 0.21, 0.29, ""};
  const LineChart work = forecast_work_chart(e, 0.5);
  ASSERT_EQ(work.bands.size(), 2u);
  EXPECT_EQ(work.bands[0].name, "90% interval of one new run (measured sets, doublings)");
  EXPECT_EQ(work.bands[0].series, 0u);
  EXPECT_TRUE(work.bands[0].joined);
  ASSERT_EQ(work.bands[0].points.size(), 3u);
  EXPECT_EQ(work.bands[0].points[1].x, 200);
  EXPECT_EQ(work.bands[0].points[1].low, 0.8e6);
  EXPECT_TRUE(std::isnan(work.bands[0].points[2].high));  // open: not drawn there
  EXPECT_EQ(work.bands[1].series, 1u);
  EXPECT_FALSE(work.bands[1].joined);
  const std::string svg = render_svg(work);
  EXPECT_NE(svg.find("<g class=\"band\" data-name=\"90% interval of one new run (measured sets, "
                     "doublings)\"><polygon "),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<g class=\"band\" data-name=\"90% interval of one new run (what-if "
                     "sets)\"><rect "),
            std::string::npos)
      << svg;
  const LineChart psi = forecast_psi_chart(e, 0.5);
  ASSERT_EQ(psi.bands.size(), 1u);  // the what-if's psi has no interval
  EXPECT_EQ(psi.bands[0].points.size(), 2u);
}

// --- summary ---------------------------------------------------------------------------

/// A measured experiment of sets 0 and 1 (2 and 4 nodes, one run per size) with a forecast
/// doubling from 8 to 1024 nodes and a what-if set, and a twin analysed on sets of 2 to 256
/// nodes: at 64 nodes the forecast's N is 5% above the twin's, at 256 nodes three times it.
ReportData capacity_data() {
  ExperimentData e;
  e.name = "mm";
  e.parameter = "N";
  for (int set = 0; set < 2; ++set)
    for (double n : {100.0, 200.0}) e.curve.push_back({set, n, 1, 2 * n * n * n, 0.5, 0.5, 0.5, {}});
  e.required_work.push_back({0, 2, 100, 0.5, "found", 100.0, 2e6, 0.5, "reached"});
  e.required_work.push_back({1, 4, 200, 0.5, "found", 150.0, 6.75e6, 0.5, "reached"});
  e.psi.push_back({0.5, 0, 1, 100, 200, 2e6, 6.75e6, 0.593});
  auto forecast_row = [&](int position, const std::string& kind, const std::string& label,
                          int nodes, double n, OptionalNumber psi) {
    Forecast f;
    f.position = position;
    f.target_efficiency = 0.5;
    f.kind = kind;
    f.label = label;
    f.node_count = nodes;
    f.marked_speed = 50.0 * nodes;
    f.predicted_parameter = n;
    f.predicted_work = 2 * n * n * n;
    f.predicted_psi = psi;
    f.model = "fit";
    if (kind == "measured") {
      f.set_index = position;
      f.measured_parameter = position == 0 ? 100.0 : 150.0;
      f.relative_error = n / *f.measured_parameter - 1;
    }
    e.forecasts.push_back(f);
  };
  forecast_row(0, "measured", "set 0", 2, 104, {});
  forecast_row(1, "measured", "set 1", 4, 156, 0.6);
  int position = 2;
  for (int nodes = 8; nodes <= 1024; nodes *= 2, ++position)
    forecast_row(position, "doubling", "set " + std::to_string(position), nodes,
                 nodes == 64 ? 2100.0 : nodes == 256 ? 15000.0 : 40.0 * nodes, 0.5);
  forecast_row(position, "what_if", "add:2:fast on set 1", 6, 170, 0.9);
  ExperimentData twin;
  twin.name = "mm-twin";
  int set = 0;
  for (int nodes = 2; nodes <= 256; nodes *= 2, ++set) {
    const double n = nodes == 64 ? 2000.0 : nodes == 256 ? 5000.0 : 40.0 * nodes;
    twin.required_work.push_back(
        {set, nodes, 50.0 * nodes, 0.5, "found", n, 2 * n * n * n, 0.5, "reached"});
    if (set > 0) twin.psi.push_back({0.5, set - 1, set, 0, 0, {}, {}, 0.4});
  }
  ReportData data;
  data.experiments = {e};
  data.twins.push_back({"mm", twin});
  return data;
}

TEST(Summary, AtTheLargestMeasuredSetAndAt64To1024NodesTheForecastBesideTheTwin) {
  const ReportData data = capacity_data();
  const ExperimentData& twin = data.twins[0].twin;
  EXPECT_EQ(summary_nodes(data.experiments[0], &twin, 0.5), (std::vector<int>{64, 256, 1024}));
  const auto summaries = experiment_summaries(data.experiments[0], &twin);
  ASSERT_EQ(summaries.size(), 1u);
  const ExperimentSummary& s = summaries[0];
  ASSERT_EQ(s.rows.size(), 7u);
  EXPECT_EQ(s.rows[0].source, "measured");
  EXPECT_EQ(s.rows[0].node_count, 4);
  EXPECT_EQ(*s.rows[0].parameter, 150);
  EXPECT_EQ(*s.rows[0].psi, 0.593);
  EXPECT_EQ(s.rows[0].psi_from, "set 0 (2 nodes)");
  EXPECT_EQ(s.rows[1].source, "forecast");
  EXPECT_EQ(s.rows[1].node_count, 64);
  EXPECT_EQ(s.rows[1].set, "doubling: set 5");
  EXPECT_EQ(s.rows[1].psi_from, "32 nodes");  // the doubling before
  EXPECT_EQ(s.rows[2].source, "twin");
  EXPECT_EQ(s.rows[2].set, "twin set 5");
  EXPECT_EQ(*s.rows[2].psi, 0.4);
  EXPECT_EQ(s.rows[2].psi_from, "twin set 4");
  EXPECT_DOUBLE_EQ(s.rows[2].forecast_versus_twin, 0.05);
  EXPECT_DOUBLE_EQ(s.rows[4].forecast_versus_twin, 2.0);  // 256 nodes
  EXPECT_EQ(s.rows[6].node_count, 1024);
  EXPECT_EQ(s.rows[6].note, "not simulated");
  EXPECT_EQ(s.holds, (std::vector<std::string>{
                         "measured required N and work on set 1 (4 nodes)",
                         "measured psi 0.593 from set 0 (2 nodes)",
                         "the forecast reproduces the measured N on set 1 (4 nodes) (+4%)",
                         "forecast and twin agree at 64 nodes (+5% of the twin's N)"}));
  EXPECT_EQ(s.fails,
            (std::vector<std::string>{
                "too few runs: one per size on set 1 (4 nodes), so the measured figures' spread "
                "is unknown",
                "forecast and twin disagree at 256 nodes: the forecast's N is +200% of the "
                "twin's (beyond 20%)",
                "no twin at 1024 nodes to check the forecast against"}));
  EXPECT_TRUE(s.verdict().starts_with("Holds: measured required N and work on set 1 (4 nodes);"));
  EXPECT_NE(s.verdict().find(". Does not hold: too few runs"), std::string::npos);
}

// Intervals, once the views give them, are shown beside their figures and judge the twin:
// inside the forecast's interval it agrees, however far from the forecast's value.
TEST(Summary, AnIntervalIsShownAndJudgesTheTwinInsteadOfTheFixedShare) {
  ReportData data = capacity_data();
  ExperimentData& e = data.experiments[0];
  e.psi[0].psi_interval = collector::Interval{0.95, 0.61 - 0.1, 0.86, ""};
  for (auto& f : e.forecasts)
    if (f.node_count == 256) f.predicted_parameter_interval = collector::Interval{0.9, 4000.0, 16000.0, ""};
  for (auto& f : e.forecasts)
    if (f.node_count == 64) f.predicted_parameter_interval = collector::Interval{0.9, 2050.0, 2200.0, ""};
  e.required_work[1].parameter_interval = collector::Interval{0.95, {}, {}, "too few runs"};
  const auto s = experiment_summaries(e, &data.twins[0].twin)[0];
  EXPECT_NE(std::find(s.holds.begin(), s.holds.end(),
                      "the twin lies inside the forecast's interval at 256 nodes"),
            s.holds.end());
  EXPECT_NE(std::find(s.fails.begin(), s.fails.end(),
                      "the twin lies outside the forecast's interval at 64 nodes"),
            s.fails.end());
  EXPECT_NE(std::find(s.fails.begin(), s.fails.end(), "measured required N: too few runs"),
            s.fails.end());
  const ReportSection section = summary_section(data);
  ASSERT_EQ(section.figures.size(), 1u);
  const ReportTable& t = section.figures[0].tables[0];
  EXPECT_EQ(t.id, "summary-mm-0-5");
  EXPECT_EQ(t.cells[0][5], "0.593 [0.51, 0.86]");
  EXPECT_EQ(t.cells[0][3], "150 (too few runs)");
  EXPECT_EQ(t.cells[3][3], "15,000 [4000, 16,000]");
  EXPECT_EQ(t.raw[3][3], "15000");  // the downloads keep the bare figure
  EXPECT_EQ(t.cells[6][3], "n/a");
  EXPECT_EQ(t.cells[6][8], "not simulated");
  EXPECT_EQ(section.figures[0].verdict, s.verdict());
}

// A view that gives a reason instead of bounds (the measured psi, a forecast's parameter)
// has the summary say which figure lacks its interval, and why.
TEST(Summary, AFigureWhoseViewGivesAReasonForNoIntervalDoesNotHold) {
  ReportData data = capacity_data();
  ExperimentData& e = data.experiments[0];
  e.psi[0].psi_interval = collector::Interval{0.95, {}, {}, "one run per size"};
  for (auto& f : e.forecasts)
    if (f.node_count == 1024)
      f.predicted_parameter_interval = collector::Interval{0.9, {}, {}, "two sets only"};
  const auto s = experiment_summaries(e, &data.twins[0].twin)[0];
  for (const std::string why : {"measured psi: one run per size",
                                "the forecast's N at 1024 nodes: two sets only"})
    EXPECT_NE(std::find(s.fails.begin(), s.fails.end(), why), s.fails.end()) << why;
}

// With [refine] precision, each set's required N holds when its interval is that precise
// and does not, with the runs and the budget spent, when it is wider; without a precision
// nothing is said of it.
TEST(Summary, EachSetSaysWhetherItsRequiredParameterReachedTheRefinementsPrecision) {
  ReportData data = capacity_data();
  ExperimentData& e = data.experiments[0];
  for (auto& c : e.curve) c.runs = 4;  // 8 runs per set
  e.required_work[0].parameter_interval = collector::Interval{0.95, 96.0, 104.0, ""};
  e.required_work[1].parameter_interval = collector::Interval{0.95, 120.0, 180.0, ""};
  const auto plain = experiment_summaries(e, &data.twins[0].twin)[0];
  for (const auto* said : {&plain.holds, &plain.fails})
    EXPECT_TRUE(std::none_of(said->begin(), said->end(), [](const std::string& line) {
      return line.find("precision") != std::string::npos;
    }));
  for (auto& w : e.required_work) {
    w.precision = 0.1;
    w.max_runs_per_set = 8;
  }
  const auto s = experiment_summaries(e, &data.twins[0].twin)[0];
  EXPECT_NE(std::find(s.holds.begin(), s.holds.end(),
                      "set 0 (2 nodes): precision 10% reached: half-width 4% after 8 runs"),
            s.holds.end());
  EXPECT_NE(std::find(s.fails.begin(), s.fails.end(),
                      "set 1 (4 nodes): precision 10% not reached: half-width 20% after 8 runs "
                      "(budget 8 runs per set)"),
            s.fails.end());
  data.experiments[0] = e;
  EXPECT_NE(summary_section(data).figures[0].verdict.find(
                "set 1 (4 nodes): precision 10% not reached"),
            std::string::npos);
}

TEST(Summary, WithoutATwinNoTwinRowsAndOneLineSaysSo) {
  const ReportData data = capacity_data();
  const auto s = experiment_summaries(data.experiments[0], nullptr)[0];
  ASSERT_EQ(s.rows.size(), 4u);  // the measured set and the forecasts at 64, 256, 1024 nodes
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(s.rows[i].source, "forecast");
  EXPECT_EQ(s.fails.back(), "no twin to check the forecasts against (hetscale twin study)");
  EXPECT_EQ(std::count_if(s.fails.begin(), s.fails.end(),
                          [](const std::string& f) { return f.find("twin") != std::string::npos; }),
            1);
}

TEST(Summary, WithoutForecastsOrTwinItSaysWhatIsMissing) {
  ReportData data;
  data.experiments = {mm()};
  const ReportSection s = summary_section(data);
  ASSERT_EQ(s.figures.size(), 1u);
  EXPECT_EQ(s.figures[0].heading, "mm-small at E_s 0.5");
  EXPECT_EQ(s.figures[0].tables[0].cells.size(), 1u);  // the largest measured set only
  const std::string& verdict = s.figures[0].verdict;
  EXPECT_NE(verdict.find("measured required N on set 1 (4 nodes): the target is not bracketed "
                         "(above_range)"),
            std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("no forecast stored: run hetscale predict"), std::string::npos);
  EXPECT_NE(summary_section(ReportData{}).notes[0].find("no experiment with data"),
            std::string::npos);
}

TEST(BuildReport, TheTwinSectionOnlyWithTwinsAfterPsi) {
  const Report with = build_report(twin_data(), "t", "s");
  ASSERT_EQ(with.sections.size(), 7u);
  EXPECT_EQ(with.sections[0].id, "summary");
  EXPECT_EQ(with.sections[3].id, "twin");
  EXPECT_EQ(with.sections[3].title, "Measured and twin");
  ReportData without = twin_data();
  without.twins.clear();
  const Report plain = build_report(without, "t", "s");
  ASSERT_EQ(plain.sections.size(), 6u);
  for (const auto& section : plain.sections) EXPECT_NE(section.id, "twin");
  EXPECT_EQ(render_html(plain).find("Measured and twin"), std::string::npos);
}

}  // namespace
}  // namespace hetscale::report
