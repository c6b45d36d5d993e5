// `hetscale analyze --export extrap FILE`: runs as Extra-P JSON Lines.
#include "hetscale/collector/extrap_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "hetscale/base/error.hpp"
#include "hetscale/collector/experiment_lookup.hpp"

namespace hetscale::collector {
namespace {

struct ExportedExperiment {
  std::string id;
  std::string parameter;
};

ExportedExperiment exported_experiment(pg::Connection& conn, const std::string& name) {
  const std::optional<long long> id = find_experiment(conn, name);
  if (!id) throw Error("analyze: no experiment '" + name + "' in the database");
  const pg::Result r = conn.exec(
      "SELECT experiment_id, parameter FROM hetscale.experiments WHERE experiment_id = $1",
      {std::to_string(*id)});
  if (r.is_null(0, 1)) {
    throw Error("analyze: experiment '" + name +
                "' has no parameter: load its plan file before exporting");
  }
  ExportedExperiment e{std::string(r.text(0, 0)), std::string(r.text(0, 1))};
  if (e.parameter == extrap_processors_parameter) {
    throw Error("analyze: experiment '" + name + "' has a parameter named '" + e.parameter +
                "', the name the export gives the processor count");
  }
  return e;
}

struct Run {
  int set_index;
  std::string code;
  double parameter;
  double seconds;
  long long processors;
};

std::string line(const std::string& callpath, nlohmann::json params, double seconds) {
  const nlohmann::json j = {
      {"params", std::move(params)}, {"callpath", callpath}, {"metric", "time"}, {"value", seconds}};
  return j.dump() + '\n';
}

// The (p, parameter) grid: Extra-P needs every point of it measured, so only the sizes
// every set measured count, and each set must stand for one processor count of its own.
void write_grid(const std::vector<Run>& runs, const std::string& parameter, ExtrapExport& out) {
  std::map<int, std::set<double>> sizes;
  std::map<int, std::set<long long>> processors;
  for (const Run& r : runs) {
    sizes[r.set_index].insert(r.parameter);
    processors[r.set_index].insert(r.processors);
  }
  if (sizes.size() < extrap_min_values) {
    out.grid_refusal = fmt::format("{} machine set{} measured, Extra-P needs {} values of p",
                                   sizes.size(), sizes.size() == 1 ? "" : "s", extrap_min_values);
    return;
  }
  std::set<long long> distinct;
  for (const auto& [set, ps] : processors) {
    if (ps.size() != 1) {
      out.grid_refusal = fmt::format("set {} has runs with different processor counts", set);
      return;
    }
    if (!distinct.insert(*ps.begin()).second) {
      out.grid_refusal = fmt::format("set {} has the processor count of an earlier set ({})", set,
                                     *ps.begin());
      return;
    }
  }
  std::set<double> common = sizes.begin()->second;
  for (const auto& [set, s] : sizes) {
    std::set<double> both;
    std::set_intersection(common.begin(), common.end(), s.begin(), s.end(),
                          std::inserter(both, both.end()));
    common = std::move(both);
  }
  if (common.size() < extrap_min_values) {
    out.grid_refusal = fmt::format(
        "{} value{} of {} measured on every set, Extra-P needs {} (plan the study with "
        "[parameter] same_on_every_set = true)",
        common.size(), common.size() == 1 ? "" : "s", parameter, extrap_min_values);
    return;
  }
  for (const Run& r : runs) {
    if (!common.contains(r.parameter)) continue;
    out.grid += line(r.code, {{extrap_processors_parameter, r.processors}, {parameter, r.parameter}},
                     r.seconds);
    ++out.grid_runs;
  }
}

}  // namespace

ExtrapExport export_extrap(pg::Connection& conn, const std::string& experiment) {
  const ExportedExperiment e = exported_experiment(conn, experiment);
  // p = the run's ranks (processes); runs without the parameter or a set, and runs whose
  // step failed, are left out. The runs are the caller's own (own_runs: their code, a
  // command line, is private; an administrator's: all).
  const pg::Result r = conn.exec(R"sql(
    SELECT r.set_index, r.code, (r.parameters ->> $2)::double precision, r.wall_seconds,
           (SELECT count(*) FROM hetscale.rank_timings t WHERE t.run_id = r.run_id)
    FROM hetscale.own_runs r
    WHERE r.experiment_id = $1 AND r.parameters ? $2 AND r.set_index IS NOT NULL
      AND coalesce(r.exit_status, 0) = 0
    ORDER BY r.set_index, 3, r.repetition, r.run_id)sql",
                                 {e.id, e.parameter});
  std::vector<Run> runs;
  runs.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    runs.push_back(Run{static_cast<int>(r.integer(i, 0)), std::string(r.text(i, 1)), r.number(i, 2),
                       r.number(i, 3), r.integer(i, 4)});
  }
  ExtrapExport out;
  for (const Run& run : runs) {
    if (out.sets.empty() || out.sets.back().set_index != run.set_index)
      out.sets.push_back(ExtrapSetFile{run.set_index, {}, 0});
    ExtrapSetFile& f = out.sets.back();
    f.lines += line(fmt::format("{}.set{}", run.code, run.set_index), {{e.parameter, run.parameter}},
                    run.seconds);
    ++f.runs;
  }
  write_grid(runs, e.parameter, out);
  return out;
}

std::filesystem::path extrap_set_path(const std::filesystem::path& file, int set_index) {
  std::filesystem::path out = file;
  out.replace_filename(fmt::format("{}.set{}{}", file.stem().string(), set_index,
                                   file.extension().string()));
  return out;
}

}  // namespace hetscale::collector
