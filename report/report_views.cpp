#include "report_views.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

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

/// The chosen experiments by name; a NULL name (column 0) is the entry of partitions
/// computed from input files. Each view is read once for all experiments: the views
/// aggregate before they can filter by name (TH over every rank timing), so one query per
/// experiment would repeat that work.
class Chosen {
 public:
  explicit Chosen(report::ReportData& data) {
    for (auto& e : data.experiments) (e.from_files ? from_files_ : by_name_[e.name]) = &e;
    for (auto& pair : data.twins) by_name_[pair.twin.name] = &pair.twin;
  }
  /// The experiment named in column 0 of the row, or nullptr when it was not chosen.
  ExperimentData* operator()(const pg::Result& r, int row) const {
    if (r.is_null(row, 0)) return from_files_;
    const auto at = by_name_.find(text(r, row, 0));
    return at == by_name_.end() ? nullptr : at->second;
  }

 private:
  std::map<std::string, ExperimentData*> by_name_;
  ExperimentData* from_files_ = nullptr;
};

/// The problem parameter's name: the key of `parameters` whose value is always the run's
/// parameter_value (run_efficiency carries the value, not the name). Empty if ambiguous.
void read_parameter_names(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment, min(key), count(*) FROM (
        SELECT r.experiment, p.key FROM hetscale.run_efficiency r
        CROSS JOIN LATERAL jsonb_each(r.parameters) p
        WHERE r.parameter_value IS NOT NULL
        GROUP BY r.experiment, p.key
        HAVING bool_and(jsonb_typeof(p.value) = 'number'
                        AND (p.value::text)::double precision = r.parameter_value)) k
      GROUP BY experiment)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i); e && r.integer(i, 2) == 1) e->parameter = text(r, i, 1);
}

void read_speed_units(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result r = conn.exec(R"(
      SELECT DISTINCT ON (experiment) experiment, speed_unit FROM hetscale.run_efficiency
      WHERE speed_unit IS NOT NULL
      GROUP BY experiment, speed_unit ORDER BY experiment, count(*) DESC, speed_unit)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i)) e->speed_unit = text(r, i, 1);
}

void read_curves(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment, set_index, parameter_value, runs, work, speed_efficiency,
             min_speed_efficiency, max_speed_efficiency, stddev_speed_efficiency
      FROM hetscale.set_efficiency_curve ORDER BY experiment, set_index, parameter_value)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->curve.push_back({small(r, i, 1), r.number(i, 2), r.integer(i, 3), r.number(i, 4),
                          r.number(i, 5), r.number(i, 6), r.number(i, 7), r.optional_number(i, 8)});
}

void read_required_work(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment, set_index, node_count, marked_speed, target_efficiency, status,
             parameter_value, work, nearest_efficiency, explanation
      FROM hetscale.set_required_work ORDER BY experiment, target_efficiency, set_index)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->required_work.push_back({small(r, i, 1), small(r, i, 2), r.number(i, 3), r.number(i, 4),
                                  text(r, i, 5), r.optional_number(i, 6), r.optional_number(i, 7),
                                  r.optional_number(i, 8), text(r, i, 9)});
}

void read_psi(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment, target_efficiency, set_index, next_set_index, marked_speed,
             next_marked_speed, work, next_work, psi
      FROM hetscale.set_psi ORDER BY experiment, target_efficiency, set_index)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->psi.push_back({r.number(i, 1), small(r, i, 2), small(r, i, 3), r.number(i, 4),
                        r.number(i, 5), r.optional_number(i, 6), r.optional_number(i, 7),
                        r.optional_number(i, 8)});
}

void read_heterogeneity(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result th = conn.exec(R"(
      SELECT experiment, set_index, host, configurations, runs, time_variability_per_sqrt_s
      FROM hetscale.node_time_variability WHERE time_variability_per_sqrt_s IS NOT NULL
      ORDER BY experiment, set_index, host)");
  for (int i = 0; i < th.rows(); ++i)
    if (ExperimentData* e = chosen(th, i))
      e->node_time_variability.push_back(
          {small(th, i, 1), text(th, i, 2), th.integer(i, 3), th.integer(i, 4), th.number(i, 5)});
  const pg::Result sh = conn.exec(R"(
      SELECT experiment, set_index, nodes, measured_nodes, max_th, mean_th, sh
      FROM hetscale.set_availability_sh WHERE sh IS NOT NULL
      ORDER BY experiment, set_index)");
  for (int i = 0; i < sh.rows(); ++i)
    if (ExperimentData* e = chosen(sh, i))
      e->set_sh.push_back({small(sh, i, 1), sh.integer(i, 2), sh.integer(i, 3), sh.number(i, 4),
                           sh.number(i, 5), sh.number(i, 6)});
}

void read_weights(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment, set_index, parameter_value, weights_source, runs, mean_wall_seconds,
             stddev_wall_seconds
      FROM hetscale.weights_comparison
      ORDER BY experiment, set_index, parameter_value, weights_source)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->weights.push_back({small(r, i, 1), r.optional_number(i, 2), text(r, i, 3), r.integer(i, 4),
                            r.number(i, 5), r.optional_number(i, 6)});
}

void read_partitions(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment, partition_id, set_index, method, seconds, node_list,
             degree_of_equalization, simulated_tau, simulated_sigma, simulated_risk, host,
             share, mean_seconds_per_op, sd_seconds_per_op, expected_seconds
      FROM hetscale.latest_partitions ORDER BY experiment, set_index, method, host)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->partitions.push_back(
          {r.integer(i, 1), optional_small(r, i, 2), text(r, i, 3), r.number(i, 4), text(r, i, 5),
           r.optional_number(i, 6), r.optional_number(i, 7), r.optional_number(i, 8),
           r.optional_number(i, 9), text(r, i, 10), r.number(i, 11), r.optional_number(i, 12),
           r.optional_number(i, 13), r.optional_number(i, 14)});
}

void read_forecasts(pg::Connection& conn, const Chosen& chosen) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment, position, target_efficiency, kind, label, set_index, node_count,
             marked_speed, predicted_parameter, predicted_work, predicted_psi,
             measured_parameter, measured_work, relative_error, model
      FROM hetscale.capacity_forecast ORDER BY experiment, target_efficiency, position)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->forecasts.push_back({small(r, i, 1), r.number(i, 2), text(r, i, 3), text(r, i, 4),
                              optional_small(r, i, 5), small(r, i, 6), r.number(i, 7),
                              r.optional_number(i, 8), r.optional_number(i, 9),
                              r.optional_number(i, 10), r.optional_number(i, 11),
                              r.optional_number(i, 12), r.optional_number(i, 13), text(r, i, 14)});
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

/// The schema version; throws for a database older than the views.
int require_views(pg::Connection& conn) {
  const int version = collector::schema_version(conn);
  if (version < kReportSchemaVersion)
    throw Error(fmt::format(
        "the database is at schema version {}; the report reads the views of version {} "
        "(run 'hetscale db migrate --db URI' first)",
        version, kReportSchemaVersion));
  return version;
}

/// The experiments whose runs are all twin runs.
std::set<std::string> twin_experiments(pg::Connection& conn) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment FROM hetscale.run_efficiency
      WHERE experiment IS NOT NULL
      GROUP BY experiment HAVING bool_and(engine = 'simgrid'))");
  std::set<std::string> names;
  for (int i = 0; i < r.rows(); ++i) names.insert(text(r, i, 0));
  return names;
}

/// The names asked for (all with data when none), each once; throws for an unknown one.
std::vector<std::string> choose(const std::vector<std::string>& known,
                                const std::vector<std::string>& names) {
  for (const auto& name : names)
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw Error(fmt::format(
          "no experiment '{}' in the views of the database ({})", name,
          known.empty() ? std::string("no experiment has data yet")
                        : fmt::format("experiments with data: {}", fmt::join(known, ", "))));
  std::vector<std::string> chosen;
  for (const auto& name : names.empty() ? known : names)
    if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) chosen.push_back(name);
  return chosen;
}

/// The twin of each chosen experiment that has one: the one `given` names, else for E the
/// experiment E + "-twin" when it has data, all its runs are twin runs and `given` does not
/// pair it with another experiment.
std::map<std::string, std::string> twin_of(const std::vector<std::string>& chosen,
                                           const std::vector<std::string>& known,
                                           const std::set<std::string>& twins,
                                           const std::map<std::string, std::string>& given) {
  std::map<std::string, std::string> out;
  for (const auto& name : chosen) {
    const std::string twin = name + report::kTwinSuffix;
    if (const auto at = given.find(name); at != given.end())
      out[name] = at->second;
    else if (twins.contains(twin) && std::find(known.begin(), known.end(), twin) != known.end() &&
             std::none_of(given.begin(), given.end(),
                          [&](const auto& p) { return p.second == twin; }))
      out[name] = twin;
  }
  return out;
}

/// The chosen experiments (with the measured ones of `given`), each twin paired with its
/// experiment instead of listed on its own. Throws for a pair of `given` whose experiments
/// have no data or whose twin has a run that is not a twin run.
void add_experiments(report::ReportData& data, const std::vector<std::string>& known,
                     const std::vector<std::string>& names, const std::set<std::string>& twins,
                     const std::map<std::string, std::string>& given) {
  std::vector<std::string> asked = names;
  for (const auto& [measured, twin] : given) {
    choose(known, {measured, twin});  // both have data
    if (!twins.contains(twin))
      throw Error(
          fmt::format("--twin {}={}: not every run of '{}' is a twin run (engine "
                      "'simgrid', stored from migration 8 on)",
                      measured, twin, twin));
    if (!names.empty()) asked.push_back(measured);
  }
  const std::vector<std::string> chosen = choose(known, asked);
  const std::map<std::string, std::string> pairs = twin_of(chosen, known, twins, given);
  auto paired = [&](const std::string& name) {
    return std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) { return p.second == name; });
  };
  for (const auto& name : chosen) {
    if (paired(name)) continue;
    data.experiments.emplace_back().name = name;
    if (const auto at = pairs.find(name); at != pairs.end()) {
      report::TwinPair& pair = data.twins.emplace_back();
      pair.measured = name;
      pair.twin.name = at->second;
    }
  }
}

}  // namespace

// node_time_variability is left out: it is costly and its experiments all have runs
// with a set, so weights_comparison lists them.
std::vector<std::string> report_experiments(pg::Connection& conn) {
  const pg::Result r = conn.exec(R"(
      SELECT experiment FROM hetscale.set_efficiency_curve
      UNION SELECT experiment FROM hetscale.set_required_work
      UNION SELECT experiment FROM hetscale.weights_comparison
      UNION SELECT experiment FROM hetscale.latest_partitions WHERE experiment IS NOT NULL
      UNION SELECT experiment FROM hetscale.capacity_forecast
      ORDER BY 1)");
  std::vector<std::string> names;
  for (int i = 0; i < r.rows(); ++i) names.push_back(text(r, i, 0));
  return names;
}

report::ReportData read_report_data(pg::Connection& conn, const std::vector<std::string>& names,
                                    const std::map<std::string, std::string>& twins) {
  const int version = require_views(conn);
  report::ReportData data;
  add_experiments(data, report_experiments(conn), names,
                  version >= kTwinSchemaVersion ? twin_experiments(conn) : std::set<std::string>(),
                  twins);
  if (names.empty()) data.experiments.emplace_back().from_files = true;
  const Chosen chosen(data);
  read_parameter_names(conn, chosen);
  read_speed_units(conn, chosen);
  read_curves(conn, chosen);
  read_required_work(conn, chosen);
  read_psi(conn, chosen);
  read_heterogeneity(conn, chosen);
  read_weights(conn, chosen);
  read_partitions(conn, chosen);
  read_forecasts(conn, chosen);
  if (names.empty() && data.experiments.back().partitions.empty()) data.experiments.pop_back();
  data.nodes = read_nodes(conn);
  return data;
}

}  // namespace hetscale::cli
