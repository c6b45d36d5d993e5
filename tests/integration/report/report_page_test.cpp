// `hetscale report` on a synthetic study loaded through collect and analyze (plus the rows
// of equalize and predict, by SQL), then the page opened in real headless Chromium.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>

#include "chromium.hpp"
#include "hetscale/collector/pg.hpp"
#include "page_geometry.hpp"
#include "report_sections.hpp"
#include "hetscale/collector/report_views.hpp"
#include "synthetic_study.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using report::ReportSection;
using report::ReportTable;

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string test_name() {
  return ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = fs::temp_directory_path() /
               ("hetscale-report-" + std::to_string(::getpid()) + "-" + test_name());
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }
  void TearDown() override { fs::remove_all(scratch_); }

  void load_study() {
    load_synthetic_study(db_.uri(), scratch_ / "inputs");
    insert_partitions_and_predictions(db_.uri());
  }

  /// The study and mm-small's twin.
  void load_study_and_twin() {
    load_study();
    load_twin_study(db_.uri(), scratch_ / "inputs");
  }

  /// Runs `hetscale report` (as `uri`, the test database by default) into scratch/report.
  int report(std::vector<std::string> extra = {}, std::string uri = "") {
    std::vector<std::string> args = {"report", "--db", uri.empty() ? db_.uri() : uri, "-o",
                                     (scratch_ / "report").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return hetscale_cli(args, out_, err_);
  }

  [[nodiscard]] fs::path page() const { return scratch_ / "report" / "index.html"; }

  TestDatabase db_;
  fs::path scratch_;
  std::string out_;
  std::string err_;
};

TEST_F(Report, EverySectionFromTheViews) {
  load_study();
  ASSERT_EQ(report(), 0) << err_;
  EXPECT_EQ(out_, "report written to " + fs::absolute(page()).string() + "\n");
  const std::string html = read_file(page());
  for (const char* id : {"efficiency", "psi", "nodes", "heterogeneity", "capacity"})
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  for (const char* title :
       {"Speed-efficiency E_s, mm-small", "Speed-efficiency E_s, mm-steep",
        "Isospeed-e scalability psi", "Marked speed per node, site example",
        "Run-time variability per node, mm-small", "Spatial heterogeneity SH per set",
        "Partition shares, mm-small, set 1", "Simulated run time tau",
        "Measured run time, marked vs equalized weights, mm-small",
        "Predicted psi, mm-steep at E_s 0.5", "Required work at E_s 0.5, mm-small"})
    EXPECT_NE(html.find(std::string("<title>") + title), std::string::npos) << title;
  EXPECT_EQ(html.find("no data"), std::string::npos);
  EXPECT_EQ(html.find("class=\"note\">no "), std::string::npos) << "a section lacks data";
  EXPECT_NE(html.find(">degraded<"), std::string::npos);
  EXPECT_NE(html.find(">excluded<"), std::string::npos);
  // One CSV and one JSON download per table.
  EXPECT_EQ(count(html, "<table>"), count(html, "download=\"") / 2);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // Without a twin experiment there is no twin section, not even an empty one.
  EXPECT_EQ(html.find("<section id=\"twin\">"), std::string::npos);
  EXPECT_EQ(html.find("Measured and twin"), std::string::npos);
}

TEST_F(Report, OpensOfflineInChromiumWithDataInEveryChart) {
  load_study_and_twin();
  // As a login role that holds only hetscale_reader: the report needs no more than a dashboard.
  const std::string role = "hetscale_report_reader_" + std::to_string(::getpid());
  db_.connect().exec("CREATE ROLE " + role + " LOGIN IN ROLE hetscale_reader");
  std::string uri = db_.uri();
  uri.replace(uri.find("://postgres@"), 12, "://" + role + "@");
  const int code = report({}, uri);
  db_.connect().exec("DROP ROLE " + role);
  ASSERT_EQ(code, 0) << err_;

  PageLoad load;
  try {
    load = load_page(page(), scratch_ / "chromium");
  } catch (const std::exception& e) {
    FAIL() << e.what() << " (install the Debian package chromium: scripts/install-deps.sh)";
  }
  EXPECT_TRUE(load.console.empty()) << "console: " << load.console.front();
  EXPECT_TRUE(load.network_urls.empty()) << "network request: " << load.network_urls.front();
  const auto svgs = svg_elements(load.dom);
  // E_s 2, psi 1, measured and twin 3, nodes 1, TH 2, SH 1, shares 1, tau 1, gain 2,
  // forecasts 2 x 2.
  EXPECT_EQ(svgs.size(), 18u);
  for (const auto& svg : svgs) {
    const auto title =
        svg.substr(svg.find("<title>") + 7, svg.find("</title>") - svg.find("<title>") - 7);
    EXPECT_GT(count(svg, "class=\"point"), 0u) << "chart without a mark: " << title;
  }

  const fs::path artefacts = fs::path(HETSCALE_BINARY_DIR) / "test-artefacts" / "report";
  fs::create_directories(artefacts);
  const fs::path png = artefacts / "report-screenshot.png";
  fs::remove(png);
  const CommandResult shot = screenshot(page(), png, scratch_ / "chromium", 1280, 4000);
  ASSERT_TRUE(shot.ok()) << shot.describe();
  const std::string bytes = read_file(png);
  ASSERT_GT(bytes.size(), 20000u) << png;
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  fs::copy_file(page(), artefacts / "index.html", fs::copy_options::overwrite_existing);
  std::cout << "screenshot: " << png.string() << "\nreport: " << (artefacts / "index.html").string()
            << std::endl;
}

// The capacity-planning fixture (the site grown to 1024 nodes, what-if sets, the twin on
// sets of 2 to 1024 nodes, forecasts to 1024 nodes) laid out by Chromium at 1280 px: the
// page opens with the summary, which names both experiments; no element is wider than its
// section unless inside a box that scrolls, and the summary's tables need no scrolling; no
// two chart labels overlap and none leaves its chart; the page is less than
// kMaxFixtureHeight px tall.
constexpr double kMaxFixtureHeight = 15000;

TEST_F(Report, TheCapacityFixtureReadsAt1280PxInChromium) {
  load_capacity_study(db_.uri(), scratch_ / "inputs");
  ASSERT_EQ(report(), 0) << err_;
  const PageGeometry g = measure_page(page(), scratch_ / "geometry", 1280);
  std::cout << "capacity fixture at 1280 px: " << g.page_height << " px tall, " << g.charts
            << " charts, " << g.labels << " labels" << std::endl;
  EXPECT_EQ(g.width, 1280);
  EXPECT_EQ(page_failures(g, kSyntheticExperiments, kMaxFixtureHeight),
            std::vector<std::string>{});
  EXPECT_GE(g.charts, 18);
  EXPECT_GE(g.labels, 200);
  // The summary's tables fit their section: a figure and its interval share a cell over
  // two lines where the line is short, so no column is out of sight.
  for (const std::string& table : g.scrolling)
    EXPECT_NE(table.rfind("summary-", 0), 0u) << "scrolls sideways: " << table;
  const std::string html = read_file(page());
  // The grown site's node map: a row per group and state, its hosts as Slurm host lists.
  EXPECT_NE(html.find("<td>b[1-2],blade-t[1-510]</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>s1,server-t[1-510]</td>"), std::string::npos);
  // What the stored site table says the groups' nodes have (migration 27), from the
  // database: the hardware lines and the hybrid group's kinds of core with their CPUs.
  EXPECT_NE(html.find("2x32c AMD EPYC 7543, 4x NVIDIA A100-SXM4 80 GB, 512 GB DRAM"), std::string::npos);
  EXPECT_NE(html.find("1x14c 13th Gen Intel Core i7-1370P (6 + 8 cores of 2 kinds), 32 GB DRAM"),
            std::string::npos);
  EXPECT_NE(html.find("Kinds of core of site "), std::string::npos);
  EXPECT_NE(html.find("<td>12-19</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>IntelAtom</td>"), std::string::npos);
  // predict's what-if rows name their base, and the summary reaches 1024 nodes.
  EXPECT_NE(html.find("add:2:server on set 1"), std::string::npos);
  EXPECT_NE(html.find("id=\"summary-mm-small-0-5\""), std::string::npos);
  const fs::path artefacts = fs::path(HETSCALE_BINARY_DIR) / "test-artefacts" / "report";
  fs::create_directories(artefacts);
  fs::copy_file(page(), artefacts / "capacity-fixture.html", fs::copy_options::overwrite_existing);
}

// The checks above must be able to fail: a page without a summary, a table wider than its
// section outside a scrolling box, two overlapping labels and one outside its chart, and
// more than 100 px tall.
TEST(PageGeometry, NoticesWideElementsOverlappingAndClippedLabelsAndAMissingSummary) {
  const fs::path dir =
      fs::temp_directory_path() / ("hetscale-geometry-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bad.html")
      << "<!DOCTYPE html><html><head><style>section{width:600px;border:1px solid}</style>"
         "</head><body><main><section id=\"psi\"><div style=\"width:900px\">wide</div>"
         "<div class=\"downloads\" id=\"t\"></div>"
         "<div class=\"table-box\" style=\"overflow-x:auto\"><div style=\"width:900px\">scrolls</div></div>"
         "<svg width=\"300\" height=\"100\" viewBox=\"0 0 300 100\"><title>c</title>"
         "<text x=\"10\" y=\"50\">overlapping one</text><text x=\"40\" y=\"52\">two</text>"
         "<text x=\"280\" y=\"90\">outside</text></svg></section></main></body></html>";
  const PageGeometry g = measure_page(dir / "bad.html", dir / "chromium", 1280);
  const auto failures = page_failures(g, {"mm-small"}, 100);
  fs::remove_all(dir);
  EXPECT_EQ(g.width, 1280);
  ASSERT_EQ(g.too_wide.size(), 1u) << g.too_wide.front();
  EXPECT_NE(g.too_wide[0].find("psi: div \"wide\" 900 px"), std::string::npos) << g.too_wide[0];
  EXPECT_EQ(g.overlapping, (std::vector<std::string>{"c: \"overlapping one\" and \"two\""}));
  EXPECT_EQ(g.clipped, (std::vector<std::string>{"c: \"outside\""}));
  ASSERT_EQ(g.scrolling.size(), 1u);
  EXPECT_EQ(g.scrolling[0].rfind("t: 900 px in ", 0), 0u) << g.scrolling[0];
  EXPECT_EQ(failures.size(), 6u);  // no summary, mm-small unnamed, wide, overlap, clipped, tall
  EXPECT_EQ(failures.front(), "the page does not open with <section id=\"summary\">");
  EXPECT_NE(failures.back().find("more than 100 px"), std::string::npos);
}

// Two users each collect an experiment called mm-scaling (migration 11: two experiments),
// with runs of their own: the report shows two experiments labelled owner/name, each with
// its own curve; the bare name is ambiguous, owner/name names one.
TEST_F(Report, TellsApartTwoUsersExperimentsOfOneName) {
  db_.migrate();
  const TestLogin alice(db_, "report_alice", "hetscale_writer");
  const TestLogin bob(db_, "report_bob", "hetscale_writer");
  const TestLogin reader(db_, "report_reader", "hetscale_reader");
  store_mm_site(db_.uri());
  // Problem size -> E_s of set 0, different for each user.
  const std::map<const TestLogin*, EfficiencyCurve> runs = {
      {&alice, {{10, 0.2}, {20, 0.3}, {40, 0.4}}}, {&bob, {{100, 0.5}, {200, 0.6}}}};
  int serial = 0;
  for (const auto& [user, curve] : runs)
    collect_mm_scaling(user->uri(), curve, serial, scratch_ / "inputs");
  const std::string alice_label = alice.name() + "/mm-scaling";
  const std::string bob_label = bob.name() + "/mm-scaling";

  pg::Connection conn = reader.connect();
  const collector::ReportData data = collector::read_report_data(conn, {});
  ASSERT_EQ(data.experiments.size(), 2u);
  for (const auto& e : data.experiments) {
    const TestLogin* user = e.owner == alice.name() ? &alice : &bob;
    EXPECT_EQ(e.owner, user->name());
    EXPECT_EQ(e.name, "mm-scaling");
    EXPECT_EQ(collector::shown_name(e), user->name() + "/mm-scaling");
    const EfficiencyCurve& expected = runs.at(user);
    ASSERT_EQ(e.curve.size(), expected.size()) << e.owner;
    for (const auto& point : e.curve)
      EXPECT_NEAR(point.speed_efficiency, expected.at(point.parameter_value), 1e-9)
          << e.owner << " N = " << point.parameter_value;
  }

  ASSERT_EQ(report({}, reader.uri()), 0) << err_;
  std::string html = read_file(page());
  EXPECT_NE(html.find("experiments: " + alice_label + ", " + bob_label + ";"), std::string::npos);
  for (const auto& label : {alice_label, bob_label})
    EXPECT_NE(html.find("<title>Speed-efficiency E_s, " + label), std::string::npos) << label;

  EXPECT_NE(report({"--experiment", "mm-scaling"}, reader.uri()), 0);
  EXPECT_NE(err_.find("experiment 'mm-scaling' is ambiguous: " + alice_label + ", " + bob_label),
            std::string::npos)
      << err_;

  ASSERT_EQ(report({"--experiment", bob_label}, reader.uri()), 0) << err_;
  html = read_file(page());
  EXPECT_NE(html.find("<title>Speed-efficiency E_s, " + bob_label), std::string::npos);
  EXPECT_EQ(html.find(alice_label), std::string::npos);

  // A database before migration 12 (here: one that records no version from 12 on, so the
  // report reads it as one) keys experiments by name: both users' runs are one experiment.
  db_.connect().exec("DELETE FROM hetscale.schema_migrations WHERE version >= 12");
  const collector::ReportData by_name = collector::read_report_data(conn, {});
  ASSERT_EQ(by_name.experiments.size(), 1u);
  EXPECT_EQ(collector::shown_name(by_name.experiments[0]), "mm-scaling");
  EXPECT_EQ(by_name.experiments[0].curve.size(), runs.at(&alice).size() + runs.at(&bob).size());
  ASSERT_EQ(report({"--experiment", "mm-scaling"}, reader.uri()), 0) << err_;
}

/// A table of the twin section by id.
const ReportTable& twin_table(const ReportSection& section, const std::string& id) {
  for (const auto& f : section.figures)
    for (const auto& t : f.tables)
      if (t.id == id) return t;
  throw std::runtime_error("no table " + id);
}

double raw_number(const ReportTable& t, std::size_t row, const std::string& column) {
  const auto at = std::find(t.columns.begin(), t.columns.end(), column);
  const std::string& v = t.raw.at(row).at(static_cast<std::size_t>(at - t.columns.begin()));
  return v.empty() ? std::nan("") : std::stod(v);
}

TEST_F(Report, PairsAnExperimentWithItsTwinSideBySide) {
  load_study_and_twin();
  ASSERT_EQ(report(), 0) << err_;
  const std::string html = read_file(page());
  EXPECT_NE(html.find("<a href=\"#twin\">Measured and twin</a>"), std::string::npos);
  EXPECT_NE(html.find("experiments: mm-small (twin mm-small-twin), mm-steep;"), std::string::npos);
  for (const char* title : {"Measured and twin E_s, mm-small, set 0 (2 nodes)",
                            "Measured and twin E_s, mm-small, set 1 (4 nodes)"})
    EXPECT_NE(html.find(std::string("<title>") + title), std::string::npos) << title;
  EXPECT_EQ(html.find("Measured and twin E_s, mm-small, set 2"), std::string::npos);
  // The paired twin is not an experiment of its own in the other sections.
  EXPECT_EQ(html.find("Speed-efficiency E_s, mm-small-twin"), std::string::npos);
  EXPECT_NE(html.find("mm-small-twin, twin set 3 (16 nodes) at E_s 0.5: no forecast of hetscale "
                      "predict for 16 nodes from mm-small"),
            std::string::npos);

  pg::Connection conn = pg::Connection::open(db_.uri());
  const collector::ReportData data = collector::read_report_data(conn, {});
  ASSERT_EQ(data.twins.size(), 1u);
  EXPECT_EQ(data.twins[0].measured, "mm-small");
  EXPECT_EQ(data.twins[0].twin.name, "mm-small-twin");
  for (const auto& e : data.experiments) EXPECT_NE(e.name, "mm-small-twin");
  const report::ReportSection section = report::twin_section(data);

  // (b) E_s per set and parameter value: set 0 has the same sizes, set 1 one more in the twin.
  const ReportTable& t = twin_table(section, "mm-small-twin-efficiency");
  ASSERT_EQ(t.cells.size(), 11u);
  for (int set = 0; set < 2; ++set) {
    for (std::size_t i = 0; i < t.cells.size(); ++i) {
      if (raw_number(t, i, "set_index") != set) continue;
      const double n = raw_number(t, i, "parameter_value");
      const int nodes = synthetic_set_nodes(set);
      const double twin = synthetic_efficiency("mm-small-twin", n, nodes);
      EXPECT_NEAR(raw_number(t, i, "twin_speed_efficiency"), twin, 1e-9) << n;
      // The twin's ranks each compute 3/4 of T (record_json).
      const double twin_seconds = 2 * n * n * n / (twin * synthetic_set_speed(set) * 1e6);
      EXPECT_NEAR(raw_number(t, i, "twin_wall_seconds"), twin_seconds, 1e-9 * twin_seconds);
      EXPECT_NEAR(raw_number(t, i, "twin_slowest_compute_seconds"), 0.75 * twin_seconds,
                  1e-9 * twin_seconds);
      EXPECT_NEAR(raw_number(t, i, "twin_outside_compute_seconds"), 0.25 * twin_seconds,
                  1e-9 * twin_seconds);
      if (n == 640) {  // no measured run of that size
        EXPECT_TRUE(std::isnan(raw_number(t, i, "measured_speed_efficiency")));
        EXPECT_TRUE(std::isnan(raw_number(t, i, "relative_difference")));
        EXPECT_TRUE(std::isnan(raw_number(t, i, "measured_wall_seconds")));
        EXPECT_TRUE(std::isnan(raw_number(t, i, "compute_difference")));
        continue;
      }
      // Two repetitions; the equalized configuration has two more runs, faster.
      const bool equalized = set == kEqualizedSet && n == kEqualizedParameter;
      const double marked = synthetic_efficiency("mm-small", n, nodes);
      const double measured = equalized ? (marked + marked / kEqualizedTimeFactor) / 2 : marked;
      EXPECT_NEAR(raw_number(t, i, "measured_speed_efficiency"), measured, 1e-9) << n;
      EXPECT_EQ(raw_number(t, i, "measured_runs"), equalized ? 4 : 2);
      EXPECT_NEAR(raw_number(t, i, "relative_difference"), (twin - measured) / measured, 1e-9);
      if (equalized) continue;
      // Each rank computes 3/4 of T, scaled by the noise of synthetic_study.cpp: the slowest
      // rank is the last (1 + 0.01 nodes) in repetition 0 and the first (0.99) in 1.
      const double seconds = 2 * n * n * n / (marked * synthetic_set_speed(set) * 1e6);
      const double compute = 0.75 * seconds * ((1 + 0.01 * nodes) + 0.99) / 2;
      EXPECT_NEAR(raw_number(t, i, "measured_wall_seconds"), seconds, 1e-9 * seconds) << n;
      EXPECT_NEAR(raw_number(t, i, "measured_slowest_compute_seconds"), compute, 1e-9 * seconds);
      EXPECT_NEAR(raw_number(t, i, "measured_outside_compute_seconds"), seconds - compute,
                  1e-9 * seconds);
      EXPECT_NEAR(raw_number(t, i, "compute_difference"),
                  (0.75 * twin_seconds - compute) / compute, 1e-9);
      EXPECT_NEAR(raw_number(t, i, "outside_compute_difference"),
                  (0.25 * twin_seconds - (seconds - compute)) / (seconds - compute), 1e-9);
    }
  }
  // The twin (overhead 25 p) is below the measured E_s (20 p) by 1/6 at N = 10 on 2 nodes:
  // T +20%, its compute 1.2 / 1.005 and the time beyond it 0.3 / 0.24625 of the measured.
  // The measured mean carries its t interval: the two repetitions take the same wall time
  // (the noise of synthetic_study.cpp is in the ranks' compute only), so the interval has
  // no width.
  const ReportTable& misses = twin_table(section, "mm-small-twin-misses");
  ASSERT_FALSE(misses.cells.empty());
  EXPECT_EQ(misses.cells[0],
            (std::vector<std::string>{"0", "10", "2", "0.2 [0.2, 0.2]", "0.1667", "-16.7%", "no",
                                      "+20%", "+19.4%", "+21.8%", "beyond compute"}));

  // (c) psi: 0 -> 1 in both (20 p and 25 p nodes' worth of N: 0.25 each), the twin's
  // further pairs without a measured psi.
  const ReportTable& psi = twin_table(section, "mm-small-twin-psi");
  ASSERT_EQ(psi.cells.size(), 3u);
  EXPECT_NEAR(raw_number(psi, 0, "measured_psi"), 0.25, 0.03);
  EXPECT_NEAR(raw_number(psi, 0, "twin_psi"), 0.25, 0.03);
  for (std::size_t i : {1u, 2u}) {
    EXPECT_TRUE(std::isnan(raw_number(psi, i, "measured_psi")));
    EXPECT_FALSE(std::isnan(raw_number(psi, i, "twin_psi")));
  }

  // (d) the twin's sets beyond the machine, in Capacity planning: set 2 (8 nodes) against
  // the forecast's doubling of 8 nodes (N = 160), set 3 (16 nodes) without a forecast.
  const report::ReportSection capacity = report::capacity_section(data);
  const ReportTable& beyond = twin_table(capacity, "mm-small-twin-capacity");
  ASSERT_EQ(beyond.cells.size(), 2u);
  const pg::Result stored = conn.exec(
      "SELECT parameter_value, work FROM hetscale.set_required_work "
      "WHERE experiment = 'mm-small-twin' AND set_index = 2");
  const double twin_parameter = stored.number(0, 0);
  const double twin_work = stored.number(0, 1);
  EXPECT_NEAR(twin_parameter, 25.0 * 8, 20);
  EXPECT_EQ(raw_number(beyond, 0, "node_count"), 8);
  EXPECT_EQ(raw_number(beyond, 0, "twin_set_index"), 2);
  EXPECT_DOUBLE_EQ(raw_number(beyond, 0, "twin_parameter_value"), twin_parameter);
  EXPECT_EQ(beyond.cells[0][2], "doubling: set 2");
  EXPECT_EQ(raw_number(beyond, 0, "predicted_parameter"), 160);
  EXPECT_NEAR(raw_number(beyond, 0, "parameter_error"), (160 - twin_parameter) / twin_parameter,
              1e-12);
  const double predicted_work = raw_number(beyond, 0, "predicted_work");
  EXPECT_NEAR(raw_number(beyond, 0, "work_error"), (predicted_work - twin_work) / twin_work, 1e-12);
  EXPECT_FALSE(std::isnan(raw_number(beyond, 0, "twin_psi")));
  EXPECT_EQ(raw_number(beyond, 1, "node_count"), 16);
  EXPECT_EQ(beyond.cells[1][2], "no forecast");
  EXPECT_TRUE(std::isnan(raw_number(beyond, 1, "parameter_error")));
}

TEST_F(Report, PairsTheTwinOfANamedExperimentAndShowsATwinNamedAloneAsItself) {
  load_study_and_twin();
  ASSERT_EQ(report({"--experiment", "mm-small"}), 0) << err_;
  std::string html = read_file(page());
  EXPECT_NE(html.find("<section id=\"twin\">"), std::string::npos);
  ASSERT_EQ(report({"--experiment", "mm-small-twin"}), 0) << err_;
  html = read_file(page());
  EXPECT_EQ(html.find("<section id=\"twin\">"), std::string::npos);
  EXPECT_NE(html.find("Speed-efficiency E_s, mm-small-twin"), std::string::npos);
}

// The twin's figures come from one run per configuration: analyze stores no interval, and
// the long notes it writes for them (e.g. "too few runs: 1 run at 20 and 1 run at 40, the
// sizes that bracket ...") go under their tables as footnotes, while the cells show the
// short reason: at 1280 px no table of E_s, required work or psi scrolls sideways.
TEST_F(Report, AFigureWithoutAnIntervalKeepsItsTableNarrowAndFootnotesWhy) {
  load_study_and_twin();
  ASSERT_EQ(report({"--experiment", "mm-small-twin"}), 0) << err_;
  const std::string html = read_file(page());
  EXPECT_NE(html.find("</span> <span>(too few runs)</span><sup><a href=\"#required-work-mm-small-twin-note-1\">"),
            std::string::npos);
  EXPECT_NE(html.find("<li id=\"required-work-mm-small-twin-note-1\">too few runs: 1 run at "),
            std::string::npos);
  EXPECT_NE(html.find("</span> <span>(1 run)</span></td>"), std::string::npos);
  const PageGeometry g = measure_page(page(), scratch_ / "geometry", 1280);
  EXPECT_EQ(page_failures(g, {"mm-small-twin"}, kMaxFixtureHeight), std::vector<std::string>{});
  for (const std::string& table : g.scrolling)
    for (const char* id : {"efficiency-", "required-work-", "psi:"})
      EXPECT_NE(table.rfind(id, 0), 0u) << "scrolls sideways: " << table;
}

TEST_F(Report, PairsExplicitlyWithTwinAndRefusesAPairWhoseTwinHasRealRuns) {
  load_study_and_twin();
  ASSERT_EQ(report({"--experiment", "mm-small", "--twin", "mm-steep=mm-small-twin"}), 0) << err_;
  const std::string html = read_file(page());
  EXPECT_NE(html.find("experiments: mm-small, mm-steep (twin mm-small-twin);"), std::string::npos);
  EXPECT_NE(html.find("Measured and twin E_s, mm-steep, set 0"), std::string::npos);
  EXPECT_EQ(html.find("Measured and twin E_s, mm-small,"), std::string::npos);
  EXPECT_EQ(report({"--twin", "mm-small=mm-steep"}), 1);
  EXPECT_EQ(err_,
            "hetscale report: --twin mm-small=mm-steep: not every run of 'mm-steep' is a twin run "
            "(engine 'simgrid', stored from migration 8 on)\n");
  EXPECT_EQ(report({"--twin", "mm-small=nope"}), 1);
  EXPECT_NE(err_.find("no experiment 'nope'"), std::string::npos) << err_;
  EXPECT_EQ(report({"--twin", "mm-small"}), 2);
  EXPECT_EQ(err_, "hetscale report: --twin mm-small: expected EXPERIMENT=TWIN (see --help)\n");
}

TEST_F(Report, AnExperimentNamedTwinWithARealRunIsNoTwin) {
  load_study_and_twin();
  db_.connect().exec(
      "UPDATE hetscale.runs SET engine = 'slurm' WHERE run_id = (SELECT min(run_id) FROM "
      "hetscale.runs JOIN hetscale.experiments USING (experiment_id) "
      "WHERE name = 'mm-small-twin')");
  ASSERT_EQ(report(), 0) << err_;
  const std::string html = read_file(page());
  EXPECT_EQ(html.find("<section id=\"twin\">"), std::string::npos);
  EXPECT_NE(html.find("Speed-efficiency E_s, mm-small-twin"), std::string::npos);
}

TEST_F(Report, NamedExperimentsOnlyAndAnUnknownOneIsAClearError) {
  load_study();
  ASSERT_EQ(report({"--experiment", "mm-steep", "--title", "steep only"}), 0) << err_;
  const std::string html = read_file(page());
  EXPECT_NE(html.find("<h1>steep only</h1>"), std::string::npos);
  EXPECT_NE(html.find("Speed-efficiency E_s, mm-steep"), std::string::npos);
  EXPECT_EQ(html.find("Speed-efficiency E_s, mm-small"), std::string::npos);
  EXPECT_EQ(report({"--experiment", "nope"}), 1);
  EXPECT_EQ(err_,
            "hetscale report: no experiment 'nope' in the views of the database (experiments "
            "with data: mm-small, mm-steep)\n");
}

TEST_F(Report, AnEmptyDatabaseSaysWhichCommandFillsEachSection) {
  db_.migrate();
  ASSERT_EQ(report(), 0) << err_;
  const std::string html = read_file(page());
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  for (const char* hint :
       {"no runs stored: run hetscale collect --db URI", "no psi stored: run hetscale analyze",
        "no nodes stored: load a plan file", "no partitions stored: run hetscale equalize --db",
        "no forecasts stored: run hetscale predict --db"})
    EXPECT_NE(html.find(hint), std::string::npos) << hint;
}

TEST_F(Report, RefusesADatabaseWithoutTheViews) {
  std::string out;
  std::string err;
  ASSERT_EQ(hetscale_cli({"db", "migrate", "--db", db_.uri(), "--to", "3"}, out, err), 0) << err;
  EXPECT_EQ(report(), 1);
  EXPECT_EQ(err_,
            "hetscale report: the database is at schema version 3; the report reads the views "
            "of version 9 (run 'hetscale db migrate --db URI' first)\n");
}

TEST(ReportCli, HasItsOwnHelpAndRequiresAnOutputDirectory) {
  std::string out;
  std::string err;
  ASSERT_EQ(hetscale_cli({"report", "--help"}, out, err), 0);
  EXPECT_NE(out.find("Usage: hetscale report [OPTIONS]"), std::string::npos) << out;
  EXPECT_NE(out.find("--experiment"), std::string::npos);
  EXPECT_EQ(hetscale_cli({"report", "--db", "postgresql://x@127.0.0.1:1/x"}, out, err), 2);
  EXPECT_EQ(err, "hetscale report: --output is required (see --help)\n");
}

// The checks above must be able to fail: a page with a script and a remote image.
TEST(Chromium, NoticesConsoleMessagesAndNetworkRequests) {
  const fs::path dir =
      fs::temp_directory_path() / ("hetscale-chromium-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bad.html")
      << "<!DOCTYPE html><html><body><img src=\"http://127.0.0.1:9/x.png\">"
         "<script>console.error('boom')</script><svg><circle/></svg></body></html>";
  const PageLoad load = load_page(dir / "bad.html", dir / "chromium");
  fs::remove_all(dir);
  ASSERT_EQ(load.console.size(), 1u);
  EXPECT_NE(load.console[0].find("\"boom\""), std::string::npos);
  EXPECT_EQ(load.network_urls, (std::vector<std::string>{"http://127.0.0.1:9/x.png"}));
  EXPECT_EQ(svg_elements(load.dom).size(), 1u);
}

}  // namespace
}  // namespace hetscale::test
