// Reading `sacct --json` (docs/collector.md, "Slurm jobs").
#include "hetscale/collector/sacct.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <ctime>
#include <nlohmann/json.hpp>

#include "hetscale/base/error.hpp"

namespace hetscale::collector {
namespace {

using Json = nlohmann::json;

// Slurm's "no limit" for a time limit in minutes (INFINITE, NO_VAL).
constexpr std::uint64_t infinite_minutes = 0xfffffffeULL;

class JobReader {
 public:
  JobReader(const Json& job, const std::string& source, std::size_t index)
      : job_(job), source_(source), index_(index) {}

  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError({source_, 0, 0}, fmt::format("jobs[{}]: {}", index_, message));
  }

  // The value at a path of keys, or nullptr when any key is missing or the value is null.
  [[nodiscard]] const Json* find(std::initializer_list<std::string_view> path) const {
    const Json* at = &job_;
    for (std::string_view key : path) {
      if (!at->is_object()) return nullptr;
      const auto it = at->find(std::string(key));
      if (it == at->end() || it->is_null()) return nullptr;
      at = &*it;
    }
    return at;
  }

  [[nodiscard]] std::string text(std::initializer_list<std::string_view> path, bool required = false) const {
    const Json* v = find(path);
    if (v == nullptr) {
      if (required) fail(fmt::format("no {}", dotted(path)));
      return {};
    }
    if (!v->is_string()) fail(fmt::format("{} must be a string, got {}", dotted(path), v->dump()));
    return v->get<std::string>();
  }

  [[nodiscard]] std::optional<std::uint64_t> count(std::initializer_list<std::string_view> path,
                                                   bool required = false) const {
    const Json* v = find(path);
    if (v == nullptr) {
      if (required) fail(fmt::format("no {}", dotted(path)));
      return std::nullopt;
    }
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<std::int64_t>() >= 0))
      fail(fmt::format("{} must be a non-negative integer, got {}", dotted(path), v->dump()));
    return v->get<std::uint64_t>();
  }

  [[nodiscard]] std::optional<std::int64_t> integer(std::initializer_list<std::string_view> path) const {
    const Json* v = find(path);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number_integer()) fail(fmt::format("{} must be an integer, got {}", dotted(path), v->dump()));
    return v->get<std::int64_t>();
  }

  // A time in Unix seconds; 0 means none.
  [[nodiscard]] std::optional<std::string> time(std::initializer_list<std::string_view> path) const {
    const auto seconds = count(path);
    if (!seconds || *seconds == 0) return std::nullopt;
    const auto t = static_cast<std::time_t>(*seconds);
    std::tm local{};
    if (localtime_r(&t, &local) == nullptr) fail(fmt::format("{} is not a time: {}", dotted(path), *seconds));
    std::array<char, 32> buffer{};
    const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%S", &local);
    return std::string(buffer.data(), n);
  }

 private:
  static std::string dotted(std::initializer_list<std::string_view> path) {
    std::string out;
    for (std::string_view key : path) out += (out.empty() ? "" : ".") + std::string(key);
    return out;
  }

  const Json& job_;
  const std::string& source_;
  std::size_t index_;
};

// Minutes as Slurm prints a time limit: [D-]HH:MM:SS, or UNLIMITED.
std::string time_limit_text(std::optional<std::uint64_t> minutes) {
  if (!minutes || *minutes >= infinite_minutes) return "UNLIMITED";
  const std::uint64_t days = *minutes / (24 * 60);
  const std::uint64_t hours = *minutes / 60 % 24;
  const std::uint64_t rest = *minutes % 60;
  if (days > 0) return fmt::format("{}-{:02}:{:02}:00", days, hours, rest);
  return fmt::format("{:02}:{:02}:00", hours, rest);
}

// Every scalar of the job but its steps, by dotted path, as text: kept with the row.
void flatten(const Json& value, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (prefix.empty() && key == "steps") continue;
      flatten(item, prefix.empty() ? key : prefix + "." + key, out);
    }
  } else if (value.is_array()) {
    out.emplace_back(prefix, value.dump(-1, ' ', false, Json::error_handler_t::replace));
  } else if (value.is_string()) {
    out.emplace_back(prefix, value.get<std::string>());
  } else if (!value.is_null()) {
    out.emplace_back(prefix, value.dump());
  }
}

// The processors allocated: the "cpu" entry of tres.allocated, where sacct gives one.
std::optional<std::int64_t> allocated_cpus(const JobReader& r) {
  const Json* allocated = r.find({"tres", "allocated"});
  if (allocated == nullptr || !allocated->is_array()) return std::nullopt;
  for (const Json& tres : *allocated) {
    if (!tres.is_object()) continue;
    const auto type = tres.find("type");
    const auto count = tres.find("count");
    if (type != tres.end() && type->is_string() && *type == "cpu" && count != tres.end() &&
        count->is_number_integer())
      return count->get<std::int64_t>();
  }
  return std::nullopt;
}

JobCompletion read_job(const Json& value, const std::string& source, std::size_t index) {
  const JobReader r(value, source, index);
  if (!value.is_object()) r.fail("a job must be an object");
  JobCompletion job;
  job.line = static_cast<std::uint32_t>(index + 1);
  job.job_id = *r.count({"job_id"}, true);
  if (job.job_id == 0) r.fail("job_id must be positive");
  job.cluster = r.text({"cluster"}, true);
  if (job.cluster.empty()) r.fail("cluster is empty");
  job.job_name = r.text({"name"}, true);
  job.state = r.text({"state", "current"}, true);
  if (job.state.empty()) r.fail("state.current is empty");
  job.user_name = r.text({"user"});
  job.partition = r.text({"partition"});
  job.work_dir = r.text({"working_directory"});
  job.time_limit = time_limit_text(r.count({"time", "limit"}));
  job.start_time = r.time({"time", "start"}).value_or("");
  job.end_time = r.time({"time", "end"});
  job.submit_time = r.time({"time", "submission"});
  job.eligible_time = r.time({"time", "eligible"});
  // An array's tasks carry the array's job id; 0 means the job is not part of one.
  if (const auto array_job = r.count({"array", "job_id"}); array_job && *array_job != 0) {
    job.array_job_id = array_job;
    job.array_task_id = r.count({"array", "task_id"});
    if (!job.array_task_id) job.pending_array_tasks = r.text({"array", "task"});
  }
  const std::string nodes = r.text({"nodes"});
  if (!nodes.empty() && nodes != "None assigned" && nodes != "(null)") job.node_list = nodes;
  if (const auto n = r.count({"allocation_nodes"}); n) job.node_count = static_cast<std::int64_t>(*n);
  job.proc_count = allocated_cpus(r);
  job.exit_code = r.integer({"exit_code", "return_code"});
  if (job.exit_code) job.exit_signal = r.integer({"exit_code", "signal", "signal_id"}).value_or(0);
  flatten(value, "", job.fields);
  return job;
}

}  // namespace

std::vector<JobCompletion> read_sacct_json(std::string_view text, const std::string& source) {
  Json document;
  try {
    document = Json::parse(text);
  } catch (const Json::exception& e) {  // a syntax error, or a number out of range
    throw ConfigError({source, 0, 0}, fmt::format("not the JSON of sacct --json: {}", e.what()));
  }
  if (!document.is_object()) throw ConfigError({source, 0, 0}, "not the JSON of sacct --json: not an object");
  if (const auto errors = document.find("errors"); errors != document.end() && errors->is_array() &&
                                                   !errors->empty()) {
    throw ConfigError({source, 0, 0}, fmt::format("sacct reported errors: {}", errors->dump()));
  }
  const auto jobs = document.find("jobs");
  if (jobs == document.end() || !jobs->is_array())
    throw ConfigError({source, 0, 0}, "not the JSON of sacct --json: no \"jobs\" array");
  std::vector<JobCompletion> out;
  out.reserve(jobs->size());
  for (std::size_t i = 0; i < jobs->size(); ++i) out.push_back(read_job((*jobs)[i], source, i));
  return out;
}

bool is_final_job_state(std::string_view state) {
  static constexpr std::array<std::string_view, 9> final_states = {
      "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
      "DEADLINE"};
  for (std::string_view s : final_states)
    if (state == s) return true;
  return false;
}

std::vector<JobCompletion> ended_jobs(const std::vector<JobCompletion>& jobs) {
  std::vector<JobCompletion> out;
  for (const JobCompletion& job : jobs) {
    if (!is_final_job_state(job.state) || !job.end_time) continue;
    out.push_back(job);
    if (out.back().start_time.empty()) out.back().start_time = *job.end_time;
  }
  return out;
}

}  // namespace hetscale::collector
