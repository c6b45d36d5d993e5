// The interface for centre dashboards (docs/dashboards.md): every SQL query of the shipped
// dashboards runs as the read-only role hetscale_reader against a migrated, loaded
// database and returns rows; they and the report read only the documented views, and the
// documentation lists exactly the columns each view has.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "synthetic_study.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = HETSCALE_SOURCE_DIR;

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Query {
  std::string where;  // dashboard file and panel
  std::string sql;
};

/// The rawSql of every panel target and the SQL of every query variable.
std::vector<Query> dashboard_queries() {
  std::vector<Query> out;
  for (const auto& entry : fs::directory_iterator(source_dir / "dashboards")) {
    if (entry.path().extension() != ".json") continue;
    const auto dashboard = nlohmann::json::parse(read_file(entry.path()));
    const std::string file = entry.path().filename().string();
    for (const auto& panel : dashboard.at("panels"))
      for (const auto& target : panel.value("targets", nlohmann::json::array()))
        out.push_back({file + ": panel '" + panel.value("title", "") + "'",
                       target.at("rawSql").get<std::string>()});
    for (const auto& variable : dashboard.at("templating").at("list"))
      if (variable.value("type", "") == "query")
        out.push_back({file + ": variable $" + variable.value("name", ""),
                       variable.at("query").get<std::string>()});
  }
  return out;
}

/// Grafana's expansion of the dashboards' variable and macro, for the chosen values of
/// $experiment (OWNER/NAME).
std::string expand(std::string sql, const std::vector<std::string>& experiments) {
  sql = std::regex_replace(sql, std::regex(R"(\$__timeFilter\(([a-z_]+)\))"),
                           "$1 BETWEEN '-infinity'::timestamptz AND 'infinity'::timestamptz");
  std::string values;
  for (const auto& e : experiments) values += (values.empty() ? "'" : ",'") + e + "'";
  return std::regex_replace(sql, std::regex(R"(\$experiment\b)"), values);
}

/// The first dashboard query whose place (Query::where) starts with `where`.
std::string dashboard_query(const std::string& where) {
  for (const auto& q : dashboard_queries())
    if (q.where.rfind(where, 0) == 0) return q.sql;
  throw std::runtime_error("no dashboard query at " + where);
}

/// Objects of schema hetscale that a text names ("hetscale.set_psi" -> "set_psi").
std::set<std::string> hetscale_objects(const std::string& text) {
  std::set<std::string> out;
  const std::regex name(R"(hetscale\.([a-z_]+))");
  for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it)
    out.insert((*it)[1]);
  return out;
}

/// docs/dashboards.md: "### `hetscale.VIEW`" followed by a table of "| `column` | ...".
std::map<std::string, std::set<std::string>> documented_views() {
  std::map<std::string, std::set<std::string>> views;
  std::string current;
  const std::regex heading(R"(^### `hetscale\.([a-z_]+)`)");
  const std::regex column(R"(^\| `([a-z_]+)` \|)");
  std::istringstream doc(read_file(source_dir / "docs" / "dashboards.md"));
  for (std::string line; std::getline(doc, line);) {
    std::smatch m;
    if (std::regex_search(line, m, heading)) {
      current = m[1];
      views[current];
    } else if (line.rfind("#", 0) == 0) {
      current.clear();
    } else if (!current.empty() && std::regex_search(line, m, column)) {
      views[current].insert(m[1]);
    }
  }
  return views;
}

TEST(Dashboards, EveryQueryRunsAsTheReaderAndReturnsRows) {
  TestDatabase db;
  const fs::path scratch =
      fs::temp_directory_path() / ("hetscale-dashboards-" + std::to_string(::getpid()));
  load_synthetic_study(db.uri(), scratch);
  insert_partitions_and_predictions(db.uri());
  fs::remove_all(scratch);

  const auto queries = dashboard_queries();
  ASSERT_GE(queries.size(), 12u);
  const std::string owner = db.scalar("SELECT current_user");
  pg::Connection conn = db.connect();
  conn.exec("SET ROLE hetscale_reader");
  for (const auto& q : queries) {
    const std::string sql = expand(q.sql, {owner + "/mm-small", owner + "/mm-steep"});
    ASSERT_EQ(sql.find('$'), std::string::npos) << q.where << ": unexpanded variable";
    try {
      EXPECT_GT(conn.exec(sql).rows(), 0) << q.where;
    } catch (const std::exception& e) {
      ADD_FAILURE() << q.where << ": " << e.what();
    }
  }
  // The reader really is read-only.
  EXPECT_THROW(conn.exec("DELETE FROM hetscale.predictions"), pg::DbError);
}

// Two users' experiments of one name (migration 11) are two values of $experiment, and
// a panel filtered to one of them shows that user's runs only.
TEST(Dashboards, TheExperimentVariableTellsUsersApart) {
  TestDatabase db;
  db.migrate();
  const TestLogin alice(db, "dashboards_alice", "hetscale_writer");
  const TestLogin bob(db, "dashboards_bob", "hetscale_writer");
  const TestLogin reader(db, "dashboards_reader", "hetscale_reader");
  store_mm_site(db.uri());
  const fs::path scratch =
      fs::temp_directory_path() / ("hetscale-dashboards-owners-" + std::to_string(::getpid()));
  int serial = 0;
  const EfficiencyCurve alice_curve = {{10, 0.2}, {20, 0.3}, {40, 0.4}};
  collect_mm_scaling(alice.uri(), alice_curve, serial, scratch);
  collect_mm_scaling(bob.uri(), {{100, 0.5}, {200, 0.6}}, serial, scratch);
  fs::remove_all(scratch);

  pg::Connection conn = reader.connect();
  const pg::Result values = conn.exec(dashboard_query("grafana-hetscale.json: variable $experiment"));
  ASSERT_EQ(values.rows(), 2);
  const std::string alice_value = alice.name() + "/mm-scaling";
  EXPECT_EQ(values.text(0, 0), alice_value);
  EXPECT_EQ(values.text(1, 0), bob.name() + "/mm-scaling");

  const pg::Result curve = conn.exec(
      expand(dashboard_query("grafana-hetscale.json: panel 'E_s curves"), {alice_value}));
  ASSERT_EQ(curve.rows(), static_cast<int>(alice_curve.size()));
  for (int i = 0; i < curve.rows(); ++i) {
    EXPECT_EQ(curve.text(i, 0), alice_value + " set 0");
    EXPECT_NEAR(curve.number(i, 2), alice_curve.at(curve.number(i, 1)), 1e-9);
  }
}

TEST(Dashboards, DashboardsAndTheReportReadOnlyTheDocumentedViews) {
  const auto views = documented_views();
  ASSERT_EQ(views.size(), 13u);
  std::set<std::string> used;
  for (const auto& q : dashboard_queries())
    for (const auto& object : hetscale_objects(q.sql)) {
      EXPECT_TRUE(views.count(object)) << q.where << " reads hetscale." << object;
      used.insert(object);
    }
  const fs::path reader = source_dir / "collector" / "src" / "report_views.cpp";
  for (const auto& object : hetscale_objects(read_file(reader))) {
    EXPECT_TRUE(views.count(object)) << "the report reads hetscale." << object;
    used.insert(object);
  }
  for (const auto& [view, columns] : views) EXPECT_TRUE(used.count(view)) << view << " unused";
}

TEST(Dashboards, TheDocumentationListsEveryColumnOfEveryView) {
  TestDatabase db;
  db.migrate();
  pg::Connection conn = db.connect();
  for (const auto& [view, documented] : documented_views()) {
    const pg::Result r = conn.exec(
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = 'hetscale' AND table_name = $1 ORDER BY ordinal_position",
        {view});
    std::set<std::string> actual;
    for (int i = 0; i < r.rows(); ++i) actual.insert(std::string(r.text(i, 0)));
    EXPECT_EQ(documented, actual) << "docs/dashboards.md, view " << view;
  }
}

/// `key: value` lines of a small YAML file (the provisioning files: one item each).
std::map<std::string, std::string> yaml_values(const fs::path& file) {
  std::map<std::string, std::string> out;
  std::istringstream text(read_file(file));
  const std::regex entry(R"(^\s*(?:- )?([A-Za-z]+):\s*(\S.*?)\s*$)");
  for (std::string line; std::getline(text, line);) {
    std::smatch m;
    if (line.rfind("#", 0) != 0 && std::regex_match(line, m, entry)) out[m[1]] = m[2];
  }
  return out;
}

// Grafana is not installable here (no Debian package), so the provisioning files are
// checked against what Grafana reads from them (docs/dashboards.md), not loaded by it.
TEST(Dashboards, ProvisioningFilesMatchTheDashboardsAndHoldNoSecret) {
  const fs::path provisioning = source_dir / "dashboards" / "provisioning";
  const auto source = yaml_values(provisioning / "datasources" / "hetscale.yaml");
  const auto dashboard = nlohmann::json::parse(read_file(source_dir / "dashboards" / "grafana-hetscale.json"));
  std::string queried_type;
  for (const auto& variable : dashboard.at("templating").at("list"))
    if (variable.value("type", "") == "datasource") queried_type = variable.at("query").get<std::string>();
  EXPECT_EQ(source.at("type"), queried_type);
  EXPECT_EQ(source.at("uid"), "hetscale");
  EXPECT_EQ(source.at("database"), "hetscale");
  EXPECT_EQ(source.at("user"), "grafana");  // the documented login role IN ROLE hetscale_reader
  // Secrets only by Grafana's environment expansion.
  EXPECT_TRUE(std::regex_match(source.at("password"), std::regex(R"(\$\{[A-Z_]+\})")))
      << source.at("password");
  EXPECT_TRUE(std::regex_match(source.at("url"), std::regex(R"(\$\{[A-Z_]+\})"))) << source.at("url");

  const auto provider = yaml_values(provisioning / "dashboards" / "hetscale.yaml");
  EXPECT_EQ(provider.at("type"), "file");
  // The provider's path is where the package installs the dashboard JSON.
  const std::string installed = read_file(source_dir / "tests" / "fixtures" / "packaging" /
                                          "hetscale-dashboards.deb.txt");
  for (const auto& entry : fs::directory_iterator(source_dir / "dashboards")) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_NE(installed.find(" " + provider.at("path") + "/" + entry.path().filename().string() + "\n"),
              std::string::npos)
        << entry.path().filename() << " is not installed in " << provider.at("path");
  }
}

// docs/dashboards.md derives the minimum Grafana version from the schemaVersion.
TEST(Dashboards, TheDocumentationNamesTheDashboardsSchemaVersion) {
  const auto dashboard = nlohmann::json::parse(read_file(source_dir / "dashboards" / "grafana-hetscale.json"));
  const std::string doc = read_file(source_dir / "docs" / "dashboards.md");
  const std::string stated = "`schemaVersion` " + std::to_string(dashboard.at("schemaVersion").get<int>());
  EXPECT_NE(doc.find(stated), std::string::npos) << "docs/dashboards.md does not say " << stated;
}

}  // namespace
}  // namespace hetscale::test
