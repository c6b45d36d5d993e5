// Reading Slurm jobcomp/filetxt lines and loading them into hetscale.slurm_jobs.
#include "hetscale/collector/jobcomp.hpp"

#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <istream>
#include <nlohmann/json.hpp>

#include "hetscale/base/error.hpp"

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
  ORDER BY cluster, job_id, start_time
  ON CONFLICT (cluster, job_id, start_time) DO NOTHING
  RETURNING 1)
SELECT count(*) FROM added)sql";

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// Length of "Name=" starting at `at`, or 0 when no field starts there.
std::size_t field_start(std::string_view line, std::size_t at) {
  if (at >= line.size() || !std::isalpha(static_cast<unsigned char>(line[at]))) return 0;
  std::size_t i = at;
  while (i < line.size() && is_name_char(line[i])) ++i;
  return i < line.size() && line[i] == '=' ? i + 1 - at : 0;
}

// A line-numbered field lookup that reports what is wrong with a value.
class LineFields {
 public:
  LineFields(const std::string& source, std::uint32_t line,
             std::vector<std::pair<std::string, std::string>> fields)
      : source_(source), line_(line), fields_(std::move(fields)) {}

  [[nodiscard]] const std::string* find(std::string_view name) const {
    for (const auto& [key, value] : fields_)
      if (key == name) return &value;
    return nullptr;
  }
  [[nodiscard]] std::string text(std::string_view name) const {
    const std::string* v = find(name);
    return v ? *v : std::string();
  }
  [[nodiscard]] const std::string& required(std::string_view name) const {
    const std::string* v = find(name);
    if (v == nullptr) fail(std::string("no ") + std::string(name) + " field");
    return *v;
  }
  [[nodiscard]] std::optional<std::int64_t> integer(std::string_view name) const {
    const std::string* v = find(name);
    if (v == nullptr) return std::nullopt;
    return parse_integer(name, *v);
  }
  [[nodiscard]] std::int64_t parse_integer(std::string_view name, std::string_view v) const {
    std::int64_t out = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size() || v.empty()) {
      fail(std::string(name) + ": expected an integer, got '" + std::string(v) + "'");
    }
    return out;
  }
  // "YYYY-MM-DDTHH:MM:SS"; Unknown or None (never happened) give nothing.
  [[nodiscard]] std::optional<std::string> time(std::string_view name) const {
    const std::string* v = find(name);
    if (v == nullptr || *v == "Unknown" || *v == "unknown" || *v == "None") return std::nullopt;
    if (!is_time(*v)) {
      fail(std::string(name) + ": expected a time YYYY-MM-DDTHH:MM:SS, got '" + *v + "'");
    }
    return *v;
  }
  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError({source_, line_, 0}, message);
  }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> take_fields() {
    return std::move(fields_);
  }

 private:
  static bool is_time(std::string_view v) {
    constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd";
    if (v.size() != shape.size()) return false;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const bool ok =
          shape[i] == 'd' ? std::isdigit(static_cast<unsigned char>(v[i])) != 0 : v[i] == shape[i];
      if (!ok) return false;
    }
    return true;
  }

  const std::string& source_;
  std::uint32_t line_;
  std::vector<std::pair<std::string, std::string>> fields_;
};

std::optional<std::uint64_t> non_negative(const LineFields& f, std::string_view name) {
  const auto v = f.integer(name);
  if (v && *v < 0) f.fail(std::string(name) + ": expected a non-negative integer");
  return v ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*v)) : std::nullopt;
}

// ExitCode=code:signal.
void exit_status(const LineFields& f, JobCompletion& job) {
  const std::string* v = f.find("ExitCode");
  if (v == nullptr) return;
  const auto colon = v->find(':');
  if (colon == std::string::npos) f.fail("ExitCode: expected code:signal, got '" + *v + "'");
  job.exit_code = f.parse_integer("ExitCode", std::string_view(*v).substr(0, colon));
  job.exit_signal = f.parse_integer("ExitCode", std::string_view(*v).substr(colon + 1));
}

JobCompletion parse_line(std::string_view text, const std::string& source, std::uint32_t line) {
  LineFields f(source, line, jobcomp_fields(text));
  JobCompletion job;
  job.line = line;
  const std::int64_t id = f.parse_integer("JobId", f.required("JobId"));
  if (id <= 0) f.fail("JobId: expected a positive integer");
  job.job_id = static_cast<std::uint64_t>(id);
  (void)f.required("StartTime");
  const auto start = f.time("StartTime");
  if (!start)
    f.fail("StartTime: the job never started ('" + f.text("StartTime") +
           "'); "
           "a completion needs its start time (the natural key)");
  job.start_time = *start;
  job.end_time = f.time("EndTime");
  job.submit_time = f.time("SubmitTime");
  job.eligible_time = f.time("EligibleTime");
  job.array_job_id = non_negative(f, "ArrayJobId");
  job.array_task_id = non_negative(f, "ArrayTaskId");
  job.state = f.required("JobState");
  job.job_name = f.text("Name");
  const std::string user = f.text("UserId");  // "name(uid)"
  job.user_name = user.substr(0, user.find('('));
  job.partition = f.text("Partition");
  job.time_limit = f.text("TimeLimit");
  job.work_dir = f.text("WorkDir");
  const std::string nodes = f.text("NodeList");
  if (!nodes.empty() && nodes != "(null)") job.node_list = nodes;
  job.node_count = f.integer("NodeCnt");
  job.proc_count = f.integer("ProcCnt");
  exit_status(f, job);
  job.cluster = f.text("Cluster");
  job.fields = f.take_fields();
  return job;
}

nlohmann::json optional_json(const auto& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json row_json(const JobCompletion& j) {
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

std::vector<std::pair<std::string, std::string>> jobcomp_fields(std::string_view line) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t at = 0;
  while (at < line.size() && line[at] == ' ') ++at;
  while (at < line.size()) {
    const std::size_t name_length = field_start(line, at);
    if (name_length == 0) break;  // caller finds the fields missing
    const std::string name(line.substr(at, name_length - 1));
    const std::size_t value_at = at + name_length;
    std::size_t next = value_at;
    while ((next = line.find(' ', next)) != std::string_view::npos &&
           field_start(line, next + 1) == 0 && next + 1 < line.size()) {
      ++next;
    }
    const std::size_t value_end = next == std::string_view::npos ? line.size() : next;
    out.emplace_back(name, std::string(line.substr(value_at, value_end - value_at)));
    at = value_end;
    while (at < line.size() && line[at] == ' ') ++at;
  }
  return out;
}

std::vector<JobCompletion> read_jobcomp(std::istream& in, const std::string& source) {
  std::vector<JobCompletion> out;
  std::string text;
  std::uint32_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(' ') == std::string::npos) continue;
    out.push_back(parse_line(text, source, line));
  }
  if (in.bad()) throw ConfigError({source, line, 0}, "read error");
  return out;
}

std::vector<JobCompletion> read_jobcomp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file.string(), 0, 0}, "cannot read the job completion file");
  return read_jobcomp(in, file.string());
}

bool cluster_unknown(const JobCompletion& job) {
  return job.cluster.empty() || job.cluster == "unknown";
}

void name_unknown_clusters(std::vector<JobCompletion>& jobs, const std::string& cluster,
                           const std::string& source) {
  for (JobCompletion& job : jobs) {
    if (!cluster_unknown(job)) continue;
    if (cluster.empty()) {
      throw ConfigError({source, job.line, 0},
                        "the job names no cluster (Cluster=unknown: slurmctld runs without accounting) and "
                        "Slurm's ClusterName is not known here: give it with --cluster NAME");
    }
    job.cluster = cluster;
  }
}

long long load_jobcomp_batch(pg::Connection& conn, std::span<const JobCompletion> jobs,
                             const std::string& source) {
  nlohmann::json rows = nlohmann::json::array();
  for (const JobCompletion& j : jobs) {
    if (cluster_unknown(j)) throw Error(fmt::format("{}:{}: job {} names no cluster", source, j.line, j.job_id));
    rows.push_back(row_json(j));
  }
  // Slurm passes job names and other fields through as bytes: text that is not UTF-8
  // is stored with U+FFFD in place of the bad bytes rather than failing the batch.
  const std::string text = rows.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return conn.exec(insert_jobs, {text, source}).integer(0, 0);
}

std::vector<JobCompletion> read_stored_jobs(pg::Connection& conn, const std::vector<std::string>& names) {
  const pg::Result r = conn.exec(R"sql(
    SELECT cluster, job_id, job_name, array_job_id, array_task_id, state
    FROM hetscale.slurm_jobs
    WHERE job_name IN (SELECT jsonb_array_elements_text($1::jsonb))
    ORDER BY job_id, start_time)sql",
                                 {nlohmann::json(names).dump()});
  std::vector<JobCompletion> out;
  for (int i = 0; i < r.rows(); ++i) {
    JobCompletion job;
    job.cluster = std::string(r.text(i, 0));
    job.job_id = static_cast<std::uint64_t>(r.integer(i, 1));
    job.job_name = std::string(r.text(i, 2));
    if (!r.is_null(i, 3)) job.array_job_id = static_cast<std::uint64_t>(r.integer(i, 3));
    if (!r.is_null(i, 4)) job.array_task_id = static_cast<std::uint64_t>(r.integer(i, 4));
    job.state = std::string(r.text(i, 5));
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace hetscale::collector
