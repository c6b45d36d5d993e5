// Reading a set's rank timings for the equalization, storing partitions.
#include "hetscale/collector/partitions.hpp"

#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hetscale/collector/experiment_lookup.hpp"

namespace hetscale::collector {
namespace {

std::string number(double value) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

struct Configuration {
  double parameter = 0;
  std::size_t runs = 0;
};

// Parameter values of the set's runs, most repeated first, then largest first.
std::vector<Configuration> configurations(pg::Connection& conn, long long experiment_id,
                                          int set_index) {
  const pg::Result r = conn.exec(R"sql(
    SELECT parameter_value, count(*) FROM hetscale.run_efficiency
    WHERE experiment_id = $1 AND set_index = $2 AND parameter_value IS NOT NULL
    GROUP BY parameter_value ORDER BY count(*) DESC, parameter_value DESC)sql",
                                 {std::to_string(experiment_id), std::to_string(set_index)});
  std::vector<Configuration> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back({r.number(i, 0), static_cast<std::size_t>(r.integer(i, 1))});
  return out;
}

Configuration choose(const std::vector<Configuration>& measured, std::optional<double> wanted,
                     const std::string& where, std::string& choice) {
  if (!wanted) {
    choice = fmt::format("the most repeated configuration ({} runs)", measured.front().runs);
    return measured.front();
  }
  for (const auto& c : measured)
    if (c.parameter == *wanted) {
      choice = fmt::format("given by --parameter ({} runs)", c.runs);
      return c;
    }
  std::vector<std::string> values;
  for (const auto& c : measured) values.push_back(fmt::format("{:g} ({} runs)", c.parameter, c.runs));
  throw Error(fmt::format("{} has no run at --parameter {:g}; measured: {}", where, *wanted,
                          fmt::join(values, ", ")));
}

}  // namespace

SetTimings load_set_timings(pg::Connection& conn, const std::string& experiment, int set_index,
                            std::optional<double> parameter) {
  const std::optional<long long> id = find_experiment(conn, experiment);
  if (!id) throw Error("no experiment '" + experiment + "' in the database");
  const pg::Result e = conn.exec(
      "SELECT experiment_id, parameter FROM hetscale.experiments WHERE experiment_id = $1",
      {std::to_string(*id)});
  SetTimings out;
  out.experiment_id = e.integer(0, 0);
  out.parameter_name = e.is_null(0, 1) ? "parameter" : std::string(e.text(0, 1));
  const std::string where = fmt::format("experiment '{}' set {}", experiment, set_index);
  const auto measured = configurations(conn, out.experiment_id, set_index);
  if (measured.empty()) throw Error(where + " has no runs with a parameter value");
  const Configuration chosen = choose(measured, parameter, where, out.choice);
  out.parameter = chosen.parameter;
  out.runs = chosen.runs;
  const pg::Result r = conn.exec(R"sql(
    SELECT t.run_id, t.host, t.weight, re.work, t.compute_seconds
    FROM hetscale.run_efficiency re JOIN hetscale.rank_timings t USING (run_id)
    WHERE re.experiment_id = $1 AND re.set_index = $2 AND re.parameter_value = $3
    ORDER BY t.run_id, t.rank)sql",
                                 {std::to_string(out.experiment_id), std::to_string(set_index),
                                  number(out.parameter)});
  for (int i = 0; i < r.rows(); ++i)
    out.ranks.push_back(
        {r.integer(i, 0), std::string(r.text(i, 1)), r.number(i, 2), r.number(i, 3), r.number(i, 4)});
  if (out.ranks.empty()) throw Error(where + ": its runs have no rank timings");
  return out;
}

std::vector<MeasuredAvailability> load_host_availability(pg::Connection& conn,
                                                         long long experiment_id,
                                                         const std::vector<std::string>& hosts) {
  std::string names = "{";
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    names += i ? ",\"" : "\"";
    for (char c : hosts[i]) {
      if (c == '"' || c == '\\') names += '\\';
      names += c;
    }
    names += '"';
  }
  names += "}";
  const pg::Result r = conn.exec(R"sql(
    SELECT DISTINCT ON (a.node) a.node, a.th, a.correlation_seconds
    FROM hetscale.node_availability_th a
    JOIN hetscale.nodes n USING (node_id)
    LEFT JOIN hetscale.experiments e ON e.experiment_id = $1
    WHERE a.node = ANY($2::text[]) AND (e.site_id IS NULL OR n.site_id = e.site_id)
    ORDER BY a.node, a.observed_at DESC)sql",
                                 {std::to_string(experiment_id), names});
  std::vector<MeasuredAvailability> out;
  for (int i = 0; i < r.rows(); ++i) {
    MeasuredAvailability a{std::string(r.text(i, 0)), r.number(i, 1), std::nullopt};
    if (!r.is_null(i, 2)) a.correlation_seconds = r.number(i, 2);
    out.push_back(std::move(a));
  }
  return out;
}

long long store_partition(pg::Connection& conn, const StoredPartition& p) {
  auto optional_text = [](const auto& value) -> std::optional<std::string> {
    if (!value) return std::nullopt;
    if constexpr (std::is_same_v<std::decay_t<decltype(*value)>, std::string>) return *value;
    else return std::to_string(*value);
  };
  const pg::Result r = conn.exec(R"sql(
    INSERT INTO hetscale.partitions (experiment_id, set_index, method, seconds, node_list,
      degree_of_equalization, simulated_tau, simulated_sigma, simulated_risk, file_name)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING partition_id)sql",
                                 {optional_text(p.experiment_id), optional_text(p.set_index),
                                  p.method, number(p.seconds), p.node_list,
                                  number(p.degree_of_equalization), number(p.simulated_tau),
                                  number(p.simulated_sigma), number(p.simulated_risk),
                                  optional_text(p.file_name)});
  const long long id = r.integer(0, 0);
  for (const auto& s : p.shares)
    conn.exec(R"sql(
      INSERT INTO hetscale.partition_shares (partition_id, host, share, mean_seconds_per_op,
        sd_seconds_per_op, expected_seconds) VALUES ($1, $2, $3, $4, $5, $6))sql",
              {std::to_string(id), s.host, number(s.share), number(s.mean_seconds_per_op),
               number(s.sd_seconds_per_op), number(s.expected_seconds)});
  return id;
}

}  // namespace hetscale::collector
