// hetscale equalize --db: per-node speed and spread read from a set's rank timings, the
// same partitions as from an input file with those figures, stored in hetscale.partitions.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "hetscale/collector/stored_set_equalization.hpp"
#include "hetscale/site/partition_file.hpp"
#include "test_database.hpp"
#include "test_runs.hpp"

namespace hetscale::test {
namespace {

using cli::testing::run_cli;

// Seconds per unit of work of each host in each repetition: n1 fast and steady, n2 slower
// and noisy, n3 slowest, a little noisy.
const std::map<std::string, std::vector<double>> kSecondsPerOp = {
    {"n1", {1.00e-9, 1.01e-9, 0.99e-9, 1.00e-9}},
    {"n2", {1.40e-9, 1.90e-9, 1.10e-9, 1.60e-9}},
    {"n3", {2.00e-9, 2.10e-9, 2.05e-9, 1.95e-9}}};
const std::map<std::string, double> kWeight = {{"n1", 0.5}, {"n2", 0.3}, {"n3", 0.2}};
constexpr double kN = 1000;  // the most repeated configuration
constexpr double kWork = 2 * kN * kN * kN;

std::vector<nlohmann::json> set_records(const std::string& experiment, int& serial) {
  std::vector<nlohmann::json> records;
  for (int rep = 0; rep < 4; ++rep) {
    std::vector<RankSpec> ranks;
    for (const auto& [host, per_op] : kSecondsPerOp)
      ranks.push_back({host, kWeight.at(host), per_op[rep] * kWeight.at(host) * kWork, 0.01});
    records.push_back(run_record(experiment, kN, 0, rep, 300, ranks, serial++));
  }
  // A less repeated configuration, which must not be the one picked by default.
  for (int rep = 0; rep < 2; ++rep) {
    std::vector<RankSpec> ranks;
    for (const auto& [host, per_op] : kSecondsPerOp)
      ranks.push_back({host, kWeight.at(host), 3 * per_op[rep] * kWeight.at(host) * 8 * kWork,
                       0.01});
    records.push_back(run_record(experiment, 2 * kN, 0, rep, 300, ranks, serial++));
  }
  return records;
}

// The input-file form of the same nodes, computed here from the definitions: speed
// 1/mean, variation sd * sqrt(X / mean) with X the node's work per run.
std::string input_csv() {
  std::string csv = "node,speed,variation\n";
  for (const auto& [host, per_op] : kSecondsPerOp) {
    double mean = 0;
    for (double v : per_op) mean += v / 4;
    double squares = 0;
    for (double v : per_op) squares += (v - mean) * (v - mean);
    const double sd = std::sqrt(squares / 3);
    csv += fmt::format("{},{},{}\n", host, 1 / mean, sd * std::sqrt(kWeight.at(host) * kWork / mean));
  }
  return csv;
}

// CSV output of `hetscale equalize`: column -> value per node (numeric columns; `case` is text).
std::map<std::string, std::map<std::string, double>> parse_table(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> columns;
  std::stringstream header(line);
  for (std::string c; std::getline(header, c, ',');) columns.push_back(c);
  std::map<std::string, std::map<std::string, double>> out;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string node;
    std::getline(row, node, ',');
    std::string cell;
    for (std::size_t c = 1; std::getline(row, cell, ','); ++c)
      if (columns[c] != "case") out[columns[c]][node] = std::stod(cell);
  }
  return out;
}

class EqualizeDb : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.migrate();
    int serial = 0;
    auto r = collect(db_.uri(), dir_.path() / "runs.jsonl", set_records("eq", serial));
    ASSERT_EQ(r.code, 0) << r.err;
  }
  TestDatabase db_;
  TempDir dir_{"equalize-db"};
};

TEST_F(EqualizeDb, StoresTheSamePartitionsAsTheFileInput) {
  std::ofstream(dir_.path() / "nodes.csv") << input_csv();
  const auto file =
      run_cli({"equalize", "--input", (dir_.path() / "nodes.csv").string(), "--seconds", "30",
               "--format", "csv"});
  ASSERT_EQ(file.code, 0) << file.err;
  const auto expected = parse_table(file.out);

  const auto human = run_cli({"equalize", "--db", db_.uri(), "--experiment", "eq", "--set", "0",
                              "--seconds", "30", "--partitions", (dir_.path() / "parts").string()});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find("experiment eq set 0 at N = 1000: the most repeated configuration (4 runs)"),
            std::string::npos)
      << human.out;
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "parts" / "n[1-3].toml"));

  auto conn = db_.connect();
  const pg::Result rows = conn.exec(R"sql(
    SELECT l.method, l.host, l.share, l.mean_seconds_per_op, l.sd_seconds_per_op,
           l.simulated_tau, l.simulated_risk, l.node_list, p.file_name IS NOT NULL
    FROM hetscale.latest_partitions l JOIN hetscale.partitions p USING (partition_id)
    WHERE l.experiment = 'eq' AND l.set_index = 0
    ORDER BY l.method, l.host)sql",
                                    {});
  ASSERT_EQ(rows.rows(), 6);  // proportional and equalized, three nodes each
  std::map<std::string, double> tau;
  for (int i = 0; i < rows.rows(); ++i) {
    const std::string method(rows.text(i, 0));
    const std::string host(rows.text(i, 1));
    const std::string column = method == "proportional" ? "proportional_weight" : "step2_weight";
    // Step 2's size comes from a golden-section search that stops at 1e-10 of the move, so
    // inputs that differ in the last bits (read from the runs or from the CSV) agree to ~1e-9.
    EXPECT_NEAR(rows.number(i, 2), expected.at(column).at(host),
                method == "proportional" ? 1e-12 : 1e-8)
        << method << " " << host;
    EXPECT_NEAR(rows.number(i, 3) * expected.at("speed").at(host), 1, 1e-12) << host;
    EXPECT_EQ(rows.text(i, 7), "n[1-3]");
    EXPECT_EQ(rows.text(i, 8), method == "equalized" ? "t" : "f");  // the file is step 2's
    tau[method] = rows.number(i, 5);
    EXPECT_GE(rows.number(i, 6), 0);
    EXPECT_LE(rows.number(i, 6), 1);
  }
  EXPECT_GT(tau["proportional"], 0);
  // The steady node takes more work, which must shorten the simulated run.
  EXPECT_LT(tau["equalized"], tau["proportional"]);
  EXPECT_GT(expected.at("equalized_weight").at("n1"), expected.at("proportional_weight").at("n1"));
}

// The library call the study makes: what it returns is what it stored and wrote.
TEST_F(EqualizeDb, StoredSetEqualizationStoresAndWritesWhatItReturns) {
  collector::EqualizeSetOptions options;
  options.experiment = "eq";
  options.set_index = 0;
  options.seconds = 30;
  options.site = "lab";
  options.partitions = (dir_.path() / "parts").string();
  options.repetitions = 200;
  auto conn = db_.connect();
  const auto set = collector::equalize_stored_set(conn, options);
  EXPECT_EQ(set.timings.parameter, kN);  // the most repeated configuration
  EXPECT_EQ(set.timings.runs, 4u);
  ASSERT_EQ(set.nodes.names, (std::vector<std::string>{"n1", "n2", "n3"}));
  ASSERT_EQ(set.plan.methods.size(), 2u);
  ASSERT_EQ(set.partition_ids.size(), 2u);
  EXPECT_EQ(set.file, (dir_.path() / "parts" / "n[1-3].toml").string());

  // The file holds the written method's shares, as stored with its file name.
  std::ifstream in(set.file);
  std::stringstream file_text;
  file_text << in.rdbuf();
  const auto partition = parse_partition(file_text.str(), set.file);
  EXPECT_EQ(partition.site, "lab");
  ASSERT_EQ(partition.nodes.size(), 3u);
  for (std::size_t m = 0; m < set.plan.methods.size(); ++m) {
    const auto& method = set.plan.methods[m];
    const std::string id = std::to_string(set.partition_ids[m]);
    EXPECT_EQ(db_.scalar("SELECT method FROM hetscale.partitions WHERE partition_id = " + id),
              method.name);
    EXPECT_EQ(std::stod(db_.scalar("SELECT simulated_tau FROM hetscale.partitions WHERE "
                                   "partition_id = " + id)),
              method.simulated.tau);
    EXPECT_GT(method.simulated.tau, 0);
    EXPECT_EQ(db_.scalar("SELECT coalesce(file_name, '') FROM hetscale.partitions WHERE "
                         "partition_id = " + id),
              &method == &written_method(set.plan) ? set.file : "");
    double shares = 0;
    for (std::size_t i = 0; i < set.nodes.names.size(); ++i) {
      const std::string& host = set.nodes.names[i];
      const double share = std::stod(db_.scalar(
          "SELECT share FROM hetscale.partition_shares WHERE partition_id = " + id +
          " AND host = '" + host + "'"));
      EXPECT_DOUBLE_EQ(share, method.partition.work[i] / set.plan.total_work) << host;
      if (&method == &written_method(set.plan)) {
        EXPECT_EQ(partition.nodes[i].host, host);
        EXPECT_NEAR(partition.nodes[i].weight, share, 1e-15) << host;
      }
      shares += share;
    }
    EXPECT_NEAR(shares, 1, 1e-12);
  }
  EXPECT_EQ(set.plan.methods[1].name, "equalized");
  // n1 is the steady node: step 2 gives it more than its speed's share.
  EXPECT_GT(set.plan.methods[1].partition.work[0], set.plan.methods[0].partition.work[0]);

  const std::string text = collector::equalized_set_text(set);
  EXPECT_EQ(text.rfind("experiment eq set 0 at N = 1000: the most repeated configuration (4 runs)\n", 0),
            0u)
      << text;
  EXPECT_TRUE(text.ends_with(fmt::format("stored partitions {}, {}\n", set.partition_ids[0],
                                         set.partition_ids[1])))
      << text;
  const auto j = collector::equalized_set_json(set);
  EXPECT_EQ(j["methods"][1]["partition_id"], set.partition_ids[1]);
  EXPECT_EQ(j["nodes"].size(), 3u);
}

// With every node's availability measured (classify --availability, stored as groups --db
// does), the variation is TH sqrt(2 x correlation seconds): the same partition as the file
// input with a `th` column and --correlation-time 2c. Without n3's, the run times again.
TEST_F(EqualizeDb, AvailabilityThOfEveryNodeIsTheVariationAndTheOutputSaysSo) {
  auto conn = db_.connect();
  conn.exec(R"sql(
    WITH s AS (INSERT INTO hetscale.sites (name, speed_unit, benchmark)
               VALUES ('lab', 'Mflops', 'dgemm') RETURNING site_id),
         g AS (INSERT INTO hetscale.groups (site_id, name, marked_speed)
               SELECT site_id, 'g', 1000 FROM s RETURNING group_id, site_id)
    INSERT INTO hetscale.nodes (site_id, name, group_id, processors, marked_speed, state)
    SELECT site_id, v.name, group_id, 1, 1000, 'ok' FROM g, (VALUES ('n1'), ('n2'), ('n3')) v(name))sql",
            {});
  const std::map<std::string, double> th = {{"n1", 0.3}, {"n2", 0.05}, {"n3", 0.1}};
  constexpr double kCorrelation = 0.75;
  const auto measure = [&](const std::string& host) {
    conn.exec(R"sql(
      INSERT INTO hetscale.availability_history (node_id, benchmark, observed_at, period_seconds,
        window_seconds, reference_speed, reference, mean_availability, sd_availability, th,
        correlation_seconds, series)
      SELECT node_id, 'dgemm', now(), 10, 0.1, 1000, 'given', 0.8, 0.8 * $2::double precision,
             $2::double precision, $3::double precision, '{0.8}'
      FROM hetscale.nodes WHERE name = $1)sql",
              {host, std::to_string(th.at(host)), std::to_string(kCorrelation)});
  };
  measure("n1");
  measure("n2");
  auto r = run_cli({"equalize", "--db", db_.uri(), "--experiment", "eq", "--set", "0",
                    "--seconds", "30"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("variation from run times (time variability per sqrt(s)): no availability "
                       "with a correlation time for n3"),
            std::string::npos)
      << r.out;
  measure("n3");
  r = run_cli({"equalize", "--db", db_.uri(), "--experiment", "eq", "--set", "0", "--seconds",
               "30", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["variation"], "availability");

  // The file input with the same speeds (the runs') and TH.
  std::string csv = "node,speed,th\n";
  for (const auto& [host, per_op] : kSecondsPerOp) {
    double mean = 0;
    for (double v : per_op) mean += v / 4;
    csv += fmt::format("{},{},{}\n", host, 1 / mean, th.at(host));
  }
  std::ofstream(dir_.path() / "th.csv") << csv;
  const auto file = run_cli({"equalize", "--input", (dir_.path() / "th.csv").string(),
                             "--correlation-time", std::to_string(2 * kCorrelation), "--seconds",
                             "30", "--format", "csv"});
  ASSERT_EQ(file.code, 0) << file.err;
  const auto expected = parse_table(file.out);
  for (const auto& node : j["nodes"]) {
    const std::string host = node["node"];
    EXPECT_NEAR(node["equalized_weight"].get<double>(), expected.at("equalized_weight").at(host),
                1e-9)
        << host;
  }
  // n1 is the least steady here: it gives work away, unlike with its steady run times.
  EXPECT_LT(expected.at("equalized_weight").at("n1"), expected.at("proportional_weight").at("n1"));
}

TEST_F(EqualizeDb, ParameterChoosesTheConfiguration) {
  auto r = run_cli({"equalize", "--db", db_.uri(), "--experiment", "eq", "--set", "0",
                    "--parameter", "2000", "--seconds", "30", "--method", "linearised"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("at N = 2000: given by --parameter (2 runs)"), std::string::npos) << r.out;
  EXPECT_EQ(db_.scalar("SELECT string_agg(method, ',' ORDER BY method) FROM hetscale.partitions"),
            "equalized,equalized_linear,proportional");
  r = run_cli({"equalize", "--db", db_.uri(), "--experiment", "eq", "--set", "0", "--seconds",
               "30", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["parameter"], 1000);
  EXPECT_EQ(j["runs"], 4);
  ASSERT_EQ(j["methods"].size(), 2u);
  EXPECT_EQ(j["nodes"].size(), 3u);
  for (const auto& m : j["methods"]) {
    const std::string id = std::to_string(m["partition_id"].get<long long>());
    EXPECT_EQ(db_.scalar("SELECT method FROM hetscale.partitions WHERE partition_id = " + id),
              m["method"].get<std::string>());
    EXPECT_EQ(std::stod(db_.scalar("SELECT simulated_tau FROM hetscale.partitions WHERE "
                                   "partition_id = " + id)),
              m["simulated_tau"].get<double>());
  }
  r = run_cli({"equalize", "--db", db_.uri(), "--experiment", "eq", "--set", "0", "--parameter",
               "1500", "--seconds", "30"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale equalize: experiment 'eq' set 0 has no run at --parameter 1500; measured: "
            "1000 (4 runs), 2000 (2 runs)\n");
}

TEST_F(EqualizeDb, DegenerateInputsAreExplained) {
  int serial = 100;
  std::vector<nlohmann::json> records;
  // Set 1: n4 took part in one run only.
  for (int rep = 0; rep < 2; ++rep) {
    std::vector<RankSpec> ranks{{"n1", 0.45, 1.0, 0}, {"n2", 0.45, 1.2 + 0.1 * rep, 0}};
    if (rep == 0) ranks.push_back({"n4", 0.1, 1.0, 0});
    if (rep == 1) ranks[0].weight = ranks[1].weight = 0.5;
    records.push_back(run_record("eq", kN, 1, rep, 300, ranks, serial++));
  }
  // Set 2: a single node. Set 3: two nodes that never vary.
  for (int rep = 0; rep < 2; ++rep) {
    records.push_back(run_record("eq", kN, 2, rep, 100, {{"n1", 1, 2.0, 0}}, serial++));
    records.push_back(
        run_record("eq", kN, 3, rep, 300, {{"n1", 0.6, 1.5, 0}, {"n2", 0.4, 2.0, 0}}, serial++));
  }
  auto r = collect(db_.uri(), dir_.path() / "more.jsonl", records);
  ASSERT_EQ(r.code, 0) << r.err;
  auto equalize = [&](const std::string& set) {
    return run_cli({"equalize", "--db", db_.uri(), "--experiment", "eq", "--set", set,
                    "--seconds", "10"});
  };
  r = equalize("1");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale equalize: the spread of a node's time needs at least 2 repetitions of the "
            "configuration; too few for n4 (1 run): run it again (hetscale jobgen --repetitions)\n");
  r = equalize("2");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale equalize: 1 node(s) in the runs: a partition needs at least two nodes\n");
  r = equalize("3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("note: no node's time varies between repetitions: step 2 equals step 1"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(db_.scalar("SELECT max(share) - min(share) < 1e-12 FROM hetscale.latest_partitions "
                       "WHERE set_index = 3 AND host = 'n1'"),
            "t");
  r = equalize("7");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale equalize: experiment 'eq' set 7 has no runs with a parameter value\n");
  r = run_cli({"equalize", "--db", db_.uri(), "--experiment", "eq", "--seconds", "10"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale equalize: --db needs --experiment NAME and --set K (see --help)\n");
}

}  // namespace
}  // namespace hetscale::test
