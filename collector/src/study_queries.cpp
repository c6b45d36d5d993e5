#include "hetscale/collector/study_queries.hpp"

#include <fmt/format.h>

namespace hetscale::collector {

std::optional<EqualizeChoice> equalize_choice(pg::Connection& conn, const std::string& experiment) {
  const pg::Result r = conn.exec(R"sql(
WITH largest AS (
  SELECT max(set_index) AS set_index FROM hetscale.run_efficiency WHERE experiment = $1
), chosen AS (
  SELECT e.set_index, e.parameter_value FROM hetscale.run_efficiency e JOIN largest USING (set_index)
  WHERE e.experiment = $1
  GROUP BY e.set_index, e.parameter_value HAVING count(*) >= 2
  ORDER BY count(*) DESC, e.parameter_value DESC LIMIT 1
)
SELECT c.set_index, c.parameter_value, avg(e.wall_seconds)
FROM chosen c JOIN hetscale.run_efficiency e
  ON e.experiment = $1 AND e.set_index = c.set_index AND e.parameter_value = c.parameter_value
GROUP BY c.set_index, c.parameter_value
)sql", {experiment});
  if (r.rows() == 0) return std::nullopt;
  return EqualizeChoice{static_cast<int>(r.number(0, 0)), r.number(0, 1), r.number(0, 2)};
}

std::vector<TimeComparison> rerun_comparison(pg::Connection& conn, const std::string& experiment, int set_index,
                                             double parameter, const std::vector<std::uint64_t>& rerun_array_jobs) {
  std::string jobs = "{";
  for (const std::uint64_t id : rerun_array_jobs) jobs += fmt::format("{}{}", jobs.size() > 1 ? "," : "", id);
  jobs += "}";
  const pg::Result r = conn.exec(R"sql(
SELECT 'measured ' || r.weights_source, count(*), avg(r.wall_seconds)
FROM hetscale.runs r JOIN hetscale.experiments e USING (experiment_id)
WHERE e.name = $1 AND r.set_index = $2::int AND (r.parameters ->> e.parameter)::double precision = $3::double precision
  AND r.slurm_array_job_id = ANY($4::bigint[]) AND coalesce(r.exit_status, 0) = 0
GROUP BY r.weights_source
UNION ALL
SELECT DISTINCT 'simulated ' || method, NULL::bigint, simulated_tau
FROM hetscale.latest_partitions WHERE experiment = $1 AND set_index = $2::int
ORDER BY 1
)sql", {experiment, fmt::format("{}", set_index), fmt::format("{}", parameter), jobs});
  std::vector<TimeComparison> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back({std::string(r.text(i, 0)),
                   r.is_null(i, 1) ? std::nullopt : std::optional<long long>(static_cast<long long>(r.number(i, 1))),
                   r.number(i, 2)});
  return out;
}

}  // namespace hetscale::collector
