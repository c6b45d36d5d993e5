// Reading what `hetscale predict` fits and forecasts, storing its batch.
#include "hetscale/collector/prediction_data.hpp"

#include <charconv>
#include <map>

#include <fmt/format.h>

#include "hetscale/collector/experiment_lookup.hpp"
#include "hetscale/collector/network_probes.hpp"

namespace hetscale::collector {
namespace {

std::string number(double value) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

std::optional<std::string> optional_number(const std::optional<double>& value) {
  return value ? std::optional<std::string>(number(*value)) : std::nullopt;
}

void read_experiment(pg::Connection& conn, const std::string& name, PredictionInput& in) {
  const std::optional<long long> id = find_experiment(conn, name);
  if (!id) throw Error("no experiment '" + name + "' in the database");
  const pg::Result r = conn.exec(R"sql(
    SELECT e.experiment_id, coalesce(o.code, ''), e.workload, e.parameter
    FROM hetscale.experiments e LEFT JOIN hetscale.own_experiments o USING (experiment_id)
    WHERE e.experiment_id = $1)sql",
                                 {std::to_string(*id)});
  if (r.is_null(0, 2) || r.is_null(0, 3))
    throw Error("experiment '" + name + "' has no workload or parameter: load its plan file");
  in.experiment_id = r.integer(0, 0);
  in.code = r.text(0, 1);
  in.workload = r.text(0, 2);
  in.parameter = r.text(0, 3);
}

// One sample per run: the set's C in operations per second, p = its ranks, the slowest
// rank's compute time, the rest of the wall time as communication and waiting.
void read_samples(pg::Connection& conn, const std::string& name, PredictionInput& in,
                  std::map<int, std::size_t>& processes) {
  const pg::Result r = conn.exec(R"sql(
    SELECT re.set_index, re.parameter_value, count(t.rank), re.marked_speed, re.speed_unit,
           u.ops_per_second, re.wall_seconds, max(t.compute_seconds)
    FROM hetscale.run_efficiency re
    JOIN hetscale.speed_units u ON u.unit = re.speed_unit
    JOIN hetscale.rank_timings t ON t.run_id = re.run_id
    WHERE re.experiment_id = $1 AND re.set_index IS NOT NULL AND re.parameter_value > 0
      AND re.marked_speed > 0
    GROUP BY re.run_id, re.set_index, re.parameter_value, re.marked_speed, re.speed_unit,
             u.ops_per_second, re.wall_seconds
    ORDER BY re.set_index, re.parameter_value, re.run_id)sql",
                                 {std::to_string(in.experiment_id)});
  if (r.rows() == 0)
    throw Error("experiment '" + name +
                "' has no runs on a machine set with rank timings and a known speed unit");
  for (int i = 0; i < r.rows(); ++i) {
    TimingSample s;
    s.parameter = r.number(i, 1);
    s.processes = static_cast<std::size_t>(r.integer(i, 2));
    s.marked_speed = r.number(i, 3) * r.number(i, 5);
    s.wall_seconds = r.number(i, 6);
    s.compute_seconds = r.number(i, 7);
    s.communication_seconds = std::max(0.0, s.wall_seconds - s.compute_seconds);
    in.samples.push_back(s);
    in.sample_sets.push_back(static_cast<int>(r.integer(i, 0)));
    in.speed_unit = r.text(i, 4);
    in.ops_per_unit = r.number(i, 5);
    auto& p = processes[static_cast<int>(r.integer(i, 0))];
    p = std::max(p, s.processes);
  }
}

void read_measured_sets(pg::Connection& conn, const std::string& name, double target,
                        const std::map<int, std::size_t>& processes, PredictionInput& in) {
  const pg::Result r = conn.exec(R"sql(
    SELECT set_index, node_count, marked_speed, parameter_value, work
    FROM hetscale.set_required_work
    WHERE experiment_id = $1 AND target_efficiency = $2 ORDER BY set_index)sql",
                                 {std::to_string(in.experiment_id), number(target)});
  if (r.rows() == 0)
    throw Error(fmt::format(
        "experiment '{}' has no required work at target {:g}: run `hetscale analyze --db URI "
        "--experiment {} --target {:g}` first",
        name, target, name, target));
  for (int i = 0; i < r.rows(); ++i) {
    const int index = static_cast<int>(r.integer(i, 0));
    const auto p = processes.find(index);
    if (p == processes.end()) continue;  // no timed runs on it: nothing to compare
    ForecastSet set;
    set.kind = ForecastKind::measured;
    set.label = fmt::format("set {}", index);
    set.set_index = index;
    set.node_count = static_cast<std::size_t>(r.integer(i, 1));
    set.marked_speed = r.number(i, 2);
    set.processes = p->second;
    set.measured_parameter = r.optional_number(i, 3);
    set.measured_work = r.optional_number(i, 4);
    in.measured.push_back(set);
  }
}

// The experiment's site as a site table, for its doublings and `add:` what-ifs.
std::optional<SiteTable> read_site(pg::Connection& conn, long long experiment_id) {
  const pg::Result s = conn.exec(R"sql(
    SELECT s.site_id, s.name, s.speed_unit, s.benchmark FROM hetscale.sites s
    JOIN hetscale.experiments e USING (site_id) WHERE e.experiment_id = $1)sql",
                                 {std::to_string(experiment_id)});
  if (s.rows() == 0) return std::nullopt;
  SiteTable site;
  site.name = s.text(0, 1);
  site.speed_unit = s.text(0, 2);
  site.benchmark = s.text(0, 3);
  const std::string id(s.text(0, 0));
  const pg::Result g = conn.exec(
      "SELECT name, marked_speed FROM hetscale.groups WHERE site_id = $1 ORDER BY group_id", {id});
  for (int i = 0; i < g.rows(); ++i) site.groups.push_back({std::string(g.text(i, 0)), g.number(i, 1), {}});
  const pg::Result n = conn.exec(R"sql(
    SELECT n.name, g.name, n.processors, n.marked_speed, n.state FROM hetscale.nodes n
    JOIN hetscale.groups g USING (group_id) WHERE n.site_id = $1 ORDER BY n.node_id)sql",
                                 {id});
  for (int i = 0; i < n.rows(); ++i) {
    Node node;
    node.name = n.text(i, 0);
    node.group = n.text(i, 1);
    node.processors = static_cast<std::uint32_t>(n.integer(i, 2));
    node.marked_speed = n.number(i, 3);
    const std::string_view state = n.text(i, 4);
    node.state = state == "ok" ? NodeState::ok
                 : state == "degraded" ? NodeState::degraded
                                       : NodeState::excluded;
    site.nodes.push_back(std::move(node));
  }
  site.index();
  return site;
}

}  // namespace

PredictionInput load_prediction_input(pg::Connection& conn, const std::string& experiment,
                                      double target) {
  PredictionInput in;
  read_experiment(conn, experiment, in);
  std::map<int, std::size_t> processes;
  read_samples(conn, experiment, in, processes);
  if (processes.size() < 2)
    throw Error(fmt::format(
        "experiment '{}' has timed runs on {} machine set(s): the model needs at least 2 sets "
        "(different process counts) to separate computation from communication",
        experiment, processes.size()));
  read_measured_sets(conn, experiment, target, processes, in);
  in.site = read_site(conn, in.experiment_id);
  const std::vector<StoredProbe> probes = experiment_probes(conn, experiment);
  for (const StoredProbe& p : probes)
    if (probe_for_processes(probes, p.processes) == &p) in.probes.push_back(p.probe);
  return in;
}

long long store_predictions(pg::Connection& conn, long long experiment_id,
                            const ExperimentForecast& forecast) {
  const long long batch =
      conn.exec("SELECT nextval('hetscale.prediction_batches')").integer(0, 0);
  const auto note = [](const std::string& text) {  // a note or reason; NULL when empty
    return text.empty() ? std::nullopt : std::optional<std::string>(text);
  };
  for (std::size_t i = 0; i < forecast.rows.size(); ++i) {
    const ForecastRow& row = forecast.rows[i];
    const bool found = row.prediction.found;
    conn.exec(R"sql(
      INSERT INTO hetscale.predictions (batch, position, experiment_id, target_efficiency,
        kind, label, set_index, node_count, marked_speed, predicted_parameter, predicted_work,
        predicted_psi, measured_parameter, measured_work, relative_error, model,
        predicted_parameter_low, predicted_parameter_high, predicted_work_low,
        predicted_work_high, predicted_psi_low, predicted_psi_high, interval_level,
        interval_method, interval_resamples, interval_note, psi_interval_note, interval_reason,
        psi_interval_reason)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
        $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29))sql",
              {std::to_string(batch), std::to_string(i), std::to_string(experiment_id),
               number(forecast.target), to_string(row.set.kind), row.set.label,
               row.set.set_index ? std::optional<std::string>(std::to_string(*row.set.set_index))
                                 : std::nullopt,
               std::to_string(row.set.node_count), number(row.set.marked_speed),
               found ? optional_number(row.prediction.parameter) : std::nullopt,
               found ? optional_number(row.prediction.work) : std::nullopt,
               optional_number(row.psi), optional_number(row.set.measured_parameter),
               optional_number(row.set.measured_work), optional_number(row.relative_error),
               forecast.model, optional_number(row.parameter_interval.low),
               optional_number(row.parameter_interval.high), optional_number(row.work_interval.low),
               optional_number(row.work_interval.high), optional_number(row.psi_interval.low),
               optional_number(row.psi_interval.high), number(forecast.interval_level),
               std::string(forecast_interval_method_of(forecast.interval_run_noise)),
               std::to_string(forecast.interval_resamples), note(row.parameter_interval.note),
               note(row.psi_interval.note), note(row.parameter_interval.reason),
               note(row.psi_interval.reason)});
  }
  return batch;
}

}  // namespace hetscale::collector
