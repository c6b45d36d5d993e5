#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "html_report.hpp"
#include "number_format.hpp"
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

TEST(LineChart, ABandIsAnAreaUnderTheLinesInItsSeriesColourWithALegendEntry) {
  LineChart chart;
  chart.series.push_back({"forecast", {{1, 10}, {2, 20}, {4, 40}, {8, 80}}});
  chart.bands.push_back({"interval", 0, {{1, 8, 12}, {2, 15, 26}, {4, NAN, 50}, {8, 60, 300}}});
  const std::string svg = render_svg(chart);
  // Joined over the first two points; the open bound at 4 splits off the last as a bar.
  EXPECT_EQ(count(svg, "<polygon "), 1u);
  EXPECT_EQ(count(svg, "fill=\"#0072B2\" fill-opacity=\"0.22\""), 3u);  // area, bar, legend
  EXPECT_LT(svg.find("class=\"band\""), svg.find("class=\"series\""));  // under the line
  EXPECT_NE(svg.find(">interval</text>"), std::string::npos);
  // The band's bounds widen the axis: 300 is on the plot.
  EXPECT_NE(svg.find(">300<"), std::string::npos) << svg;
  chart.bands[0].joined = false;
  EXPECT_EQ(count(render_svg(chart), "<polygon "), 0u);
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
  EXPECT_NE(svg.find(">10,000<"), std::string::npos);
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

// --- layout: numbers as shown, label geometry, log axes, tables' boxes ---------------------

TEST(ShownNumber, AtMostFourSignificantDigitsGroupedOrAsAPowerOfTen) {
  EXPECT_EQ(shown_number(0.735), "0.735");
  EXPECT_EQ(shown_number(0.73512), "0.7351");
  EXPECT_EQ(shown_number(1.0), "1");
  EXPECT_EQ(shown_number(100), "100");
  EXPECT_EQ(shown_number(-0.5), "-0.5");
  EXPECT_EQ(shown_number(0), "0");
  EXPECT_EQ(shown_number(9999), "9999");
  EXPECT_EQ(shown_number(12345.6), "12,350");
  EXPECT_EQ(shown_number(434312), "434,300");
  EXPECT_EQ(shown_number(999999.7), "10⁶");  // rounded first
  EXPECT_EQ(shown_number(1e6), "10⁶");
  EXPECT_EQ(shown_number(2.5e14), "2.5×10¹⁴");
  EXPECT_EQ(shown_number(-4.3012e9), "-4.301×10⁹");
  EXPECT_EQ(shown_number(0.001), "0.001");
  EXPECT_EQ(shown_number(0.00025), "2.5×10⁻⁴");
  EXPECT_EQ(shown_number(123456789, 6), "1.23457×10⁸");
  EXPECT_EQ(shown_number(NAN), "n/a");
  EXPECT_EQ(shown_number(INFINITY), "n/a");
}

TEST(ShownPercent, SignedWithThreeSignificantDigits) {
  EXPECT_EQ(shown_percent(0.0712), "+7.12%");
  EXPECT_EQ(shown_percent(-1.0 / 6), "-16.7%");
  EXPECT_EQ(shown_percent(2), "+200%");
  EXPECT_EQ(shown_percent(0), "0%");
  EXPECT_EQ(shown_percent(5.11e-15), "0%");  // rounding noise
  EXPECT_EQ(shown_percent(1e-4), "+0.01%");
  EXPECT_EQ(shown_percent(NAN), "n/a");
}

TEST(ShownFigure, TheIntervalWhereTheViewGivesOneElseTheBareFigure) {
  EXPECT_EQ(shown_figure(0.735), "0.735");
  EXPECT_EQ(shown_figure(0.735, collector::Interval{0.95, 0.61, 0.86, ""}), "0.735 [0.61, 0.86]");
  EXPECT_EQ(shown_figure(434312.0, collector::Interval{0.9, 401000.0, 470260.0, ""}, "op"),
            "434,300 op [401,000, 470,300]");
  // The short reason, not the note that details it (the table's footnote).
  EXPECT_EQ(shown_figure(0.02, collector::Interval{0.95, {}, {}, "too few runs",
                                                   "too few runs: 1 run at 800 and 1 run at 1600"}),
            "0.02 (too few runs)");
  // Both bounds open is an interval, not its absence.
  EXPECT_EQ(shown_figure(1.02, collector::Interval{0.95, {}, {}, "", "lower bound open: ..."}),
            "1.02 [open, open]");
  EXPECT_EQ(shown_figure({}, collector::Interval{0.95, 0.1, 0.2, ""}), "n/a");
  EXPECT_EQ(shown_figure(2.5e14, {}, "op"), "2.5×10¹⁴ op");
}

// --- label geometry ------------------------------------------------------------------------

TEST(TextWidth, FromTheFontsAdvanceWidths) {
  EXPECT_DOUBLE_EQ(text_width("0", 10), 6.36);
  EXPECT_GT(text_width("mmm", 12), text_width("iii", 12));
  EXPECT_DOUBLE_EQ(text_width("×", 10), text_width("⁴", 10));  // one character each
  EXPECT_GT(text_width("abc", 12, true), text_width("abc", 12));
}

TEST(Overlap, OfRotatedBoxes) {
  TextLabel a;
  a.text = "0123456789";  // 63.6 px wide at 10 px, 11.7 high
  a.font_size = 10;
  a.x = 100;
  a.y = 100;
  TextLabel b = a;
  b.x = 160;  // level: 36.4 px of overlap
  EXPECT_TRUE(overlap(a, b));
  b.x = 170;
  EXPECT_FALSE(overlap(a, b));
  // Two labels rotated by 45 degrees, 20 px apart: parallel strips 14.1 px apart, wider
  // than a line of 11.7 px; their level boxes would overlap.
  a.angle = b.angle = -45;
  a.anchor = b.anchor = TextAnchor::end;
  b.x = 120;
  EXPECT_FALSE(overlap(a, b));
  b.x = 110;  // 7.1 px apart
  EXPECT_TRUE(overlap(a, b));
}

/// Every label inside the chart and no two overlapping; the failures named.
void expect_clear(const ChartLabels& drawn, const std::string& what) {
  const auto& labels = drawn.labels;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    for (const Point& p : corners(labels[i])) {
      EXPECT_GE(p.x, -0.01) << what << ": '" << labels[i].text << "' left of the chart";
      EXPECT_LE(p.x, drawn.width + 0.01) << what << ": '" << labels[i].text << "' right of it";
      EXPECT_GE(p.y, -0.01) << what << ": '" << labels[i].text << "' above it";
      EXPECT_LE(p.y, drawn.height + 0.01) << what << ": '" << labels[i].text << "' below it";
    }
    for (std::size_t j = i + 1; j < labels.size(); ++j)
      EXPECT_FALSE(overlap(labels[i], labels[j]))
          << what << ": '" << labels[i].text << "' (" << labels[i].role << ") and '"
          << labels[j].text << "' (" << labels[j].role << ")";
  }
}

BarChart crowded(std::size_t n, const std::string& stem, bool notes, std::size_t series) {
  BarChart chart;
  chart.title = "Predicted psi against the previous row of every forecast, a title longer than "
                "one line of the chart can hold at fifteen pixels";
  chart.x_label = "machine set (measured, next doublings, what-if)";
  chart.y_label = "SH = max TH - mean TH, TH = sigma_A / a of availability (dimensionless), a "
                  "long axis label";
  for (std::size_t k = 0; k < series; ++k) {
    chart.series.push_back("series " + std::to_string(k) + " of a long legend name (E_s 0.5)");
    chart.values.emplace_back();
  }
  for (std::size_t c = 0; c < n; ++c) {
    chart.categories.push_back(stem + std::to_string(c));
    chart.category_notes.push_back(notes && c % 2 ? "degraded" : "");
    for (auto& row : chart.values) row.push_back(0.1 + static_cast<double>(c % 7));
  }
  return chart;
}

TEST(BarChartLabels, NeverOverlapHoweverManyAndLongTheCategories) {
  for (std::size_t n : {1u, 2u, 3u, 5u, 8u, 11u, 12u, 20u, 40u, 41u, 60u, 97u, 200u, 1024u})
    for (const std::string stem :
         {"n", "set 0 -> ", "site set 3: amd-epyc-1=128 intel-xeon-2=128 arm-grace=64, #"})
      for (std::size_t series : {1u, 3u}) {
        const BarChart chart = crowded(n, stem, n % 2 == 1, series);
        expect_clear(chart_labels(chart), std::to_string(n) + " x '" + stem + "'");
      }
}

TEST(BarChartLabels, LevelThenRotatedThenUprightThenThinned) {
  auto angle_and_count = [](std::size_t n, const std::string& stem) {
    const auto drawn = chart_labels(crowded(n, stem, false, 1));
    double angle = 0;
    std::size_t categories = 0;
    for (const auto& l : drawn.labels)
      if (l.role == "category") {
        angle = l.angle;
        ++categories;
      }
    return std::pair{angle, categories};
  };
  EXPECT_EQ(angle_and_count(4, "n"), (std::pair{0.0, std::size_t{4}}));
  EXPECT_EQ(angle_and_count(4, "site set 3: amd-epyc-1=128 intel=64 #"),
            (std::pair{-45.0, std::size_t{4}}));
  EXPECT_EQ(angle_and_count(30, "set 0 -> "), (std::pair{-90.0, std::size_t{30}}));
  const auto [angle, shown] = angle_and_count(200, "n");
  EXPECT_EQ(angle, -90.0);
  EXPECT_LT(shown, 200u);  // every k-th: the table under the chart has them all
  EXPECT_GE(shown, 30u);
}

TEST(BarChartLabels, AShortenedLabelKeepsItsWholeTextAsTooltip) {
  BarChart chart = crowded(3, "", false, 1);
  chart.categories[1] = std::string(300, 'x');
  const std::string svg = render_svg(chart);
  EXPECT_NE(svg.find("…<title>" + std::string(300, 'x') + "</title></text>"), std::string::npos);
}

TEST(LineChartLabels, NeverOverlapWithLongTextsCloseGuidesAndWideLogAxes) {
  LineChart chart;
  chart.title = crowded(1, "", false, 1).title;
  chart.x_label = "marked speed of the set C (Mflops, log scale), with a long explanation of "
                  "what the axis holds that does not fit one line";
  chart.y_label = crowded(1, "", false, 1).y_label;
  chart.series.push_back({"predicted (measured sets, doublings)", {{100, 1e3}, {1e9, 1e15}}});
  chart.series.push_back({std::string(80, 'w'), {{300, 1e4}}, false});
  chart.horizontal_lines = {{"target E_s 0.5", 1e10}, {"target E_s 0.55", 1.2e10}};
  expect_clear(chart_labels(chart), "log-log");
  chart.series = {{"E_s", {{10, 0.1}, {20, 0.5}, {40, 0.55}}}};
  chart.horizontal_lines = {{"target E_s 0.5", 0.5}, {"target E_s 0.52", 0.52}};
  expect_clear(chart_labels(chart), "linear");
}

TEST(LogAxis, ValuesSpanningMoreThanTwoDecadesAreDrawnOnALogScale) {
  BarChart bars;
  bars.title = "psi";
  bars.categories = {"a", "b", "c"};
  bars.series = {"psi"};
  bars.values = {{0.3, 2844, 447094}};
  std::string svg = render_svg(bars);
  EXPECT_NE(svg.find(">100,000<"), std::string::npos) << svg;  // decades
  EXPECT_NE(svg.find(">0.1<"), std::string::npos);  // from the decade below the smallest
  EXPECT_EQ(count(svg, "class=\"point bar\""), 3u);
  bars.values = {{0.3, 20, 25}};  // 83 times: linear
  svg = render_svg(bars);
  EXPECT_EQ(svg.find(">0.1<"), std::string::npos);
  EXPECT_NE(svg.find(">0<"), std::string::npos);  // a linear axis starts at 0

  LineChart line;
  line.series.push_back({"W", {{1, 2}, {2, 500}}});
  svg = render_svg(line);
  EXPECT_NE(svg.find(">100<"), std::string::npos);
  EXPECT_EQ(svg.find(">0<"), std::string::npos) << svg;
  line.series[0].points[1].y = 150;  // 75 times: linear, from 0
  EXPECT_NE(render_svg(line).find(">0<"), std::string::npos);
}

// --- tables ---------------------------------------------------------------------------------

TEST(HtmlTables, AScrollingBoxFootnotesForLongTextsHiddenColumnsAndFolds) {
  ReportTable t{"fc", "Forecast", {"kind", "node_count", "speed", "model"}, {}, {}, {}};
  t.numeric = {false, true, true, false};
  t.units = {"", "", "Mflops", ""};
  t.hidden = {false, false, true, false};
  const std::string model = "T = W/(C eta) + T0; eta(N) quadratic in ln N on N in [100, 800]; "
                            "fitted on sets 0,1 (14 runs)";
  t.cells = {{"measured", "4", "400", model}, {"doubling", "8", "800", model}, {"x", "1", "1", "short"}};
  ReportSection section;
  section.id = "capacity";
  section.tables.push_back(t);
  Report report;
  report.sections.push_back(section);
  std::string page = render_html(report);
  EXPECT_NE(page.find("<div class=\"table-box\"><table><thead><tr><th>kind</th><th "
                      "class=\"num\">node count</th><th>model</th></tr>"),
            std::string::npos)
      << page;
  EXPECT_EQ(page.find("<th>speed"), std::string::npos);  // hidden: in the downloads only
  EXPECT_EQ(count(page, "<a href=\"#fc-note-1\">note 1</a>"), 2u);  // one note for both rows
  EXPECT_NE(page.find("<li id=\"fc-note-1\">" + model.substr(0, 20)), std::string::npos);
  EXPECT_NE(page.find("<td>short</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\"><span>4</span></td>"), std::string::npos);
  EXPECT_NE(table_csv(t).find(model), std::string::npos);  // the downloads keep the text
  EXPECT_NE(table_csv(t).find("speed"), std::string::npos);
  EXPECT_EQ(page.find("<details>"), std::string::npos);
  report.sections[0].tables[0].folded = true;
  page = render_html(report);
  EXPECT_NE(page.find("<details><summary>3 rows</summary><div class=\"table-box\">"),
            std::string::npos);
  // Units follow a column's name.
  report.sections[0].tables[0].hidden.clear();
  EXPECT_NE(render_html(report).find("<th class=\"num\">speed (Mflops)</th>"), std::string::npos);
}

TEST(HtmlFigures, ChartsBesideEachOtherInARowThatWraps) {
  Report report;
  ReportSection section;
  section.figures.push_back({"h", "<svg id=\"a\"></svg>", {}, "", {"<svg id=\"b\"></svg>"}});
  report.sections.push_back(section);
  EXPECT_NE(render_html(report).find("<div class=\"charts\"><div class=\"chart-box\"><svg "
                                     "id=\"a\"></svg></div><div class=\"chart-box\"><svg "
                                     "id=\"b\"></svg></div></div>"),
            std::string::npos);
  // A table without a title is named by the figure's heading; its id is on its downloads.
  report.sections[0].figures[0].tables.push_back({"t", "", {"a"}, {{"1"}}, {}, {}});
  const std::string page = render_html(report);
  EXPECT_NE(page.find("<div class=\"downloads\" id=\"t\">"), std::string::npos);
  EXPECT_EQ(page.find("<h3 id=\"t\">"), std::string::npos);
}

TEST(HtmlPage, PrintsOnA4WithChartsKeptWhole) {
  const std::string page = render_html(Report{});
  EXPECT_NE(page.find("@media print{"), std::string::npos);
  EXPECT_NE(page.find("@page{size:A4"), std::string::npos);
  EXPECT_NE(page.find(".chart-box,.note,.verdict,tr{break-inside:avoid}"), std::string::npos);
}

}  // namespace
}  // namespace hetscale::report
