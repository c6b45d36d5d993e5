// Reading Slurm jobcomp/filetxt lines (slurm/include/hetscale/slurm/jobcomp.hpp).
#include "hetscale/slurm/jobcomp.hpp"

#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <istream>

#include "hetscale/base/error.hpp"

namespace hetscale::slurm {
namespace {

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
void exit_status(const LineFields& f, JobRecord& job) {
  const std::string* v = f.find("ExitCode");
  if (v == nullptr) return;
  const auto colon = v->find(':');
  if (colon == std::string::npos) f.fail("ExitCode: expected code:signal, got '" + *v + "'");
  job.exit_code = f.parse_integer("ExitCode", std::string_view(*v).substr(0, colon));
  job.exit_signal = f.parse_integer("ExitCode", std::string_view(*v).substr(colon + 1));
}

JobRecord parse_line(std::string_view text, const std::string& source, std::uint32_t line) {
  LineFields f(source, line, jobcomp_fields(text));
  JobRecord job;
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

std::vector<JobRecord> read_jobcomp(std::istream& in, const std::string& source) {
  std::vector<JobRecord> out;
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

std::vector<JobRecord> read_jobcomp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file.string(), 0, 0}, "cannot read the job completion file");
  return read_jobcomp(in, file.string());
}

bool cluster_unknown(const JobRecord& job) {
  return job.cluster.empty() || job.cluster == "unknown";
}

void name_unknown_clusters(std::vector<JobRecord>& jobs, const std::string& cluster,
                           const std::string& source) {
  for (JobRecord& job : jobs) {
    if (!cluster_unknown(job)) continue;
    if (cluster.empty()) {
      throw ConfigError({source, job.line, 0},
                        "the job names no cluster (Cluster=unknown: slurmctld runs without accounting) and "
                        "Slurm's ClusterName is not known here: give it with --cluster NAME");
    }
    job.cluster = cluster;
  }
}

}  // namespace hetscale::slurm
