// One batch of run records into hetscale.runs and hetscale.rank_timings.
#include "hetscale/collector/run_loader.hpp"

#include "hetscale/collector/copy_buffer.hpp"

namespace hetscale::collector {
namespace {

// Temporary, dropped at commit: each batch starts clean, also after a reconnect.
constexpr const char* create_staging = R"sql(
CREATE TEMP TABLE staging_runs (
  batch_row integer, identity text, experiment text, code text, workload text,
  parameters jsonb, work double precision, wall_seconds double precision,
  marked_speed double precision, speed_unit text, weights_source text, set_index integer,
  repetition integer, slurm_job_id bigint, slurm_array_job_id bigint,
  slurm_array_task_id bigint, slurm_step_id bigint, node_list text, start_time timestamptz,
  end_time timestamptz, verified boolean, fingerprint jsonb, source_file text,
  source_line integer
) ON COMMIT DROP;
CREATE TEMP TABLE staging_ranks (
  batch_row integer, rank integer, host text, weight double precision,
  marked_speed double precision, compute_seconds double precision,
  communication_seconds double precision, wall_seconds double precision
) ON COMMIT DROP;)sql";

// Experiments first, then runs in run_key order: concurrent loaders take row locks in the
// same order and cannot deadlock. Rank rows go in only for runs added now.
constexpr const char* insert_experiments = R"sql(
INSERT INTO hetscale.experiments (name)
SELECT DISTINCT experiment FROM staging_runs ORDER BY 1
ON CONFLICT (name) DO NOTHING)sql";

constexpr const char* insert_runs = R"sql(
WITH keyed AS MATERIALIZED (  -- one row per run_key: a run repeated in a batch counts once
  SELECT DISTINCT ON (run_key) *
  FROM (SELECT sha256(convert_to(identity, 'UTF8')) AS run_key, * FROM staging_runs) s
  ORDER BY run_key, batch_row
), added AS (
  INSERT INTO hetscale.runs (
    run_key, experiment_id, code, workload, parameters, work, wall_seconds, marked_speed,
    speed_unit, weights_source, set_index, repetition, slurm_job_id, slurm_array_job_id,
    slurm_array_task_id, slurm_step_id, node_list, start_time, end_time, verified,
    fingerprint, source_file, source_line)
  SELECT k.run_key, e.experiment_id, k.code, k.workload, k.parameters, k.work,
         k.wall_seconds, k.marked_speed, k.speed_unit, k.weights_source, k.set_index,
         k.repetition, k.slurm_job_id, k.slurm_array_job_id, k.slurm_array_task_id,
         k.slurm_step_id, k.node_list, k.start_time, k.end_time, k.verified, k.fingerprint,
         k.source_file, k.source_line
  FROM keyed k JOIN hetscale.experiments e ON e.name = k.experiment
  ORDER BY k.run_key
  ON CONFLICT (run_key) DO NOTHING
  RETURNING run_id, run_key
), ranks AS (
  INSERT INTO hetscale.rank_timings (
    run_id, rank, host, weight, marked_speed, compute_seconds, communication_seconds,
    wall_seconds)
  SELECT a.run_id, t.rank, t.host, t.weight, t.marked_speed, t.compute_seconds,
         t.communication_seconds, t.wall_seconds
  FROM added a JOIN keyed k USING (run_key) JOIN staging_ranks t USING (batch_row)
  RETURNING 1
)
SELECT (SELECT count(*) FROM added), (SELECT count(*) FROM ranks))sql";

void optional_integer(pg::CopyBuffer& out, const std::optional<std::uint64_t>& value) {
  if (value) {
    out.integer(static_cast<long long>(*value));
  } else {
    out.null();
  }
}

void optional_text(pg::CopyBuffer& out, const std::string& value) {
  if (value.empty()) {
    out.null();
  } else {
    out.text(value);
  }
}

nlohmann::json parameters_json(const ParameterValues& parameters) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : parameters) out[name] = value;
  return out;
}

void run_row(pg::CopyBuffer& out, int batch_row, const NumberedRunRecord& numbered,
             const std::string& source) {
  const RunRecord& r = numbered.record;
  out.integer(batch_row);
  out.text(run_identity(r));
  out.text(r.experiment);
  out.text(r.code);
  out.text(r.workload);
  out.text(parameters_json(r.parameters).dump());
  out.number(r.work);
  out.number(r.wall_seconds);
  out.number(r.marked_speed);
  out.text(r.speed_unit);
  out.text(r.weights_source);
  if (r.machine_set) {
    out.integer(*r.machine_set);
  } else {
    out.null();
  }
  out.integer(r.repetition);
  optional_integer(out, r.slurm.job_id);
  optional_integer(out, r.slurm.array_job_id);
  optional_integer(out, r.slurm.array_task_id);
  optional_integer(out, r.slurm.step_id);
  out.text(r.slurm.node_list);
  optional_text(out, r.start_time);
  optional_text(out, r.end_time);
  out.text(r.verified ? "t" : "f");
  out.text(r.fingerprint.dump());
  out.text(source);
  out.integer(numbered.line);
  out.end_row();
}

void rank_rows(pg::CopyBuffer& out, int batch_row, const RunRecord& record) {
  for (const RankTiming& t : record.ranks) {
    out.integer(batch_row);
    out.integer(t.rank);
    out.text(t.host);
    out.number(t.weight);
    out.number(t.marked_speed);
    out.number(t.compute_seconds);
    out.number(t.communication_seconds);
    out.number(t.wall_seconds);
    out.end_row();
  }
}

}  // namespace

std::string run_identity(const RunRecord& r) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const RankTiming& t : r.ranks) hosts.push_back(t.host);
  const auto id = [](const std::optional<std::uint64_t>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  // An array, so that the order is fixed; parameters are a sorted object already.
  const nlohmann::json identity = {
      r.experiment, r.code, r.workload, parameters_json(r.parameters),
      r.machine_set ? nlohmann::json(*r.machine_set) : nlohmann::json(nullptr), r.repetition,
      id(r.slurm.job_id), id(r.slurm.array_job_id), id(r.slurm.array_task_id),
      id(r.slurm.step_id), r.slurm.node_list, r.start_time, r.end_time, hosts};
  return identity.dump();
}

BatchCounts load_run_batch(pg::Connection& conn, std::span<const NumberedRunRecord> records,
                           const std::string& source) {
  pg::CopyBuffer runs;
  pg::CopyBuffer ranks;
  for (std::size_t i = 0; i < records.size(); ++i) {
    run_row(runs, static_cast<int>(i), records[i], source);
    rank_rows(ranks, static_cast<int>(i), records[i].record);
  }
  pg::Transaction tx(conn);
  conn.exec(create_staging);
  conn.copy_in("COPY staging_runs FROM STDIN", runs.data());
  conn.copy_in("COPY staging_ranks FROM STDIN", ranks.data());
  conn.exec(insert_experiments);
  const pg::Result counts = conn.exec(insert_runs);
  tx.commit();
  BatchCounts out;
  out.runs_added = counts.integer(0, 0);
  out.rank_rows_added = counts.integer(0, 1);
  out.runs_present = static_cast<long long>(records.size()) - out.runs_added;
  return out;
}

}  // namespace hetscale::collector
