#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>

#include "html_report.hpp"
#include "svg_chart.hpp"

namespace hetscale::report {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Ticks, LinearStepsAreOneTwoFive) {
  EXPECT_EQ(nice_ticks(0, 1, false),
            (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  EXPECT_EQ(nice_ticks(0, 100, false, 5), (std::vector<double>{0, 20, 40, 60, 80, 100}));
}

TEST(Ticks, LogAxesUseDecades) {
  EXPECT_EQ(nice_ticks(90, 11000, true), (std::vector<double>{100, 1000, 10000}));
  EXPECT_EQ(nice_ticks(150, 900, true), (std::vector<double>{200, 500}));
}

TEST(LineChart, DrawsEveryPointTitleLabelsAndTarget) {
  LineChart chart;
  chart.title = "E_s of mm <set 0>";
  chart.x_label = "problem size N";
  chart.y_label = "speed-efficiency E_s";
  chart.log_x = true;
  chart.series.push_back({"set 0 (2 nodes)", {{100, 0.1}, {200, 0.2}, {400, 0.35}}});
  chart.series.push_back({"set 1 (4 nodes)", {{200, 0.1}, {400, 0.2}, {800, NAN}}});
  chart.horizontal_lines.push_back({"target 0.3", 0.3});
  chart.highlights.push_back({"read-off", {{330, 0.3}}});
  const auto svg = render_svg(chart);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "class=\"point\""), 5u);  // NaN is skipped
  EXPECT_EQ(count(svg, "class=\"point highlight\""), 1u);
  EXPECT_NE(svg.find("E_s of mm &lt;set 0&gt;"), std::string::npos);
  EXPECT_NE(svg.find("problem size N"), std::string::npos);
  EXPECT_NE(svg.find("class=\"guide\""), std::string::npos);
  EXPECT_EQ(svg.find("no data"), std::string::npos);
}

TEST(LineChart, ADashedSeriesIsDashedInThePlotAndInTheLegend) {
  LineChart chart;
  chart.series.push_back({"measured", {{1, 0.1}, {2, 0.2}}});
  chart.series.push_back({"twin", {{1, 0.2}, {2, 0.3}}, true, true, true});
  const auto svg = render_svg(chart);
  EXPECT_EQ(count(svg, "stroke-dasharray=\"5 3\""), 2u);  // the twin's polyline and legend line
  chart.series[1].dashed = false;
  EXPECT_EQ(count(render_svg(chart), "stroke-dasharray=\"5 3\""), 0u);
}

TEST(LineChart, EmptyChartSaysNoData) {
  LineChart chart;
  chart.title = "nothing";
  EXPECT_NE(render_svg(chart).find("no data"), std::string::npos);
}

TEST(BarChart, OneBarPerFiniteValueAndNotes) {
  BarChart chart;
  chart.title = "TH per node";
  chart.categories = {"n1", "n2", "n3"};
  chart.series = {"TH"};
  chart.values = {{0.1, NAN, 0.3}};
  chart.category_notes = {"", "", "degraded"};
  const auto svg = render_svg(chart);
  EXPECT_EQ(count(svg, "class=\"point bar\""), 2u);
  EXPECT_NE(svg.find(">degraded<"), std::string::npos);
}

TEST(Html, SelfContainedWithDownloads) {
  Report report;
  report.title = "hetscale report";
  report.subtitle = "site testbed";
  ReportSection section;
  section.id = "psi";
  section.title = "Isospeed-e scalability";
  section.notes.push_back("set 3 does not bracket the target");
  section.tables.push_back(
      {"psi-mm", "psi, mm", {"from", "to", "psi"}, {{"0", "1", "0.93"}, {"1", "2", "a,\"b\""}}});
  report.sections.push_back(section);
  const auto page = render_html(report);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(page.find("http://"),
            page.find("http://www.w3.org"));  // no fetches, only SVG namespaces
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("download=\"psi-mm.csv\""), std::string::npos);
  EXPECT_NE(page.find("set 3 does not bracket the target"), std::string::npos);
  EXPECT_EQ(table_csv(section.tables[0]), "from,to,psi\n0,1,0.93\n1,2,\"a,\"\"b\"\"\"\n");
  const auto json = nlohmann::json::parse(table_json(section.tables[0]));
  EXPECT_EQ(json[1]["psi"], "a,\"b\"");
}

TEST(LineChart, LogYSkipsNonPositiveValuesAndTicksByDecade) {
  LineChart chart;
  chart.title = "W";
  chart.log_x = true;
  chart.log_y = true;
  chart.series.push_back({"work", {{100, 1e3}, {200, 1e5}, {400, 0}}});
  const auto svg = render_svg(chart);
  EXPECT_EQ(count(svg, "class=\"point\""), 2u);  // 0 has no place on a log axis
  EXPECT_NE(svg.find(">10000<"), std::string::npos);
}

TEST(BarChart, OneSeriesColouredByCategoryGroupWithAGroupLegend) {
  BarChart chart;
  chart.title = "nodes";
  chart.categories = {"b1", "s1", "s2"};
  chart.series = {"speed"};
  chart.values = {{20, 80, 80}};
  chart.category_groups = {"blade", "server", "server"};
  const auto svg = render_svg(chart);
  EXPECT_EQ(count(svg, "fill=\"#0072B2\"><title>"), 1u);  // blade
  EXPECT_EQ(count(svg, "fill=\"#E69F00\"><title>"), 2u);  // server
  EXPECT_EQ(count(svg, ">server</text>"), 1u);
}

TEST(Html, FiguresPutTheirTablesUnderTheChart) {
  Report report;
  ReportSection section;
  section.id = "s";
  section.figures.push_back(
      {"mm", "<svg id=\"c1\"></svg>", {{"t1", "T1", {"a"}, {{"1"}}, {}, {}}}});
  section.figures.push_back({"", "<svg id=\"c2\"></svg>", {{"t2", "T2", {"a"}, {{"2"}}, {}, {}}}});
  report.sections.push_back(section);
  const auto page = render_html(report);
  EXPECT_LT(page.find("id=\"c1\""), page.find("id=\"t1\""));
  EXPECT_LT(page.find("id=\"t1\""), page.find("id=\"c2\""));
  EXPECT_LT(page.find("id=\"c2\""), page.find("id=\"t2\""));
}

TEST(Html, NumericColumnsAreJsonNumbersAndRawValuesAreExported) {
  ReportTable t{"t",          "T", {"host", "speed"}, {{"001", "1.5"}}, {{"001", "1.5000001"}},
                {false, true}};
  EXPECT_EQ(table_csv(t), "host,speed\n001,1.5000001\n");
  const auto json = nlohmann::json::parse(table_json(t));
  EXPECT_EQ(json[0]["host"], "001");
  EXPECT_EQ(json[0]["speed"], 1.5000001);
}

}  // namespace
}  // namespace hetscale::report
