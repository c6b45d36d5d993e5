#include "synthetic_study.hpp"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"
#include "hetscale/collector/pg.hpp"
#include "hetscale/collector/plan_loader.hpp"
#include "hetscale/site/round_plan.hpp"
#include "hetscale/twin/site_growth.hpp"
#include "record_text.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

const fs::path plan_fixture = fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

/// The fixture's plan under another experiment name, with one more node, excluded.
void write_plan(const std::string& experiment, const fs::path& file) {
  std::ifstream in(plan_fixture);
  nlohmann::json plan = nlohmann::json::parse(in);
  plan["experiment"]["name"] = experiment;
  plan["site"]["nodes"].push_back({{"name", "b3"},
                                   {"group", "blade"},
                                   {"processors", 1},
                                   {"marked_speed", 20.0},
                                   {"state", "excluded"}});
  std::ofstream(file) << plan.dump();
}

/// Rank times vary by host and repetition (1 % x rank), so TH differs per host.
void add_rank_noise(nlohmann::json& record, int repetition) {
  int k = 0;
  for (auto& rank : record["ranks"]) {
    const double factor = 1 + 0.01 * (++k) * (repetition == 0 ? 1 : -1);
    rank["compute_seconds"] = rank["compute_seconds"].get<double>() * factor;
    rank["wall_seconds"] = rank["wall_seconds"].get<double>() * factor;
  }
}

std::vector<std::string> records(const std::string& experiment, int& serial) {
  std::vector<std::string> lines;
  for (int set = 0; set < 2; ++set) {
    const int nodes = synthetic_set_nodes(set);
    const double speed = synthetic_set_speed(set);
    for (double n : set == 0 ? std::vector<double>{10, 20, 40, 80, 160}
                             : std::vector<double>{20, 40, 80, 160, 320})
      for (int rep = 0; rep < 2; ++rep) {
        const double work = 2 * n * n * n;
        const double seconds = work / (synthetic_efficiency(experiment, n, nodes) * speed * 1e6);
        nlohmann::json r =
            record_json(experiment, n, set, rep, work, seconds, speed, nodes, serial++);
        add_rank_noise(r, rep);
        lines.push_back(r.dump());
        if (set == kEqualizedSet && n == kEqualizedParameter) {  // also with equalized weights
          nlohmann::json eq = record_json(experiment, n, set, rep, work,
                                          seconds * kEqualizedTimeFactor, speed, nodes, serial++);
          eq["weights_source"] = "equalized";
          lines.push_back(eq.dump());
        }
      }
  }
  return lines;
}

void run_or_throw(const std::vector<std::string>& args, const std::string& step) {
  std::string out;
  std::string err;
  if (hetscale_cli(args, out, err) != 0) throw std::runtime_error(step + " failed: " + err + out);
}

/// The sizes of the twin's set `set`: around N = 25 p, where its E_s reaches 0.5.
std::vector<double> twin_sizes(int set) {
  const std::vector<std::vector<double>> first = {{10, 20, 40, 80, 160},
                                                  {20, 40, 80, 160, 320, 640},
                                                  {50, 100, 200, 400, 800},
                                                  {100, 200, 400, 800, 1600}};
  if (set < 4) return first[static_cast<std::size_t>(set)];
  const double at_target = 25.0 * synthetic_set_nodes(set);
  return {at_target / 4, at_target / 2, at_target, 2 * at_target, 4 * at_target};
}

/// The twin's runs: one repetition per configuration (a simulation repeats itself).
std::vector<std::string> twin_records(int& serial, int sets) {
  std::vector<std::string> lines;
  for (int set = 0; set < sets; ++set)
    for (double n : twin_sizes(set)) {
      const int nodes = synthetic_set_nodes(set);
      const double speed = synthetic_set_speed(set);
      const double work = 2 * n * n * n;
      const double seconds = work / (synthetic_efficiency("mm-small-twin", n, nodes) * speed * 1e6);
      nlohmann::json r =
          record_json("mm-small-twin", n, set, 0, work, seconds, speed, nodes, serial++);
      r["engine"] = "simgrid";
      r["platform_hash"] = "3f9a0c";
      r["slurm"] = {{"job_id", nullptr},
                    {"array_job_id", nullptr},
                    {"array_task_id", nullptr},
                    {"step_id", nullptr},
                    {"node_list", ""}};
      lines.push_back(r.dump());
    }
  return lines;
}

}  // namespace

int synthetic_set_nodes(int set_index) {
  return 2 << set_index;
}

double synthetic_set_speed(int set_index) {
  return 100.0 * (1 << set_index);
}

/// Reaches 0.5 at N = 20 p (mm-small), N = 7 p^2 (mm-steep) and N = 25 p (mm-small-twin).
double synthetic_efficiency(const std::string& experiment, double n, int nodes) {
  const double overhead = experiment == "mm-small"        ? 20.0 * nodes
                          : experiment == "mm-small-twin" ? 25.0 * nodes
                                                          : 7.0 * nodes * nodes;
  return n / (n + overhead);
}

void load_twin_study(const std::string& db_uri, const fs::path& scratch, int sets) {
  fs::create_directories(scratch);
  int serial = 10000;
  write_lines(scratch / "twin-runs.jsonl", twin_records(serial, sets));
  run_or_throw({"collect", "--db", db_uri, (scratch / "twin-runs.jsonl").string()},
               "hetscale collect (twin)");
  run_or_throw({"analyze", "--db", db_uri, "--experiment", "mm-small-twin", "--target", "0.5"},
               "hetscale analyze mm-small-twin");
}

int hetscale_cli(std::vector<std::string> args, std::string& out, std::string& err) {
  args.insert(args.begin(), "hetscale");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream o;
  std::ostringstream e;
  const int code = cli::run(static_cast<int>(argv.size()), argv.data(), o, e);
  out = o.str();
  err = e.str();
  return code;
}

void store_mm_site(const std::string& db_uri) {
  collector::store_site(db_uri, load_round_plan(plan_fixture).site, {});
}

void collect_mm_scaling(const std::string& user_uri, const EfficiencyCurve& curve, int& serial,
                        const fs::path& scratch) {
  fs::create_directories(scratch);
  std::ifstream in(plan_fixture);
  nlohmann::json plan = nlohmann::json::parse(in);
  plan["experiment"]["name"] = "mm-scaling";
  const fs::path plan_file = scratch / "mm-scaling.json";
  std::ofstream(plan_file) << plan.dump();
  std::vector<nlohmann::json> records;
  for (const auto& [n, efficiency] : curve) {
    const double work = 2 * n * n * n;
    records.push_back(
        record_json("mm-scaling", n, 0, 0, work, work / (efficiency * 100e6), 100, 2, serial++));
  }
  const fs::path runs = scratch / ("mm-scaling-" + std::to_string(serial) + ".jsonl");
  write_lines(runs, dump_all(records));
  run_or_throw({"collect", "--db", user_uri, plan_file.string(), runs.string()},
               "hetscale collect of mm-scaling");
}

void load_synthetic_study(const std::string& db_uri, const fs::path& scratch) {
  fs::create_directories(scratch);
  run_or_throw({"db", "migrate", "--db", db_uri}, "hetscale db migrate");
  std::vector<std::string> lines;
  int serial = 0;
  std::vector<std::string> collect = {"collect", "--db", db_uri};
  for (const auto& experiment : kSyntheticExperiments) {
    const fs::path plan = scratch / (experiment + "-plan.json");
    write_plan(experiment, plan);
    collect.push_back(plan.string());
    for (auto& line : records(experiment, serial)) lines.push_back(std::move(line));
  }
  write_lines(scratch / "runs.jsonl", lines);
  collect.push_back((scratch / "runs.jsonl").string());
  run_or_throw(collect, "hetscale collect");
  for (const auto& experiment : kSyntheticExperiments)
    run_or_throw({"analyze", "--db", db_uri, "--experiment", experiment, "--target", "0.5"},
                 "hetscale analyze " + experiment);
}

void insert_partitions_and_predictions(const std::string& db_uri) {
  insert_partitions(db_uri);
  insert_predictions(db_uri);
}

void load_capacity_study(const std::string& db_uri, const fs::path& scratch) {
  load_synthetic_study(db_uri, scratch);
  insert_partitions(db_uri);
  PlanSite grown = load_round_plan(plan_fixture).site;
  SiteTable table;
  table.name = grown.name;
  table.speed_unit = grown.speed_unit;
  table.groups = grown.groups;
  table.nodes = grown.nodes;
  table.index();
  table = grow_site_table(table, kGrownNodes);
  grown.name += "-grown";
  grown.nodes = table.nodes;
  // What `hetscale groups` writes of the nodes (migration 27 stores it): the report's node
  // map shows a hardware column and the hybrid group's kinds of core.
  for (Group& g : grown.groups) g.hardware = "2x32c AMD EPYC 7543, 4x NVIDIA A100-SXM4 80 GB, 512 GB DRAM";
  grown.groups.back().hardware = "1x14c 13th Gen Intel Core i7-1370P (6 + 8 cores of 2 kinds), 32 GB DRAM";
  GroupCpuKind efficient;
  efficient.cpus = {12, 13, 14, 15, 16, 17, 18, 19};
  efficient.efficiency = 0;
  efficient.core_type = "IntelAtom";
  efficient.marked_speed = grown.groups.back().marked_speed / 2;
  GroupCpuKind performance;
  performance.cpus = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  performance.efficiency = 1;
  performance.core_type = "IntelCore";
  performance.marked_speed = grown.groups.back().marked_speed * 1.2;
  grown.groups.back().cpu_kinds = {efficient, performance};
  collector::store_site(db_uri, grown, {});
  int sets = 0;
  while (synthetic_set_nodes(sets) <= kGrownNodes) ++sets;
  load_twin_study(db_uri, scratch, sets);
  for (const auto& experiment : kSyntheticExperiments)
    run_or_throw({"predict", "--db", db_uri, "--experiment", experiment, "--target", "0.5",
                  "--doublings", "8", "--what-if", "add:2:server", "--what-if", "group:200:4"},
                 "hetscale predict " + experiment);
}

void insert_partitions(const std::string& db_uri) {
  pg::Connection conn = pg::Connection::open(db_uri);
  // The two steps of docs/science.md section 3 for set 1 of mm-small: equalization moves work
  // to the steadier hosts and lowers the simulated tau.
  const std::string partition = R"(
      WITH p AS (
        INSERT INTO hetscale.partitions (experiment_id, set_index, method, seconds, node_list,
                                         degree_of_equalization, simulated_tau,
                                         simulated_sigma, simulated_risk)
        SELECT experiment_id, 1, $1, 100, 'n[1-4]', $2::double precision, $3::double precision,
               4, 0.1
        FROM hetscale.experiments WHERE name = 'mm-small'
        RETURNING partition_id)
      INSERT INTO hetscale.partition_shares (partition_id, host, share, mean_seconds_per_op,
                                             sd_seconds_per_op, expected_seconds)
      SELECT partition_id, v.host, v.share * $4::double precision + v.shift * $5::double precision,
             1e-6, v.sd, 100
      FROM p, (VALUES ('n1', 0.125, 0.02, 1e-8), ('n2', 0.125, 0.01, 2e-8),
                      ('n3', 0.375, -0.01, 3e-8), ('n4', 0.375, -0.02, 4e-8)) v(host, share, shift, sd))";
  conn.exec(partition, {"proportional", "0.08", "112", "1", "0"});
  conn.exec(partition, {"equalized", "0.01", "104", "1", "1"});
  // Availability measured on every node (`classify --availability`, stored by `groups --db`):
  // TH 0.025 to 0.1, so every set has an SH.
  conn.exec(R"(
      INSERT INTO hetscale.availability_history (node_id, benchmark, observed_at, period_seconds,
        window_seconds, reference_speed, reference, mean_availability, sd_availability, th,
        correlation_seconds, series)
      SELECT n.node_id, 'dgemm', '2026-11-21T06:00:00Z', 0.2, 0.1, n.marked_speed, 'given', 0.8,
             v.sd, v.sd / 0.8, 1.5, ARRAY[0.8 - v.sd, 0.8 + v.sd]
      FROM hetscale.nodes n
      JOIN (VALUES ('b1', 0.02), ('b2', 0.04), ('s1', 0.06), ('s2', 0.08)) v(name, sd)
        USING (name))");
}

void insert_predictions(const std::string& db_uri) {
  pg::Connection conn = pg::Connection::open(db_uri);
  // One forecast per experiment: the measured sets (with their errors), the next doubling
  // and a what-if set.
  for (const auto& experiment : kSyntheticExperiments) {
    const std::string batch(conn.exec("SELECT nextval('hetscale.prediction_batches')").text(0, 0));
    conn.exec(R"(
        INSERT INTO hetscale.predictions (batch, position, experiment_id, target_efficiency,
          kind, label, set_index, node_count, marked_speed, predicted_parameter,
          predicted_work, predicted_psi, measured_parameter, measured_work, relative_error,
          model)
        SELECT $1::bigint, v.position, e.experiment_id, 0.5, v.kind, v.label, v.set_index,
               v.node_count, v.marked_speed, v.parameter, 2 * v.parameter ^ 3, v.psi,
               v.measured, 2 * v.measured ^ 3, v.parameter ^ 3 / v.measured ^ 3 - 1,
               'isospeed-e fit'
        FROM hetscale.experiments e,
             (VALUES (0, 'measured', 'set 0', 0, 2, 100.0, 41.0, NULL::double precision, 40.0),
                     (1, 'measured', 'set 1', 1, 4, 200.0, 78.0, 0.26, 80.0),
                     (2, 'doubling', 'set 2', NULL, 8, 400.0, 160.0, 0.25, NULL),
                     (3, 'what_if', 'add:16:blade on set 1', NULL, 20, 520.0, 210.0, 0.3, NULL))
               v(position, kind, label, set_index, node_count, marked_speed, parameter, psi,
                 measured)
        WHERE e.name = $2)",
              {batch, experiment});
  }
}

}  // namespace hetscale::test
