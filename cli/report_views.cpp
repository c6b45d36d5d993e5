#include "report_views.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hetscale/collector/migrations.hpp"

namespace hetscale::cli {
namespace {

using report::ExperimentData;

std::string text(const pg::Result& r, int row, int column) {
  return r.is_null(row, column) ? std::string() : std::string(r.text(row, column));
}

int small(const pg::Result& r, int row, int column) {
  return static_cast<int>(r.integer(row, column));
}

std::optional<int> optional_small(const pg::Result& r, int row, int column) {
  if (r.is_null(row, column)) return std::nullopt;
  return small(r, row, column);
}

/// The experiment as a query parameter; the unnamed one (partitions from input files) is NULL.
pg::Params experiment_param(const ExperimentData& e) {
  return {e.name.empty() ? std::nullopt : std::optional<std::string>(e.name)};
}

/// The problem parameter's name: the key of `parameters` whose value is always the run's
/// parameter_value (run_efficiency carries the value, not the name). Empty if ambiguous.
std::string parameter_name(pg::Connection& conn, const ExperimentData& e) {
  const pg::Result r = conn.exec(R"(
      SELECT p.key FROM hetscale.run_efficiency r CROSS JOIN LATERAL jsonb_each(r.parameters) p
      WHERE r.experiment = $1 AND r.parameter_value IS NOT NULL
      GROUP BY p.key
      HAVING bool_and(jsonb_typeof(p.value) = 'number'
                      AND (p.value::text)::double precision = r.parameter_value)
      ORDER BY p.key)",
                                 experiment_param(e));
  return r.rows() == 1 ? text(r, 0, 0) : std::string();
}

std::string speed_unit(pg::Connection& conn, const ExperimentData& e) {
  const pg::Result r = conn.exec(R"(
      SELECT speed_unit FROM hetscale.run_efficiency
      WHERE experiment = $1 AND speed_unit IS NOT NULL
      GROUP BY speed_unit ORDER BY count(*) DESC, speed_unit LIMIT 1)",
                                 experiment_param(e));
  return r.rows() == 1 ? text(r, 0, 0) : std::string();
}

void read_curve(pg::Connection& conn, ExperimentData& e) {
  const pg::Result r = conn.exec(R"(
      SELECT set_index, parameter_value, runs, work, speed_efficiency, min_speed_efficiency,
             max_speed_efficiency, stddev_speed_efficiency
      FROM hetscale.set_efficiency_curve WHERE experiment = $1
      ORDER BY set_index, parameter_value)",
                                 experiment_param(e));
  for (int i = 0; i < r.rows(); ++i)
    e.curve.push_back({small(r, i, 0), r.number(i, 1), r.integer(i, 2), r.number(i, 3),
                       r.number(i, 4), r.number(i, 5), r.number(i, 6), r.optional_number(i, 7)});
}

void read_required_work(pg::Connection& conn, ExperimentData& e) {
  const pg::Result r = conn.exec(R"(
      SELECT set_index, node_count, marked_speed, target_efficiency, status, parameter_value,
             work, nearest_efficiency, explanation
      FROM hetscale.set_required_work WHERE experiment = $1
      ORDER BY target_efficiency, set_index)",
                                 experiment_param(e));
  for (int i = 0; i < r.rows(); ++i)
    e.required_work.push_back({small(r, i, 0), small(r, i, 1), r.number(i, 2), r.number(i, 3),
                               text(r, i, 4), r.optional_number(i, 5), r.optional_number(i, 6),
                               r.optional_number(i, 7), text(r, i, 8)});
}

void read_psi(pg::Connection& conn, ExperimentData& e) {
  const pg::Result r = conn.exec(R"(
      SELECT target_efficiency, set_index, next_set_index, marked_speed, next_marked_speed,
             work, next_work, psi
      FROM hetscale.set_psi WHERE experiment = $1
      ORDER BY target_efficiency, set_index)",
                                 experiment_param(e));
  for (int i = 0; i < r.rows(); ++i)
    e.psi.push_back({r.number(i, 0), small(r, i, 1), small(r, i, 2), r.number(i, 3), r.number(i, 4),
                     r.optional_number(i, 5), r.optional_number(i, 6), r.optional_number(i, 7)});
}

void read_heterogeneity(pg::Connection& conn, ExperimentData& e) {
  const pg::Result th = conn.exec(R"(
      SELECT set_index, host, configurations, runs, th
      FROM hetscale.node_temporal_heterogeneity WHERE experiment = $1 AND th IS NOT NULL
      ORDER BY set_index, host)",
                                  experiment_param(e));
  for (int i = 0; i < th.rows(); ++i)
    e.node_th.push_back(
        {small(th, i, 0), text(th, i, 1), th.integer(i, 2), th.integer(i, 3), th.number(i, 4)});
  const pg::Result sh = conn.exec(R"(
      SELECT set_index, nodes, max_th, mean_th, sh
      FROM hetscale.set_spatial_heterogeneity WHERE experiment = $1 AND sh IS NOT NULL
      ORDER BY set_index)",
                                  experiment_param(e));
  for (int i = 0; i < sh.rows(); ++i)
    e.set_sh.push_back(
        {small(sh, i, 0), sh.integer(i, 1), sh.number(i, 2), sh.number(i, 3), sh.number(i, 4)});
}

void read_weights(pg::Connection& conn, ExperimentData& e) {
  const pg::Result r = conn.exec(R"(
      SELECT set_index, parameter_value, weights_source, runs, mean_wall_seconds,
             stddev_wall_seconds
      FROM hetscale.weights_comparison WHERE experiment = $1
      ORDER BY set_index, parameter_value, weights_source)",
                                 experiment_param(e));
  for (int i = 0; i < r.rows(); ++i)
    e.weights.push_back({small(r, i, 0), r.optional_number(i, 1), text(r, i, 2), r.integer(i, 3),
                         r.number(i, 4), r.optional_number(i, 5)});
}

void read_partitions(pg::Connection& conn, ExperimentData& e) {
  const pg::Result r = conn.exec(R"(
      SELECT partition_id, set_index, method, seconds, node_list, degree_of_equalization,
             simulated_tau, simulated_sigma, simulated_risk, host, share,
             mean_seconds_per_op, sd_seconds_per_op, expected_seconds
      FROM hetscale.latest_partitions WHERE experiment IS NOT DISTINCT FROM $1
      ORDER BY set_index, method, host)",
                                 experiment_param(e));
  for (int i = 0; i < r.rows(); ++i)
    e.partitions.push_back({r.integer(i, 0), optional_small(r, i, 1), text(r, i, 2), r.number(i, 3),
                            text(r, i, 4), r.optional_number(i, 5), r.optional_number(i, 6),
                            r.optional_number(i, 7), r.optional_number(i, 8), text(r, i, 9),
                            r.number(i, 10), r.optional_number(i, 11), r.optional_number(i, 12),
                            r.optional_number(i, 13)});
}

void read_forecasts(pg::Connection& conn, ExperimentData& e) {
  const pg::Result r = conn.exec(R"(
      SELECT position, target_efficiency, kind, label, set_index, node_count, marked_speed,
             predicted_parameter, predicted_work, predicted_psi, measured_parameter,
             measured_work, relative_error, model
      FROM hetscale.capacity_forecast WHERE experiment = $1
      ORDER BY target_efficiency, position)",
                                 experiment_param(e));
  for (int i = 0; i < r.rows(); ++i)
    e.forecasts.push_back({small(r, i, 0), r.number(i, 1), text(r, i, 2), text(r, i, 3),
                           optional_small(r, i, 4), small(r, i, 5), r.number(i, 6),
                           r.optional_number(i, 7), r.optional_number(i, 8),
                           r.optional_number(i, 9), r.optional_number(i, 10),
                           r.optional_number(i, 11), r.optional_number(i, 12), text(r, i, 13)});
}

std::vector<report::NodeRow> read_nodes(pg::Connection& conn) {
  const pg::Result r = conn.exec(R"(
      SELECT site, "group", group_marked_speed, host, processors, marked_speed, speed_unit, state
      FROM hetscale.node_map ORDER BY site, "group", host)");
  std::vector<report::NodeRow> nodes;
  for (int i = 0; i < r.rows(); ++i)
    nodes.push_back({text(r, i, 0), text(r, i, 1), r.number(i, 2), text(r, i, 3), small(r, i, 4),
                     r.number(i, 5), text(r, i, 6), text(r, i, 7)});
  return nodes;
}

ExperimentData read_experiment(pg::Connection& conn, const std::string& name) {
  ExperimentData e;
  e.name = name;
  if (!name.empty()) {
    e.parameter = parameter_name(conn, e);
    e.speed_unit = speed_unit(conn, e);
    read_curve(conn, e);
    read_required_work(conn, e);
    read_psi(conn, e);
    read_heterogeneity(conn, e);
    read_weights(conn, e);
    read_forecasts(conn, e);
  }
  read_partitions(conn, e);
  return e;
}

void require_views(pg::Connection& conn) {
  const int version = collector::schema_version(conn);
  if (version < kReportSchemaVersion)
    throw Error(fmt::format(
        "the database is at schema version {}; the report reads the views of version {} "
        "(run 'hetscale db migrate --db URI' first)",
        version, kReportSchemaVersion));
}

}  // namespace

std::vector<std::string> report_experiments(pg::Connection& conn) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment FROM hetscale.set_efficiency_curve
      UNION SELECT experiment FROM hetscale.set_required_work
      UNION SELECT experiment FROM hetscale.node_temporal_heterogeneity
      UNION SELECT experiment FROM hetscale.weights_comparison
      UNION SELECT experiment FROM hetscale.latest_partitions WHERE experiment IS NOT NULL
      UNION SELECT experiment FROM hetscale.capacity_forecast
      ORDER BY 1)");
  std::vector<std::string> names;
  for (int i = 0; i < r.rows(); ++i) names.push_back(text(r, i, 0));
  return names;
}

report::ReportData read_report_data(pg::Connection& conn, const std::vector<std::string>& names) {
  require_views(conn);
  const std::vector<std::string> known = report_experiments(conn);
  for (const auto& name : names)
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw Error(fmt::format(
          "no experiment '{}' in the views of the database ({})", name,
          known.empty() ? std::string("no experiment has data yet")
                        : fmt::format("experiments with data: {}", fmt::join(known, ", "))));
  report::ReportData data;
  std::vector<std::string> chosen;
  for (const auto& name : names.empty() ? known : names)
    if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) chosen.push_back(name);
  for (const auto& name : chosen) data.experiments.push_back(read_experiment(conn, name));
  if (names.empty()) {
    ExperimentData from_files = read_experiment(conn, "");
    if (!from_files.partitions.empty()) data.experiments.push_back(std::move(from_files));
  }
  data.nodes = read_nodes(conn);
  return data;
}

}  // namespace hetscale::cli
