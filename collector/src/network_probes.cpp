// Network probes into and out of the database (network_probes.hpp).
#include "hetscale/collector/network_probes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "hetscale/base/error.hpp"
#include "hetscale/base/json_fields.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/base/sha256.hpp"
#include "hetscale/collector/experiment_lookup.hpp"

namespace hetscale::collector {
namespace {

constexpr std::size_t max_probe_bytes = std::size_t{64} << 20;

std::string number(double value) { return fmt::format("{}", value); }

std::optional<std::string> optional_number(std::optional<double> value) {
  return value ? std::optional<std::string>(number(*value)) : std::nullopt;
}

// The columns of a point-to-point fit: the first segment's latency (us), the last
// segment's bandwidth (MB/s, none when its time does not grow with the size), the segments.
struct PointToPointColumns {
  std::optional<double> latency_us, bandwidth_mbps, segments;
};
PointToPointColumns columns_of(const std::optional<PointToPointProbe>& p) {
  if (!p) return {};
  const auto& segments = p->fit.segments;
  const double per_byte = segments.back().seconds_per_byte;
  return {1e6 * segments.front().latency_seconds,
          per_byte > 0 ? std::optional<double>(1e-6 / per_byte) : std::nullopt,
          static_cast<double>(segments.size())};
}

std::optional<std::string> whole(std::optional<double> value) {
  return value ? std::optional<std::string>(fmt::format("{:.0f}", *value)) : std::nullopt;
}

constexpr const char* select_columns = R"sql(
  SELECT p.probe_id, COALESCE(x.name, ''), p.site, p.engine, p.machine_set,
         array_to_json(p.node_list)::text, p.processes,
         COALESCE(to_char(p.measured_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''),
         p.source_file, p.document::text
  FROM hetscale.network_probes p
  LEFT JOIN hetscale.experiments x ON x.experiment_id = p.experiment_id)sql";

constexpr const char* order_columns = " ORDER BY p.processes, p.measured_at DESC NULLS LAST, p.probe_id DESC";

std::vector<StoredProbe> stored_probes(const pg::Result& r) {
  std::vector<StoredProbe> out;
  for (int i = 0; i < r.rows(); ++i) {
    StoredProbe p;
    p.probe_id = r.integer(i, 0);
    p.experiment = std::string(r.text(i, 1));
    p.site = std::string(r.text(i, 2));
    p.engine = std::string(r.text(i, 3));
    if (!r.is_null(i, 4)) p.machine_set = static_cast<int>(r.integer(i, 4));
    p.nodes = nlohmann::json::parse(r.text(i, 5)).get<std::vector<std::string>>();
    p.processes = static_cast<int>(r.integer(i, 6));
    p.measured_at = std::string(r.text(i, 7));
    p.source_file = std::string(r.text(i, 8));
    const std::string source = fmt::format("network probe {} ({})", p.probe_id, p.source_file);
    const CommbenchOutput output = parse_commbench_output(std::string(r.text(i, 9)), source);
    if (!output.probe) throw Error(source + ": the stored document holds no probe");
    p.probe = *output.probe;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

bool is_probe_file(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.size() > probe_file_ending.size() && name.ends_with(probe_file_ending);
}

ProbeFile read_probe_file(const std::filesystem::path& path) {
  ProbeFile file;
  file.source = path.string();
  file.text = read_regular_file(path, max_probe_bytes);
  CommbenchOutput output = parse_commbench_output(file.text, file.source);
  if (!output.probe)
    throw Error(file.source +
                ": no network probe (a hetscale-commbench output without 'probe_version', written before its "
                "probe): nothing to store");
  try {
    json_fields::require_jsonb_safe(nlohmann::json::parse(file.text), "the document");
  } catch (const Error& e) {
    throw Error(file.source + ": " + e.what());
  }
  file.probe = std::move(*output.probe);
  return file;
}

long long load_probe(pg::Connection& conn, const ProbeFile& file) {
  const NetworkProbe& probe = file.probe;
  pg::Transaction tx(conn, pg::TransactionMode::load);
  std::optional<std::string> experiment_id;
  if (!probe.experiment.empty()) {
    const std::optional<long long> id = find_experiment(conn, probe.experiment);
    if (!id)
      throw Error(fmt::format("{}: the probe names experiment '{}', which the database does not hold: collect its "
                              "plan first",
                              file.source, probe.experiment));
    if (conn.exec("SELECT owner = current_user FROM hetscale.experiments WHERE experiment_id = $1",
                  {std::to_string(*id)})
            .text(0, 0) != "t")
      throw Error(fmt::format("{}: the probe names experiment '{}', which is another user's", file.source,
                              probe.experiment));
    experiment_id = std::to_string(*id);
  }
  const PointToPointColumns remote = columns_of(probe.remote), local = columns_of(probe.local);
  std::optional<double> flows, share, alltoall;
  if (probe.saturation) {
    if (!probe.saturation->points.empty()) {
      flows = probe.saturation->points.back().flows;
      share = probe.saturation->per_flow_share(*flows);
    }
    if (probe.saturation->alltoall) alltoall = probe.saturation->alltoall->per_flow_MBps;
  }
  const pg::Result r = conn.exec(
      R"sql(
    INSERT INTO hetscale.network_probes
      (probe_key, experiment_id, site, engine, machine_set, node_list, processes, slurm_job_id, measured_at,
       load, remote_latency_us, remote_bandwidth_mbps, remote_segments, local_latency_us, local_bandwidth_mbps,
       local_segments, saturation_flows, saturation_share, alltoall_per_flow_mbps, collectives, elapsed_seconds,
       document, source_file)
    VALUES (decode($1, 'hex'), $2, $3, $4, $5, ARRAY(SELECT jsonb_array_elements_text($6::jsonb)), $7, $8, $9,
            $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22::jsonb, $23)
    ON CONFLICT (owner, probe_key) DO NOTHING)sql",
      {to_hex(sha256(file.text)), experiment_id, probe.site, probe.engine,
       probe.machine_set ? std::optional<std::string>(std::to_string(*probe.machine_set)) : std::nullopt,
       nlohmann::json(probe.nodes()).dump(), std::to_string(probe.processes()),
       probe.slurm_job_id ? std::optional<std::string>(std::to_string(*probe.slurm_job_id)) : std::nullopt,
       probe.measured_at.empty() ? std::nullopt : std::optional<std::string>(probe.measured_at), probe.load,
       optional_number(remote.latency_us), optional_number(remote.bandwidth_mbps), whole(remote.segments),
       optional_number(local.latency_us), optional_number(local.bandwidth_mbps), whole(local.segments),
       whole(flows), optional_number(share), optional_number(alltoall), std::to_string(probe.collectives.size()),
       number(probe.elapsed_seconds), file.text, file.source});
  tx.commit();
  return r.affected();
}

std::vector<StoredProbe> experiment_probes(pg::Connection& conn, const std::string& name) {
  const std::optional<long long> id = find_experiment(conn, name);
  if (!id) throw Error(fmt::format("experiment '{}' is not in the database", name));
  const std::string sql = std::string(select_columns) + R"sql(
  WHERE p.experiment_id = $1
     OR (p.experiment_id IS NULL
         AND p.site = (SELECT COALESCE(s.name, '') FROM hetscale.experiments e
                       LEFT JOIN hetscale.sites s USING (site_id) WHERE e.experiment_id = $1)
         AND p.engine IN (SELECT engine FROM hetscale.runs WHERE experiment_id = $1
                          UNION ALL
                          SELECT unnest(ARRAY['slurm', 'mpirun'])
                          WHERE NOT EXISTS (SELECT FROM hetscale.runs WHERE experiment_id = $1))
         AND (SELECT array_agg(v ORDER BY v) FROM unnest(p.node_list) v) IN (
               SELECT array_agg(n.name ORDER BY n.name)
               FROM hetscale.machine_sets ms
               JOIN hetscale.machine_set_members m USING (machine_set_id)
               JOIN hetscale.nodes n USING (node_id)
               WHERE ms.experiment_id = $1
               GROUP BY ms.machine_set_id)))sql" +
                          order_columns;
  return stored_probes(conn.exec(sql, {std::to_string(*id)}));
}

std::vector<StoredProbe> site_probes(pg::Connection& conn, const std::string& site,
                                     const std::optional<std::string>& engine) {
  const std::string sql =
      std::string(select_columns) + " WHERE p.site = $1 AND ($2::text IS NULL OR p.engine = $2)" + order_columns;
  return stored_probes(conn.exec(sql, {site, engine}));
}

const StoredProbe* probe_for_processes(const std::vector<StoredProbe>& probes, int processes) {
  const StoredProbe* latest = nullptr;
  for (const StoredProbe& p : probes) {
    if (p.processes != processes) continue;
    if (latest == nullptr || p.measured_at > latest->measured_at) latest = &p;
  }
  return latest;
}

}  // namespace hetscale::collector
