// The scalability analysis: reading runs, fitting per set, storing required work, psi.
#include "hetscale/collector/analysis.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "hetscale/collector/experiment_lookup.hpp"
#include "hetscale/collector/stored_experiment.hpp"
#include "hetscale/model/workload.hpp"

namespace hetscale::collector {
namespace {

struct Experiment {
  std::string id;
  std::string parameter;
  std::string workload;
  std::string speed_unit;
};

std::string number(double value) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

// The plan's parameter and workload, or those the first record gave.
Experiment experiment(pg::Connection& conn, const std::string& name) {
  const std::optional<long long> id = find_experiment(conn, name);
  if (!id) throw Error("analyze: no experiment '" + name + "' in the database");
  const pg::Result r = conn.exec(R"sql(
    SELECT e.experiment_id, e.parameter, e.workload,
           coalesce(s.speed_unit, (SELECT nullif(speed_unit, '') FROM hetscale.runs r
                                   WHERE r.experiment_id = e.experiment_id LIMIT 1), '')
    FROM hetscale.experiments e LEFT JOIN hetscale.sites s USING (site_id)
    WHERE e.experiment_id = $1)sql",
                                 {std::to_string(*id)});
  if (r.is_null(0, 1) || r.is_null(0, 2)) {
    throw Error("analyze: experiment '" + name +
                "' has no parameter or workload: load its plan file (its runs have several "
                "parameters)");
  }
  return {std::string(r.text(0, 0)), std::string(r.text(0, 1)), std::string(r.text(0, 2)),
          std::string(r.text(0, 3))};
}

std::map<int, std::vector<EfficiencyPoint>> points_by_set(pg::Connection& conn,
                                                          const std::string& id) {
  const pg::Result r = conn.exec(R"sql(
    SELECT set_index, parameter_value, speed_efficiency FROM hetscale.run_efficiency
    WHERE experiment_id = $1 AND set_index IS NOT NULL AND parameter_value > 0
      AND speed_efficiency IS NOT NULL)sql",
                                 {id});
  std::map<int, std::vector<EfficiencyPoint>> out;
  for (int i = 0; i < r.rows(); ++i) {
    out[static_cast<int>(r.integer(i, 0))].push_back({r.number(i, 1), r.number(i, 2)});
  }
  return out;
}

// Why an experiment has no E_s on any machine set, for `analyze`'s error: no run on a set
// at all, or runs whose E_s = W / (T C) the view cannot compute, because their speed unit
// is no rate that hetscale.speed_units converts to operations per second (a site table of
// declared relative speeds, `speed-factor`), or because their unit or C is not known.
std::string no_efficiency_reason(pg::Connection& conn, const std::string& id,
                                 const std::string& name) {
  const pg::Result r = conn.exec(R"sql(
    SELECT coalesce(re.speed_unit, ''), u.unit IS NOT NULL, re.marked_speed IS NOT NULL,
           count(*)
    FROM hetscale.run_efficiency re
    LEFT JOIN hetscale.speed_units u ON u.unit = re.speed_unit
    WHERE re.experiment_id = $1 AND re.set_index IS NOT NULL AND re.parameter_value > 0
    GROUP BY 1, 2, 3 ORDER BY 4 DESC, 1 LIMIT 1)sql",
                                 {id});
  const std::string experiment = "analyze: experiment '" + name + "'";
  if (r.rows() == 0) return experiment + " has no runs on a machine set";
  const std::string unit(r.text(0, 0));
  const long long runs = r.integer(0, 3);
  const std::string has =
      fmt::format(" has {} run{} on machine sets, but ", runs, runs == 1 ? "" : "s");
  if (unit.empty())
    return experiment + has +
           "their speed unit is not known: load the experiment's plan file (its site's "
           "speed_unit), or record runs with speed_unit";
  if (r.text(0, 1) != "t")
    return experiment + has +
           fmt::format(
               "their speed unit '{0}' is no rate: E_s = W / (T C) needs the marked speed C in "
               "operations per second, and hetscale.speed_units does not convert '{0}'; classify "
               "the nodes (hetscale classify, then hetscale groups) for marked speeds in a rate "
               "such as Mflops, or have an administrator declare the unit's rate: INSERT INTO "
               "hetscale.speed_units (unit, ops_per_second) VALUES ('{0}', <operations per second "
               "of one {0}>)",
               unit);
  if (r.text(0, 2) != "t")
    return experiment + has +
           "their marked speed C is not known: load the experiment's plan file (its sets' "
           "marked_speed), or record runs with marked_speed";
  return experiment + has + "none has E_s";
}

struct SetFacts {
  int node_count = 0;
  double marked_speed = 0;
  std::string group_counts;
};

// From the plan when there is one, else from the set's runs.
std::map<int, SetFacts> set_facts(pg::Connection& conn, const std::string& id) {
  const pg::Result r = conn.exec(R"sql(
    SELECT s.set_index, s.node_count, s.marked_speed,
           (SELECT string_agg(g.name || '=' || sg.node_count, ' ' ORDER BY g.group_id)
            FROM hetscale.machine_set_groups sg JOIN hetscale.groups g USING (group_id)
            WHERE sg.machine_set_id = s.machine_set_id)
    FROM hetscale.machine_sets s WHERE s.experiment_id = $1
    UNION ALL
    SELECT r.set_index,
           (SELECT count(DISTINCT t.host) FROM hetscale.rank_timings t WHERE t.run_id = min(r.run_id)),
           avg(nullif(r.marked_speed, 0)), NULL
    FROM hetscale.runs r
    WHERE r.experiment_id = $1 AND r.set_index IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM hetscale.machine_sets s
                      WHERE s.experiment_id = $1 AND s.set_index = r.set_index)
    GROUP BY r.set_index)sql",
                                 {id});
  std::map<int, SetFacts> out;
  for (int i = 0; i < r.rows(); ++i) {
    SetFacts f;
    f.node_count = r.is_null(i, 1) ? 0 : static_cast<int>(r.integer(i, 1));
    f.marked_speed = r.optional_number(i, 2).value_or(0);
    f.group_counts = r.is_null(i, 3) ? "" : std::string(r.text(i, 3));
    out[static_cast<int>(r.integer(i, 0))] = f;
  }
  return out;
}

// The measured point (mean of repeats) nearest to the target.
void nearest(const EfficiencyCurve& curve, double target, SetAnalysis& set) {
  for (const FittedKnot& k : curve.knots()) {
    if (!set.nearest_efficiency ||
        std::abs(k.mean_efficiency - target) < std::abs(*set.nearest_efficiency - target)) {
      set.nearest_efficiency = k.mean_efficiency;
      set.nearest_parameter = k.parameter;
    }
  }
}

std::string advice(const SetAnalysis& set, const EfficiencyCurve& curve,
                   const std::string& parameter) {
  switch (set.reading.status) {
    case TargetReading::Status::found:
    case TargetReading::Status::within_tolerance:
      return "";
    case TargetReading::Status::above_range:
      return "the runs do not bracket the target: run larger " + parameter + " than " +
             number(curve.max_parameter()) +
             " on this set (hetscale jobgen --refine adds such values)";
    case TargetReading::Status::below_range:
      return "the runs do not bracket the target: run smaller " + parameter + " than " +
             number(curve.min_parameter()) +
             " on this set (hetscale jobgen --refine adds such values)";
    case TargetReading::Status::too_few_points:
      return "run at least two values of " + parameter +
             " on this set (hetscale jobgen --refine adds them)";
  }
  return "";
}

std::vector<SizeEfficiency> size_efficiencies(const std::vector<EfficiencyPoint>& points) {
  std::map<double, std::vector<double>> by_size;
  for (const EfficiencyPoint& p : points) by_size[p.parameter].push_back(p.efficiency);
  std::vector<SizeEfficiency> out;
  for (const auto& [parameter, values] : by_size)
    out.push_back({parameter, mean_estimate(values, measured_interval_level, 0.0)});  // E_s >= 0
  return out;
}

SetAnalysis analyze_set(int index, const std::vector<EfficiencyPoint>& points,
                        const SetFacts& facts, const Experiment& e, const Workload& workload,
                        double target, double tolerance, const BootstrapOptions& options) {
  SetAnalysis set;
  set.set_index = index;
  set.node_count = facts.node_count;
  set.marked_speed = facts.marked_speed;
  set.group_counts = facts.group_counts;
  set.runs = points.size();
  const EfficiencyCurve curve = EfficiencyCurve::fit(points);
  set.reading = curve.parameter_within(target, tolerance);
  const auto work_at = [&](double parameter) {
    return workload.evaluate(ParameterValues{{e.parameter, parameter}});
  };
  if (set.reading.has_parameter()) set.work = work_at(set.reading.parameter);
  nearest(curve, target, set);
  set.advice = advice(set, curve, e.parameter);
  set.sizes = size_efficiencies(points);
  ParameterInterval interval = required_parameter_interval(curve, points, target, tolerance, options);
  set.parameter_interval = std::move(interval.interval);
  set.resamples = interval.replicates.size();
  if (set.parameter_interval.low) set.work_low = work_at(*set.parameter_interval.low);
  if (set.parameter_interval.high) set.work_high = work_at(*set.parameter_interval.high);
  set.work_replicates.reserve(interval.replicates.size());
  for (double root : interval.replicates)  // W is monotone in N: beyond the sizes stays beyond
    set.work_replicates.push_back(std::isfinite(root) ? work_at(root) : root);
  return set;
}

// The sets analyze stores in required_work (a known C), in set order: the sets of set_psi.
std::vector<const SetAnalysis*> stored_sets(const std::vector<SetAnalysis>& sets) {
  std::vector<const SetAnalysis*> out;
  for (const SetAnalysis& s : sets)
    if (s.node_count > 0 && s.marked_speed > 0) out.push_back(&s);
  return out;
}

// psi's interval between two consecutive stored sets, as stored in psi_intervals.
struct PsiInterval {
  ReportedInterval interval;
  std::size_t resamples = 0;
};

PsiInterval psi_interval(const SetAnalysis& from, const SetAnalysis& to, double level) {
  PsiInterval out;
  if (!from.work || !to.work) {
    out.interval.reason = "no psi";
    out.interval.note = "no psi: it needs the work at the target on both sets";
    return out;
  }
  for (const SetAnalysis* s : {&from, &to}) {
    if (s->work_replicates.empty()) {
      out.interval.reason = s->parameter_interval.reason;
      out.interval.note = fmt::format("no interval: set {} has none ({})", s->set_index,
                                      s->parameter_interval.note);
      return out;
    }
  }
  const std::vector<double> replicates = psi_replicates(
      from.marked_speed, from.work_replicates, to.marked_speed, to.work_replicates);
  out.resamples = replicates.size();
  out.interval = reported_interval(
      replicates, level, "where a set's root lies beyond its measured sizes (psi lower)",
      "where a set's root lies beyond its measured sizes (psi higher)");
  return out;
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json optional_json(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json resamples_json(std::size_t resamples) {
  return resamples > 0 ? nlohmann::json(resamples) : nlohmann::json(nullptr);
}

// One statement per table for all of an analysis's rows (docs/collector.md): the rows as a
// JSON array, read by jsonb_to_recordset.
constexpr const char* insert_required_work = R"sql(
  INSERT INTO hetscale.required_work (experiment_id, set_index, target_efficiency, node_count,
    marked_speed, status, parameter_value, work, nearest_efficiency, explanation, parameter_low,
    parameter_high, work_low, work_high, interval_level, interval_method, interval_resamples,
    interval_reason, interval_note)
  SELECT $1, set_index, $2, node_count, marked_speed, status, parameter_value, work,
         nearest_efficiency, explanation, parameter_low, parameter_high, work_low, work_high,
         $3, $4, interval_resamples, interval_reason, interval_note
  FROM jsonb_to_recordset($5::jsonb) AS r(set_index integer, node_count integer,
    marked_speed double precision, status text, parameter_value double precision,
    work double precision, nearest_efficiency double precision, explanation text,
    parameter_low double precision, parameter_high double precision, work_low double precision,
    work_high double precision, interval_resamples integer, interval_reason text,
    interval_note text))sql";

constexpr const char* insert_efficiency_intervals = R"sql(
  INSERT INTO hetscale.efficiency_intervals (experiment_id, set_index, parameter_value, runs,
    speed_efficiency, speed_efficiency_low, speed_efficiency_high, interval_level,
    interval_method, interval_reason, interval_note)
  SELECT $1, set_index, parameter_value, runs, speed_efficiency, speed_efficiency_low,
         speed_efficiency_high, $2, $3, interval_reason, interval_note
  FROM jsonb_to_recordset($4::jsonb) AS r(set_index integer, parameter_value double precision,
    runs integer, speed_efficiency double precision, speed_efficiency_low double precision,
    speed_efficiency_high double precision, interval_reason text, interval_note text))sql";

constexpr const char* insert_psi_intervals = R"sql(
  INSERT INTO hetscale.psi_intervals (experiment_id, target_efficiency, set_index,
    next_set_index, psi_low, psi_high, interval_level, interval_method, interval_resamples,
    interval_reason, interval_note)
  SELECT $1, $2, set_index, next_set_index, psi_low, psi_high, $3, $4, interval_resamples,
         interval_reason, interval_note
  FROM jsonb_to_recordset($5::jsonb) AS r(set_index integer, next_set_index integer,
    psi_low double precision, psi_high double precision, interval_resamples integer,
    interval_reason text, interval_note text))sql";

void store(pg::Connection& conn, const Experiment& e, double target,
           const std::vector<SetAnalysis>& sets, const Analysis& a) {
  // In the order of TargetReading::Status; the CHECK of required_work lists the same.
  static const char* status_names[] = {"found", "below_range", "above_range", "too_few_points",
                                       "within_tolerance"};
  const std::vector<const SetAnalysis*> stored = stored_sets(sets);
  auto required = nlohmann::json::array();
  for (const SetAnalysis* s : stored) {
    const ReportedInterval& i = s->parameter_interval;
    required.push_back(
        {{"set_index", s->set_index},
         {"node_count", s->node_count},
         {"marked_speed", s->marked_speed},
         {"status", status_names[static_cast<int>(s->reading.status)]},
         {"parameter_value", s->reading.has_parameter() ? nlohmann::json(s->reading.parameter)
                                                        : nlohmann::json(nullptr)},
         {"work", optional_json(s->work)},
         {"nearest_efficiency", optional_json(s->nearest_efficiency)},
         {"explanation", s->reading.explanation},
         {"parameter_low", optional_json(i.low)},
         {"parameter_high", optional_json(i.high)},
         {"work_low", optional_json(s->work_low)},
         {"work_high", optional_json(s->work_high)},
         {"interval_resamples", resamples_json(s->resamples)},
         {"interval_reason", optional_json(i.reason)},
         {"interval_note", optional_json(i.note)}});
  }
  auto sizes = nlohmann::json::array();
  for (const SetAnalysis& s : sets)
    for (const SizeEfficiency& size : s.sizes) {
      const MeanEstimate& m = size.efficiency;
      sizes.push_back({{"set_index", s.set_index},
                       {"parameter_value", size.parameter},
                       {"runs", m.count},
                       {"speed_efficiency", m.mean},
                       {"speed_efficiency_low", optional_json(m.low)},
                       {"speed_efficiency_high", optional_json(m.high)},
                       {"interval_reason", optional_json(m.reason)},
                       {"interval_note", optional_json(m.note)}});
    }
  auto psi = nlohmann::json::array();
  for (std::size_t k = 0; k + 1 < stored.size(); ++k) {
    const PsiInterval p = psi_interval(*stored[k], *stored[k + 1], a.interval_level);
    psi.push_back({{"set_index", stored[k]->set_index},
                   {"next_set_index", stored[k + 1]->set_index},
                   {"psi_low", optional_json(p.interval.low)},
                   {"psi_high", optional_json(p.interval.high)},
                   {"interval_resamples", resamples_json(p.resamples)},
                   {"interval_reason", optional_json(p.interval.reason)},
                   {"interval_note", optional_json(p.interval.note)}});
  }
  const std::string level = number(a.interval_level);
  conn.exec(
      "DELETE FROM hetscale.required_work WHERE experiment_id = $1 AND target_efficiency = $2",
      {e.id, number(target)});
  conn.exec(insert_required_work,
            {e.id, number(target), level, a.parameter_interval_method, required.dump()});
  conn.exec("DELETE FROM hetscale.efficiency_intervals WHERE experiment_id = $1", {e.id});
  conn.exec(insert_efficiency_intervals, {e.id, level, a.efficiency_interval_method, sizes.dump()});
  conn.exec(
      "DELETE FROM hetscale.psi_intervals WHERE experiment_id = $1 AND target_efficiency = $2",
      {e.id, number(target)});
  conn.exec(insert_psi_intervals,
            {e.id, number(target), level, a.parameter_interval_method, psi.dump()});
}

std::vector<PsiPair> psi_pairs(pg::Connection& conn, const Experiment& e, double target) {
  const pg::Result r = conn.exec(R"sql(
    SELECT set_index, next_set_index, marked_speed, next_marked_speed, work, next_work, psi,
           psi_low, psi_high, psi_interval_reason, psi_interval_note
    FROM hetscale.set_psi WHERE experiment_id = $1 AND target_efficiency = $2
    ORDER BY set_index)sql",
                                 {e.id, number(target)});
  std::vector<PsiPair> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back({static_cast<int>(r.integer(i, 0)), static_cast<int>(r.integer(i, 1)),
                   r.number(i, 2), r.number(i, 3), r.optional_number(i, 4), r.optional_number(i, 5),
                   r.optional_number(i, 6), r.optional_number(i, 7), r.optional_number(i, 8),
                   r.is_null(i, 9) ? std::string() : std::string(r.text(i, 9)),
                   r.is_null(i, 10) ? std::string() : std::string(r.text(i, 10))});
  }
  return out;
}

}  // namespace

Analysis analyze(pg::Connection& conn, const std::string& name, double target, double tolerance,
                 std::size_t resamples) {
  if (!(target > 0 && target <= 1)) throw Error("analyze: --target must be in (0, 1]");
  if (!(tolerance >= 0 && tolerance < 1)) throw Error("analyze: --tolerance must be in [0, 1)");
  // One snapshot for every read; the rows stored from them go in in the same transaction.
  pg::Transaction tx(conn, pg::TransactionMode::repeatable_read);
  const Experiment e = experiment(conn, name);
  const Workload workload = Workload::parse(e.workload);
  const auto points = points_by_set(conn, e.id);
  if (points.empty()) throw Error(no_efficiency_reason(conn, e.id, name));
  const auto facts = set_facts(conn, e.id);
  Analysis out;
  out.experiment = name;
  out.parameter = e.parameter;
  out.workload = e.workload;
  out.speed_unit = e.speed_unit;
  out.target_efficiency = target;
  out.tolerance = tolerance;
  out.parameter_interval_method = std::string(residual_bootstrap_method);
  out.efficiency_interval_method = std::string(mean_t_interval_method);
  out.resamples = resamples;
  for (const auto& [index, set_points] : points) {
    auto it = facts.find(index);
    BootstrapOptions options;
    options.resamples = resamples;
    options.level = out.interval_level;
    options.seed = required_parameter_seed(name, index, target);
    out.sets.push_back(analyze_set(index, set_points, it == facts.end() ? SetFacts{} : it->second,
                                   e, workload, target, tolerance, options));
  }
  store(conn, e, target, out.sets, out);
  out.psi = psi_pairs(conn, e, target);
  tx.commit();
  return out;
}

AnalyzeSnapshot read_analyze_snapshot(pg::Connection& conn, const std::string& experiment,
                                      const AnalyzeSnapshotRequest& request) {
  AnalyzeSnapshot out;
  pg::Transaction snapshot(conn, pg::TransactionMode::snapshot);  // export and tolerance agree
  if (request.extrap) out.extrap = export_extrap(conn, experiment);
  if (request.refine_tolerance) {
    const auto stored = read_stored_experiment(conn, experiment);
    if (stored && stored->latest_round) out.refine_tolerance = stored->latest_round->refine_tolerance;
  }
  snapshot.commit();
  return out;
}

}  // namespace hetscale::collector
