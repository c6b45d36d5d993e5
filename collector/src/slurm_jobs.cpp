// Slurm's jobs in hetscale.slurm_jobs (collector/include/hetscale/collector/slurm_jobs.hpp).
#include "hetscale/collector/slurm_jobs.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "hetscale/base/error.hpp"
#include "hetscale/slurm/jobcomp.hpp"

namespace hetscale::collector {
namespace {

// Columns come from a jsonb array of objects, one statement per batch.
constexpr const char* insert_jobs = R"sql(
WITH added AS (
  INSERT INTO hetscale.slurm_jobs (cluster, job_id, start_time, end_time, submit_time, eligible_time,
    array_job_id, array_task_id, job_name, user_name, state, partition, time_limit, node_list,
    node_count, proc_count, work_dir, exit_code, exit_signal, fields, source_file, source_line)
  SELECT cluster, job_id, start_time, end_time, submit_time, eligible_time, array_job_id, array_task_id,
         job_name, user_name, state, partition, time_limit, node_list, node_count, proc_count,
         work_dir, exit_code, exit_signal, fields, $2, source_line
  FROM jsonb_to_recordset($1::jsonb) AS j(cluster text, job_id bigint, start_time timestamp,
    end_time timestamp, submit_time timestamp, eligible_time timestamp, array_job_id bigint,
    array_task_id bigint, job_name text, user_name text, state text, partition text,
    time_limit text, node_list text, node_count integer, proc_count integer, work_dir text,
    exit_code integer, exit_signal integer, fields jsonb, source_line integer)
  ORDER BY cluster, job_id, user_name, start_time
  ON CONFLICT (cluster, job_id, user_name, start_time) DO NOTHING
  RETURNING 1)
SELECT count(*) FROM added)sql";

nlohmann::json optional_json(const auto& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json row_json(const slurm::JobRecord& j) {
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& [key, value] : j.fields) fields[key] = value;
  return {{"cluster", j.cluster},
          {"job_id", j.job_id},
          {"start_time", j.start_time},
          {"end_time", optional_json(j.end_time)},
          {"submit_time", optional_json(j.submit_time)},
          {"eligible_time", optional_json(j.eligible_time)},
          {"array_job_id", optional_json(j.array_job_id)},
          {"array_task_id", optional_json(j.array_task_id)},
          {"job_name", j.job_name},
          {"user_name", j.user_name},
          {"state", j.state},
          {"partition", j.partition},
          {"time_limit", j.time_limit},
          {"node_list", optional_json(j.node_list)},
          {"node_count", optional_json(j.node_count)},
          {"proc_count", optional_json(j.proc_count)},
          {"work_dir", j.work_dir},
          {"exit_code", optional_json(j.exit_code)},
          {"exit_signal", optional_json(j.exit_signal)},
          {"fields", std::move(fields)},
          {"source_line", j.line}};
}

}  // namespace

std::vector<slurm::JobRecord> ended_jobs(const std::vector<slurm::JobRecord>& jobs) {
  std::vector<slurm::JobRecord> out;
  for (const slurm::JobRecord& job : jobs) {
    if (!slurm::is_final_job_state(job.state) || !job.end_time) continue;
    out.push_back(job);
    if (out.back().start_time.empty()) out.back().start_time = *job.end_time;
  }
  return out;
}

long long load_slurm_jobs_batch(pg::Connection& conn, std::span<const slurm::JobRecord> jobs,
                                const std::string& source) {
  nlohmann::json rows = nlohmann::json::array();
  for (const slurm::JobRecord& j : jobs) {
    if (slurm::cluster_unknown(j)) throw Error(fmt::format("{}:{}: job {} names no cluster", source, j.line, j.job_id));
    rows.push_back(row_json(j));
  }
  // Slurm passes job names and other fields through as bytes; the readers of sacct's
  // output and of jobcomp lines replace what is not UTF-8 with U+FFFD as they read it
  // (hetscale/slurm/), and `replace` keeps any other text from failing the batch.
  const std::string text = rows.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return conn.exec(insert_jobs, {text, source}).integer(0, 0);
}

std::vector<slurm::JobRecord> read_stored_jobs(pg::Connection& conn, const std::vector<std::string>& names) {
  const pg::Result r = conn.exec(R"sql(
    SELECT cluster, job_id, job_name, array_job_id, array_task_id, state, user_name
    FROM hetscale.slurm_jobs
    WHERE job_name IN (SELECT jsonb_array_elements_text($1::jsonb))
    ORDER BY job_id, start_time)sql",
                                 {nlohmann::json(names).dump()});
  std::vector<slurm::JobRecord> out;
  for (int i = 0; i < r.rows(); ++i) {
    slurm::JobRecord job;
    job.cluster = std::string(r.text(i, 0));
    job.job_id = static_cast<std::uint64_t>(r.integer(i, 1));
    job.job_name = std::string(r.text(i, 2));
    if (!r.is_null(i, 3)) job.array_job_id = static_cast<std::uint64_t>(r.integer(i, 3));
    if (!r.is_null(i, 4)) job.array_task_id = static_cast<std::uint64_t>(r.integer(i, 4));
    job.state = std::string(r.text(i, 5));
    if (!r.is_null(i, 6)) job.user_name = std::string(r.text(i, 6));
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace hetscale::collector
