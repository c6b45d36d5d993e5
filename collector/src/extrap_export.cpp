// `hetscale analyze --export extrap FILE`: runs as Extra-P JSON Lines.
#include "hetscale/collector/extrap_export.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

#include "hetscale/collector/experiment_lookup.hpp"
#include "hetscale/error.hpp"

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

}  // namespace

std::size_t export_extrap(pg::Connection& conn, const std::string& experiment, std::ostream& out) {
  const ExportedExperiment e = exported_experiment(conn, experiment);
  // p = the run's ranks (processes); runs without the parameter are left out.
  const pg::Result r = conn.exec(R"sql(
    SELECT r.code, (r.parameters ->> $2)::double precision, r.wall_seconds,
           (SELECT count(*) FROM hetscale.rank_timings t WHERE t.run_id = r.run_id)
    FROM hetscale.runs r
    WHERE r.experiment_id = $1 AND r.parameters ? $2
    ORDER BY r.set_index NULLS LAST, 2, r.repetition, r.run_id)sql",
                                 {e.id, e.parameter});
  for (int i = 0; i < r.rows(); ++i) {
    const nlohmann::json line = {
        {"params", {{extrap_processors_parameter, r.integer(i, 3)}, {e.parameter, r.number(i, 1)}}},
        {"callpath", std::string(r.text(i, 0))},
        {"metric", "time"},
        {"value", r.number(i, 2)}};
    out << line.dump() << '\n';
  }
  return static_cast<std::size_t>(r.rows());
}

}  // namespace hetscale::collector
