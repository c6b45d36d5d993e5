// The report's reads of the documented views (docs/dashboards.md), in one snapshot.
#include "hetscale/collector/report_views.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "hetscale/base/error.hpp"
#include "hetscale/collector/migrations.hpp"

namespace hetscale::collector {
namespace {

/// Schema version the views come from (migration 0009: TH and SH from availability).
constexpr int kReportSchemaVersion = 9;

/// Schema version from which run_efficiency has the runs' engine (migration 0008): older
/// databases have no twin runs, so their reports pair no twins.
constexpr int kTwinSchemaVersion = 8;

/// Schema version from which the views carry experiment_owner and experiment_cluster
/// (migration 0012): older databases key experiments by name alone.
constexpr int kOwnerSchemaVersion = 12;

/// Schema version from which set_time_split exists (migration 0018): older databases'
/// reports show no split of the run time.
constexpr int kTimeSplitSchemaVersion = 18;

/// Schema version from which the views carry the figures' intervals (migration 0021):
/// older databases' reports show the figures without them.
constexpr int kIntervalSchemaVersion = 21;

/// Schema version from which capacity_forecast carries the forecast rows' intervals
/// (migration 0022): older databases' reports show the forecasts without them.
constexpr int kForecastIntervalSchemaVersion = 22;

/// Schema version from which the views carry the short reason a figure has no interval,
/// and set_psi the level, method and resamples of psi's interval (migration 0023).
constexpr int kIntervalReasonSchemaVersion = 23;

/// Schema version from which capacity_forecast carries the short reason a forecast's
/// figure has no interval (migration 0024).
constexpr int kForecastIntervalReasonSchemaVersion = 24;

/// Schema version from which set_required_work carries the precision and budget of runs
/// per set the experiment's latest plan asks of its refinement (migration 0025).
constexpr int kRefinePrecisionSchemaVersion = 25;
// The groups' hardware and kinds of core (node_map's group_hardware, group_cpu_kind_speeds).
constexpr int kGroupHardwareSchemaVersion = 27;

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

/// The views' experiment key as the first three columns of a query ({key} in its text):
/// experiment, experiment_owner, experiment_cluster; the last two '' in a database whose
/// views have no owners (before kOwnerSchemaVersion), where experiments go by name alone.
class Views {
 public:
  Views(pg::Connection& conn, int version) : conn_(conn), owners_(version >= kOwnerSchemaVersion) {}
  /// Runs `sql` with {key} replaced by the key's columns.
  pg::Result exec(const char* sql) const {
    return conn_.exec(fmt::format(
        fmt::runtime(sql),
        fmt::arg("key", owners_ ? "experiment, experiment_owner, experiment_cluster"
                                : "experiment, ''::text AS experiment_owner, "
                                  "''::text AS experiment_cluster")));
  }
  /// The key of row `row` (columns 0 to 2).
  static ExperimentKey key(const pg::Result& r, int row) {
    return {text(r, row, 0), text(r, row, 1), text(r, row, 2)};
  }

 private:
  pg::Connection& conn_;
  bool owners_;
};

/// First column after the key.
constexpr int k = 3;

/// The chosen experiments by key; a NULL name (column 0) is the entry of partitions
/// computed from input files. Each view is read once for all experiments: the views
/// aggregate before they can filter by name (TH over every rank timing), so one query per
/// experiment would repeat that work.
class Chosen {
 public:
  explicit Chosen(ReportData& data) {
    auto add = [&](ExperimentData& e) { by_key_[{e.name, e.owner, e.cluster}] = &e; };
    for (auto& e : data.experiments) {
      if (e.from_files)
        from_files_ = &e;
      else
        add(e);
    }
    for (auto& pair : data.twins) add(pair.twin);
  }
  /// The experiment of the row's key, or nullptr when it was not chosen.
  ExperimentData* operator()(const pg::Result& r, int row) const {
    if (r.is_null(row, 0)) return from_files_;
    const auto at = by_key_.find(Views::key(r, row));
    return at == by_key_.end() ? nullptr : at->second;
  }

 private:
  std::map<ExperimentKey, ExperimentData*> by_key_;
  ExperimentData* from_files_ = nullptr;
};

/// The problem parameter's name: the key of `parameters` whose value is always the run's
/// parameter_value (run_efficiency carries the value, not the name). Empty if ambiguous.
void read_parameter_names(const Views& views, const Chosen& chosen) {
  const pg::Result r = views.exec(R"(
      SELECT experiment, experiment_owner, experiment_cluster, min(key), count(*) FROM (
        SELECT {key}, p.key FROM hetscale.run_efficiency r
        CROSS JOIN LATERAL jsonb_each(r.parameters) p
        WHERE r.parameter_value IS NOT NULL
        GROUP BY 1, 2, 3, p.key
        HAVING bool_and(jsonb_typeof(p.value) = 'number'
                        AND (p.value::text)::double precision = r.parameter_value)) k
      GROUP BY 1, 2, 3)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i); e && r.integer(i, k + 1) == 1)
      e->parameter = text(r, i, k);
}

void read_speed_units(const Views& views, const Chosen& chosen) {
  const pg::Result r = views.exec(R"(
      SELECT DISTINCT ON (1, 2, 3) {key}, speed_unit FROM hetscale.run_efficiency
      WHERE speed_unit IS NOT NULL
      GROUP BY 1, 2, 3, speed_unit ORDER BY 1, 2, 3, count(*) DESC, speed_unit)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i)) e->speed_unit = text(r, i, k);
}

/// What a database's views say of the figures' intervals: nothing before migration 21;
/// bounds and notes from 21; the short reasons, and psi's level, method and resamples,
/// from 23.
enum class IntervalColumns { none, notes, reasons };

IntervalColumns interval_columns(int version) {
  if (version >= kIntervalReasonSchemaVersion) return IntervalColumns::reasons;
  return version >= kIntervalSchemaVersion ? IntervalColumns::notes : IntervalColumns::none;
}

/// The same of capacity_forecast: bounds and notes from migration 22, reasons from 24.
IntervalColumns forecast_interval_columns(int version) {
  if (version >= kForecastIntervalReasonSchemaVersion) return IntervalColumns::reasons;
  return version >= kForecastIntervalSchemaVersion ? IntervalColumns::notes
                                                   : IntervalColumns::none;
}

/// The columns of a view's interval, as read: low, high, level, method, resamples,
/// reason, note. Before migration 23 a note without bounds stands for the reason, as the
/// report showed it then; before migration 21 every column is NULL.
struct IntervalSql {
  const char* bounds;     // "low, high"
  const char* details;    // "level, method, resamples" of the view, from `since` on
  const char* reason;     // the view's reason column
  const char* note;       // the view's note column
  IntervalColumns since;  // the version whose views have `details`
};

std::string interval_sql(IntervalColumns columns, const IntervalSql& sql) {
  if (columns == IntervalColumns::none)
    return "NULL::float8, NULL::float8, NULL::float8, NULL::text, NULL::bigint, NULL::text, "
           "NULL::text";
  const std::string details = columns >= sql.since
                                  ? sql.details
                                  : "NULL::float8, NULL::text, NULL::bigint";
  if (columns == IntervalColumns::reasons)
    return fmt::format("{}, {}, {}, {}", sql.bounds, details, sql.reason, sql.note);
  const std::string bounds(sql.bounds);
  const std::string low = bounds.substr(0, bounds.find(','));
  const std::string high = bounds.substr(bounds.rfind(' ') + 1);
  return fmt::format("{}, {}, CASE WHEN {} IS NULL AND {} IS NULL THEN {} END, {}", sql.bounds,
                     details, low, high, sql.note, sql.note);
}

/// A figure's interval from the seven columns interval_sql reads from `column` on, or
/// `bounds` given apart (work's bounds beside the parameter's): none before migration 21
/// or where the view gives neither bounds nor a reason nor a note.
OptionalInterval interval_of(const pg::Result& r, int row, int column,
                             std::optional<std::pair<int, int>> bounds = std::nullopt) {
  const int low_column = bounds ? bounds->first : column;
  const int high_column = bounds ? bounds->second : column + 1;
  Interval out{r.optional_number(row, column + 2).value_or(0), r.optional_number(row, low_column),
               r.optional_number(row, high_column), text(r, row, column + 5),
               text(r, row, column + 6), text(r, row, column + 3),
               r.is_null(row, column + 4) ? std::nullopt
                                          : std::optional<long long>(r.integer(row, column + 4))};
  if (!out.low && !out.high && out.reason.empty() && out.detail.empty()) return std::nullopt;
  return out;
}

void read_curves(const Views& views, const Chosen& chosen, IntervalColumns columns) {
  const pg::Result r = views.exec(
      fmt::format(R"(
      SELECT {{key}}, set_index, parameter_value, runs, work, speed_efficiency,
             min_speed_efficiency, max_speed_efficiency, stddev_speed_efficiency, {}
      FROM hetscale.set_efficiency_curve ORDER BY 1, 2, 3, set_index, parameter_value)",
                  interval_sql(columns, {"speed_efficiency_low, speed_efficiency_high",
                                         "interval_level, interval_method, NULL::bigint",
                                         "speed_efficiency_interval_reason",
                                         "speed_efficiency_interval_note",
                                         IntervalColumns::notes}))
          .c_str());
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->curve.push_back({small(r, i, k), r.number(i, k + 1), r.integer(i, k + 2),
                          r.number(i, k + 3), r.number(i, k + 4), r.number(i, k + 5),
                          r.number(i, k + 6), r.optional_number(i, k + 7),
                          interval_of(r, i, k + 8)});
}

void read_time_split(const Views& views, const Chosen& chosen) {
  const pg::Result r = views.exec(R"(
      SELECT {key}, set_index, parameter_value, runs, wall_seconds, slowest_compute_seconds,
             outside_compute_seconds
      FROM hetscale.set_time_split ORDER BY 1, 2, 3, set_index, parameter_value)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->time_split.push_back({small(r, i, k), r.number(i, k + 1), r.integer(i, k + 2),
                               r.number(i, k + 3), r.number(i, k + 4), r.number(i, k + 5)});
}

/// `precision`: the view has the refinement's precision and budget (migration 25).
void read_required_work(const Views& views, const Chosen& chosen, IntervalColumns columns,
                        bool precision) {
  const pg::Result r = views.exec(
      fmt::format(R"(
      SELECT {{key}}, set_index, node_count, marked_speed, target_efficiency, status,
             parameter_value, work, nearest_efficiency, explanation, {}, {}, {}
      FROM hetscale.set_required_work ORDER BY 1, 2, 3, target_efficiency, set_index)",
                  interval_sql(columns, {"parameter_low, parameter_high",
                                         "interval_level, interval_method, interval_resamples",
                                         "interval_reason", "interval_note",
                                         IntervalColumns::notes}),
                  columns == IntervalColumns::none ? "NULL::float8, NULL::float8"
                                                   : "work_low, work_high",
                  precision ? "precision, max_runs_per_set" : "NULL::float8, NULL::int")
          .c_str());
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->required_work.push_back(
          {small(r, i, k), small(r, i, k + 1), r.number(i, k + 2), r.number(i, k + 3),
           text(r, i, k + 4), r.optional_number(i, k + 5), r.optional_number(i, k + 6),
           r.optional_number(i, k + 7), text(r, i, k + 8), interval_of(r, i, k + 9),
           interval_of(r, i, k + 9, std::pair{k + 16, k + 17}), r.optional_number(i, k + 18),
           optional_small(r, i, k + 19)});
}

void read_psi(const Views& views, const Chosen& chosen, IntervalColumns columns) {
  const pg::Result r = views.exec(
      fmt::format(R"(
      SELECT {{key}}, target_efficiency, set_index, next_set_index, marked_speed,
             next_marked_speed, work, next_work, psi, {}
      FROM hetscale.set_psi ORDER BY 1, 2, 3, target_efficiency, set_index)",
                  interval_sql(columns, {"psi_low, psi_high",
                                         "interval_level, interval_method, interval_resamples",
                                         "psi_interval_reason", "psi_interval_note",
                                         IntervalColumns::reasons}))
          .c_str());
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->psi.push_back({r.number(i, k), small(r, i, k + 1), small(r, i, k + 2),
                        r.number(i, k + 3), r.number(i, k + 4), r.optional_number(i, k + 5),
                        r.optional_number(i, k + 6), r.optional_number(i, k + 7),
                        interval_of(r, i, k + 8)});
}

void read_heterogeneity(const Views& views, const Chosen& chosen) {
  const pg::Result th = views.exec(R"(
      SELECT {key}, set_index, host, configurations, runs, time_variability_per_sqrt_s
      FROM hetscale.node_time_variability WHERE time_variability_per_sqrt_s IS NOT NULL
      ORDER BY 1, 2, 3, set_index, host)");
  for (int i = 0; i < th.rows(); ++i)
    if (ExperimentData* e = chosen(th, i))
      e->node_time_variability.push_back({small(th, i, k), text(th, i, k + 1),
                                          th.integer(i, k + 2), th.integer(i, k + 3),
                                          th.number(i, k + 4)});
  const pg::Result sh = views.exec(R"(
      SELECT {key}, set_index, nodes, measured_nodes, max_th, mean_th, sh
      FROM hetscale.set_availability_sh WHERE sh IS NOT NULL
      ORDER BY 1, 2, 3, set_index)");
  for (int i = 0; i < sh.rows(); ++i)
    if (ExperimentData* e = chosen(sh, i))
      e->set_sh.push_back({small(sh, i, k), sh.integer(i, k + 1), sh.integer(i, k + 2),
                           sh.number(i, k + 3), sh.number(i, k + 4), sh.number(i, k + 5)});
}

void read_weights(const Views& views, const Chosen& chosen) {
  const pg::Result r = views.exec(R"(
      SELECT {key}, set_index, parameter_value, weights_source, runs, mean_wall_seconds,
             stddev_wall_seconds
      FROM hetscale.weights_comparison
      ORDER BY 1, 2, 3, set_index, parameter_value, weights_source)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->weights.push_back({small(r, i, k), r.optional_number(i, k + 1), text(r, i, k + 2),
                            r.integer(i, k + 3), r.number(i, k + 4),
                            r.optional_number(i, k + 5)});
}

void read_partitions(const Views& views, const Chosen& chosen) {
  const pg::Result r = views.exec(R"(
      SELECT {key}, partition_id, set_index, method, seconds, node_list,
             degree_of_equalization, simulated_tau, simulated_sigma, simulated_risk, host,
             share, mean_seconds_per_op, sd_seconds_per_op, expected_seconds
      FROM hetscale.latest_partitions ORDER BY 1, 2, 3, set_index, method, host)");
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i))
      e->partitions.push_back(
          {r.integer(i, k), optional_small(r, i, k + 1), text(r, i, k + 2), r.number(i, k + 3),
           text(r, i, k + 4), r.optional_number(i, k + 5), r.optional_number(i, k + 6),
           r.optional_number(i, k + 7), r.optional_number(i, k + 8), text(r, i, k + 9),
           r.number(i, k + 10), r.optional_number(i, k + 11), r.optional_number(i, k + 12),
           r.optional_number(i, k + 13)});
}

void read_forecasts(const Views& views, const Chosen& chosen, IntervalColumns columns) {
  const pg::Result r = views.exec(
      fmt::format(R"(
      SELECT {{key}}, position, target_efficiency, kind, label, set_index, node_count,
             marked_speed, predicted_parameter, predicted_work, predicted_psi,
             measured_parameter, measured_work, relative_error, model, {}, {}, {}
      FROM hetscale.capacity_forecast ORDER BY 1, 2, 3, target_efficiency, position)",
                  interval_sql(columns, {"predicted_parameter_low, predicted_parameter_high",
                                         "interval_level, interval_method, interval_resamples",
                                         "interval_reason", "interval_note",
                                         IntervalColumns::notes}),
                  columns == IntervalColumns::none ? "NULL::float8, NULL::float8"
                                                   : "predicted_work_low, predicted_work_high",
                  interval_sql(columns, {"predicted_psi_low, predicted_psi_high",
                                         "interval_level, interval_method, interval_resamples",
                                         "psi_interval_reason", "psi_interval_note",
                                         IntervalColumns::notes}))
          .c_str());
  for (int i = 0; i < r.rows(); ++i)
    if (ExperimentData* e = chosen(r, i)) {
      Forecast f{small(r, i, k), r.number(i, k + 1), text(r, i, k + 2),
                 text(r, i, k + 3), optional_small(r, i, k + 4),
                 small(r, i, k + 5), r.number(i, k + 6),
                 r.optional_number(i, k + 7), r.optional_number(i, k + 8),
                 r.optional_number(i, k + 9), r.optional_number(i, k + 10),
                 r.optional_number(i, k + 11), r.optional_number(i, k + 12),
                 text(r, i, k + 13)};
      // A figure that is absent has no interval; the parameter's reason and note are the
      // work's too (one bootstrap gives both).
      if (f.predicted_parameter) f.predicted_parameter_interval = interval_of(r, i, k + 14);
      if (f.predicted_work)
        f.predicted_work_interval = interval_of(r, i, k + 14, std::pair{k + 21, k + 22});
      if (f.predicted_psi) f.predicted_psi_interval = interval_of(r, i, k + 23);
      e->forecasts.push_back(std::move(f));
    }
}

std::vector<NodeRow> read_nodes(pg::Connection& conn, int version) {
  const bool hardware = version >= kGroupHardwareSchemaVersion;
  const pg::Result r = conn.exec(fmt::format(R"(
      SELECT site, "group", group_marked_speed, host, processors, marked_speed, speed_unit, state,
             {}
      FROM hetscale.node_map ORDER BY site, "group", host)",
                                             hardware ? "group_hardware" : "NULL"));
  std::vector<NodeRow> nodes;
  for (int i = 0; i < r.rows(); ++i)
    nodes.push_back({text(r, i, 0), text(r, i, 1), r.number(i, 2), text(r, i, 3), small(r, i, 4),
                     r.number(i, 5), text(r, i, 6), text(r, i, 7), text(r, i, 8)});
  return nodes;
}

std::vector<GroupCpuKindRow> read_cpu_kinds(pg::Connection& conn, int version) {
  if (version < kGroupHardwareSchemaVersion) return {};
  const pg::Result r = conn.exec(R"(
      SELECT site, "group", kind, array_to_string(cpus, ','), efficiency, core_type, marked_speed,
             group_marked_speed, speed_unit
      FROM hetscale.group_cpu_kind_speeds ORDER BY site, "group", kind)");
  std::vector<GroupCpuKindRow> kinds;
  for (int i = 0; i < r.rows(); ++i) {
    GroupCpuKindRow kind{text(r, i, 0), text(r, i, 1), small(r, i, 2)};
    const std::string_view list = r.text(i, 3);
    for (const char* at = list.data(); at < list.data() + list.size();) {
      long long cpu = 0;
      at = std::from_chars(at, list.data() + list.size(), cpu).ptr + 1;  // past the comma
      kind.cpus.push_back(cpu);
    }
    kind.efficiency = optional_small(r, i, 4);
    kind.core_type = text(r, i, 5);
    kind.marked_speed = r.number(i, 6);
    kind.group_marked_speed = r.number(i, 7);
    kind.speed_unit = text(r, i, 8);
    kinds.push_back(std::move(kind));
  }
  return kinds;
}

/// The schema version; throws for a database older than the views.
int require_views(pg::Connection& conn) {
  const int version = schema_version(conn);
  if (version < kReportSchemaVersion)
    throw Error(fmt::format(
        "the database is at schema version {}; the report reads the views of version {} "
        "(run 'hetscale db migrate --db URI' first)",
        version, kReportSchemaVersion));
  return version;
}

/// The experiments whose runs are all twin runs.
std::set<ExperimentKey> twin_experiments(const Views& views) {
  const pg::Result r = views.exec(R"(
      SELECT {key} FROM hetscale.run_efficiency
      WHERE experiment IS NOT NULL
      GROUP BY 1, 2, 3 HAVING bool_and(engine = 'simgrid'))");
  std::set<ExperimentKey> keys;
  for (int i = 0; i < r.rows(); ++i) keys.insert(Views::key(r, i));
  return keys;
}

// node_time_variability is left out: it is costly and its experiments all have runs
// with a set, so weights_comparison lists them.
std::vector<ExperimentKey> experiments_with_data(const Views& views) {
  const pg::Result r = views.exec(R"(
      SELECT {key} FROM hetscale.set_efficiency_curve
      UNION SELECT {key} FROM hetscale.set_required_work
      UNION SELECT {key} FROM hetscale.weights_comparison
      UNION SELECT {key} FROM hetscale.latest_partitions WHERE experiment IS NOT NULL
      UNION SELECT {key} FROM hetscale.capacity_forecast
      ORDER BY 1, 2, 3)");
  std::vector<ExperimentKey> keys;
  for (int i = 0; i < r.rows(); ++i) keys.push_back(Views::key(r, i));
  return keys;
}

std::string labels(const std::vector<ExperimentKey>& keys, const std::vector<ExperimentKey>& known) {
  std::vector<std::string> out;
  for (const auto& key : keys) out.push_back(experiment_key_label(key, known));
  return fmt::format("{}", fmt::join(out, ", "));
}

/// The experiments asked for (all with data when none), each once; throws for a name of
/// none or of several.
std::vector<ExperimentKey> choose(const std::vector<ExperimentKey>& known,
                                  const std::vector<std::string>& names) {
  if (names.empty()) return known;
  std::vector<ExperimentKey> chosen;
  for (const auto& name : names)
    if (const ExperimentKey key = find_report_experiment(known, name);
        std::find(chosen.begin(), chosen.end(), key) == chosen.end())
      chosen.push_back(key);
  return chosen;
}

/// The twin of each chosen experiment that has one: the one `given` names, else for E the
/// experiment E + "-twin" of the same owner and cluster when it has data, all its runs are
/// twin runs and `given` does not pair it with another experiment.
std::map<ExperimentKey, ExperimentKey> twin_of(const std::vector<ExperimentKey>& chosen,
                                               const std::vector<ExperimentKey>& known,
                                               const std::set<ExperimentKey>& twins,
                                               const std::map<ExperimentKey, ExperimentKey>& given) {
  std::map<ExperimentKey, ExperimentKey> out;
  for (const auto& key : chosen) {
    const ExperimentKey twin{key.name + kTwinSuffix, key.owner, key.cluster};
    if (const auto at = given.find(key); at != given.end())
      out[key] = at->second;
    else if (twins.contains(twin) && std::find(known.begin(), known.end(), twin) != known.end() &&
             std::none_of(given.begin(), given.end(),
                          [&](const auto& p) { return p.second == twin; }))
      out[key] = twin;
  }
  return out;
}

/// The --twin pairs as experiments. Throws for a name of no experiment with data (or of
/// several), or a twin with a run that is not a twin run.
std::map<ExperimentKey, ExperimentKey> given_twins(const std::vector<ExperimentKey>& known,
                                                   const std::set<ExperimentKey>& twins,
                                                   const std::map<std::string, std::string>& given) {
  std::map<ExperimentKey, ExperimentKey> out;
  for (const auto& [measured, twin] : given) {
    const ExperimentKey twin_key = find_report_experiment(known, twin);
    if (!twins.contains(twin_key))
      throw Error(
          fmt::format("--twin {}={}: not every run of '{}' is a twin run (engine "
                      "'simgrid', stored from migration 8 on)",
                      measured, twin, twin));
    out[find_report_experiment(known, measured)] = twin_key;
  }
  return out;
}

ExperimentData experiment_data(const ExperimentKey& key, const std::vector<ExperimentKey>& known) {
  ExperimentData e;
  e.name = key.name;
  e.owner = key.owner;
  e.cluster = key.cluster;
  e.label = experiment_key_label(key, known);
  return e;
}

/// The chosen experiments (with the measured ones of `given`), each twin paired with its
/// experiment instead of listed on its own.
void add_experiments(ReportData& data, const std::vector<ExperimentKey>& known,
                     const std::vector<std::string>& names, const std::set<ExperimentKey>& twins,
                     const std::map<std::string, std::string>& given) {
  const std::map<ExperimentKey, ExperimentKey> given_keys = given_twins(known, twins, given);
  std::vector<ExperimentKey> chosen = choose(known, names);
  if (!names.empty())
    for (const auto& [measured, twin] : given_keys)
      if (std::find(chosen.begin(), chosen.end(), measured) == chosen.end())
        chosen.push_back(measured);
  const std::map<ExperimentKey, ExperimentKey> pairs = twin_of(chosen, known, twins, given_keys);
  auto paired = [&](const ExperimentKey& key) {
    return std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) { return p.second == key; });
  };
  for (const auto& key : chosen) {
    if (paired(key)) continue;
    const ExperimentData& e = data.experiments.emplace_back(experiment_data(key, known));
    if (const auto at = pairs.find(key); at != pairs.end())
      data.twins.push_back({shown_name(e), experiment_data(at->second, known)});
  }
}

}  // namespace

std::optional<PrecisionCheck> precision_check(const ExperimentData& e, const RequiredWork& work) {
  if (!work.precision) return std::nullopt;
  std::size_t runs = 0;
  for (const CurvePoint& p : e.curve)
    if (p.set_index == work.set_index) runs += static_cast<std::size_t>(p.runs);
  ReportedInterval interval;
  if (work.parameter_value && work.parameter_interval)
    interval = {work.parameter_interval->low, work.parameter_interval->high,
                work.parameter_interval->reason, work.parameter_interval->detail};
  return check_precision(*work.precision, work.parameter_value.value_or(0), interval, runs);
}

std::string experiment_key_label(const ExperimentKey& key, const std::vector<ExperimentKey>& known) {
  bool shared = false;
  bool clusters_differ = false;
  for (const auto& other : known)
    if (other.name == key.name && other != key) {
      shared = true;
      clusters_differ = clusters_differ || other.cluster != key.cluster;
    }
  if (!shared) return key.name;
  const std::string label = key.owner + "/" + key.name;
  return clusters_differ ? key.cluster + ":" + label : label;
}

ExperimentKey find_report_experiment(const std::vector<ExperimentKey>& known,
                                     const std::string& given) {
  std::vector<ExperimentKey> matches;
  for (const auto& key : known)
    if (key.name == given) matches.push_back(key);
  if (matches.empty()) {
    // CLUSTER:OWNER/NAME or OWNER/NAME (an exact name is taken first).
    const auto slash = given.find('/');
    if (slash != std::string::npos) {
      const std::string qualifier = given.substr(0, slash);
      const auto colon = qualifier.find(':');
      const std::string owner = colon == std::string::npos ? qualifier : qualifier.substr(colon + 1);
      for (const auto& key : known)
        if (key.name == given.substr(slash + 1) && key.owner == owner &&
            (colon == std::string::npos || key.cluster == qualifier.substr(0, colon)))
          matches.push_back(key);
    }
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty())
    throw Error(fmt::format("no experiment '{}' in the views of the database ({})", given,
                            known.empty() ? std::string("no experiment has data yet")
                                          : "experiments with data: " + labels(known, known)));
  throw Error(fmt::format("experiment '{}' is ambiguous: {} (name one as {})",
                          given, labels(matches, known),
                          experiment_key_label(matches.front(), known).find(':') ==
                                  std::string::npos
                              ? "OWNER/NAME"
                              : "CLUSTER:OWNER/NAME"));
}

ReportData read_report_data(pg::Connection& conn, const std::vector<std::string>& names,
                            const std::map<std::string, std::string>& twins) {
  pg::Transaction snapshot(conn, pg::TransactionMode::snapshot);  // every view as of one moment
  const int version = require_views(conn);
  const Views views(conn, version);
  ReportData data;
  add_experiments(data, experiments_with_data(views), names,
                  version >= kTwinSchemaVersion ? twin_experiments(views)
                                                : std::set<ExperimentKey>(),
                  twins);
  if (names.empty()) data.experiments.emplace_back().from_files = true;
  const Chosen chosen(data);
  read_parameter_names(views, chosen);
  read_speed_units(views, chosen);
  const IntervalColumns intervals = interval_columns(version);
  read_curves(views, chosen, intervals);
  if (version >= kTimeSplitSchemaVersion) read_time_split(views, chosen);
  read_required_work(views, chosen, intervals, version >= kRefinePrecisionSchemaVersion);
  read_psi(views, chosen, intervals);
  read_heterogeneity(views, chosen);
  read_weights(views, chosen);
  read_partitions(views, chosen);
  read_forecasts(views, chosen, forecast_interval_columns(version));
  if (names.empty() && data.experiments.back().partitions.empty()) data.experiments.pop_back();
  data.nodes = read_nodes(conn, version);
  data.cpu_kinds = read_cpu_kinds(conn, version);
  snapshot.commit();
  return data;
}

}  // namespace hetscale::collector
