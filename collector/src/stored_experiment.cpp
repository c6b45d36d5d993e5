// Reading an experiment's plan fields, machine sets and runs back (plain SELECTs).
#include "hetscale/collector/stored_experiment.hpp"

#include "hetscale/collector/experiment_lookup.hpp"

namespace hetscale::collector {
namespace {

std::string text_or_empty(const pg::Result& r, int row, int column) {
  return r.is_null(row, column) ? std::string() : std::string(r.text(row, column));
}

std::vector<StoredSet> stored_sets(pg::Connection& conn, const std::string& experiment_id) {
  const pg::Result r = conn.exec(R"sql(
    SELECT set_index, node_count, marked_speed FROM hetscale.machine_sets
    WHERE experiment_id = $1 ORDER BY set_index)sql",
                                 {experiment_id});
  std::vector<StoredSet> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(
        {static_cast<int>(r.integer(i, 0)), static_cast<int>(r.integer(i, 1)), r.number(i, 2)});
  return out;
}

// The most recently planned round (its plan's creation time), not the highest number: a
// study planned again under the same name starts again from its round 0, and the rounds
// of the older study left in the table must not win. A round's spec and plan are private
// (migration 20): the rounds read are those of the caller's own experiments
// (own_plan_rounds; an administrator's: all).
constexpr const char* round_columns = R"sql(
    SELECT round, spec_path, spec_text, refine_tolerance, plan::text,
           to_char(plan_created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
    FROM hetscale.own_plan_rounds WHERE experiment_id = $1 )sql";

StoredRound stored_round(const pg::Result& r, int row) {
  auto optional_text = [&](int column) {
    return r.is_null(row, column) ? std::nullopt
                                  : std::optional<std::string>(std::string(r.text(row, column)));
  };
  return StoredRound{static_cast<int>(r.integer(row, 0)), optional_text(1), optional_text(2),
                     r.optional_number(row, 3), std::string(r.text(row, 4)), optional_text(5)};
}

std::optional<StoredRound> latest_round(pg::Connection& conn, const std::string& experiment_id) {
  const pg::Result r = conn.exec(
      std::string(round_columns) + "ORDER BY plan_created DESC NULLS LAST, round DESC LIMIT 1", {experiment_id});
  if (r.rows() == 0) return std::nullopt;
  return stored_round(r, 0);
}

// The latest round 0 (by creation) and the rounds created since, ascending by round.
std::vector<StoredRound> current_rounds(pg::Connection& conn, const std::string& experiment_id) {
  const pg::Result r = conn.exec(std::string(round_columns) + R"sql(
      AND (plan_created >= (SELECT max(plan_created) FROM hetscale.own_plan_rounds
                            WHERE experiment_id = $1 AND round = 0)
           OR NOT EXISTS (SELECT 1 FROM hetscale.own_plan_rounds
                          WHERE experiment_id = $1 AND round = 0 AND plan_created IS NOT NULL))
    ORDER BY round)sql",
                                 {experiment_id});
  std::vector<StoredRound> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(stored_round(r, i));
  return out;
}

}  // namespace

std::optional<StoredExperiment> read_stored_experiment(pg::Connection& conn,
                                                       const std::string& name) {
  const std::optional<long long> found = find_experiment(conn, name);
  if (!found) return std::nullopt;
  const pg::Result r = conn.exec(R"sql(
    SELECT experiment_id, workload, parameter, target_efficiency FROM hetscale.experiments
    WHERE experiment_id = $1)sql",
                                 {std::to_string(*found)});
  StoredExperiment out{
      name,        text_or_empty(r, 0, 1), text_or_empty(r, 0, 2), r.optional_number(0, 3), {},
      std::nullopt, {}};
  const std::string id(r.text(0, 0));
  out.sets = stored_sets(conn, id);
  out.latest_round = latest_round(conn, id);
  out.rounds = current_rounds(conn, id);
  return out;
}

std::vector<std::string> experiment_names(pg::Connection& conn) {
  const pg::Result r =
      conn.exec("SELECT name FROM hetscale.experiments GROUP BY name ORDER BY name COLLATE \"C\"");
  std::vector<std::string> out;
  for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.text(i, 0));
  return out;
}

std::vector<StoredRun> read_stored_runs(pg::Connection& conn, const std::string& name) {
  const std::optional<long long> id = find_experiment(conn, name);
  if (!id) return {};
  // The view resolves the parameter's value and the run's C (its own or its set's) and
  // unit; E_s itself is left to the caller, so that records and database give equal
  // numbers through one computation.
  const pg::Result r = conn.exec(R"sql(
    SELECT e.set_index, e.parameter_value, e.work, e.wall_seconds, e.marked_speed,
           e.speed_unit, r.source_file || ':' || r.source_line, e.repetition
    FROM hetscale.run_efficiency e JOIN hetscale.runs r USING (run_id)
    WHERE e.experiment_id = $1 AND e.set_index IS NOT NULL
    ORDER BY r.source_file COLLATE "C", r.source_line, r.run_id)sql",
                                 {std::to_string(*id)});
  std::vector<StoredRun> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back({static_cast<int>(r.integer(i, 0)), r.optional_number(i, 1),
                   static_cast<int>(r.integer(i, 7)), r.number(i, 2), r.number(i, 3),
                   r.optional_number(i, 4), text_or_empty(r, i, 5), std::string(r.text(i, 6))});
  }
  return out;
}

double planned_target(pg::Connection& conn, const std::string& name) {
  const auto stored = read_stored_experiment(conn, name);
  if (!stored) throw Error("experiment '" + name + "' is not in the database");
  if (!stored->target_efficiency)
    throw Error("experiment '" + name + "' has no plan with a target E_s: give --target");
  return *stored->target_efficiency;
}

ExperimentSnapshot read_experiment_snapshot(pg::Connection& conn, const std::string& name) {
  ExperimentSnapshot out;
  pg::Transaction snapshot(conn, pg::TransactionMode::snapshot);  // plan and runs of one moment
  out.experiment = read_stored_experiment(conn, name);
  if (out.experiment)
    out.runs = read_stored_runs(conn, name);
  else
    out.known = experiment_names(conn);
  snapshot.commit();
  return out;
}

}  // namespace hetscale::collector
