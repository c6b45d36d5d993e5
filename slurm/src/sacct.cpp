// Reading `sacct --json` of every release (slurm/include/hetscale/slurm/sacct.hpp).
#include "hetscale/slurm/sacct.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>

#include "hetscale/base/error.hpp"
#include "hetscale/base/json_depth.hpp"
#include "hetscale/base/json_fields.hpp"
#include "hetscale/base/utf8_text.hpp"

namespace hetscale::slurm {
namespace {

using Json = nlohmann::json;

// Slurm's NO_VAL and INFINITE of 32 bits, which plain integers carry in every release: a
// time limit of them is no limit; a time of them (the start of a job that never started,
// since 23.11) is none.
constexpr std::uint64_t infinite_minutes = 0xfffffffeULL;
constexpr std::uint64_t no_val = 0xfffffffeULL;

// A count as a release writes it: a plain integer, or (v0.0.39 on) an object
// {"set": bool, "infinite": bool, "number": integer}.
struct Count {
  std::uint64_t number = 0;
  bool infinite = false;
};

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
    if (!v->is_string()) fail(fmt::format("{} must be a string, got {}", dotted(path), json_fields::shown(*v)));
    return v->get<std::string>();
  }

  // A string, or (v0.0.40 on) a list of strings: the words in order.
  [[nodiscard]] std::vector<std::string> words(std::initializer_list<std::string_view> path,
                                               bool required = false) const {
    const Json* v = find(path);
    if (v == nullptr) {
      if (required) fail(fmt::format("no {}", dotted(path)));
      return {};
    }
    if (v->is_string()) return {v->get<std::string>()};
    if (v->is_array()) {
      std::vector<std::string> out;
      for (const Json& item : *v) {
        if (!item.is_string())
          fail(fmt::format("{} must be a string or a list of strings, got {}", dotted(path), json_fields::shown(*v)));
        out.push_back(item.get<std::string>());
      }
      return out;
    }
    fail(fmt::format("{} must be a string or a list of strings, got {}", dotted(path), json_fields::shown(*v)));
  }

  // A count in either form; absent when missing, null or not set.
  [[nodiscard]] std::optional<Count> count(std::initializer_list<std::string_view> path,
                                           bool required = false) const {
    const Json* v = find(path);
    std::optional<Count> out;
    if (v != nullptr && v->is_object()) {
      const auto set = v->find("set");
      const auto infinite = v->find("infinite");
      const auto number = v->find("number");
      if (set == v->end() || !set->is_boolean() || infinite == v->end() || !infinite->is_boolean() ||
          number == v->end() || !non_negative_integer(*number))
        fail(fmt::format("{} must be a non-negative integer or {{set, infinite, number}}, got {}", dotted(path),
                         json_fields::shown(*v)));
      if (set->get<bool>()) out = Count{number->get<std::uint64_t>(), infinite->get<bool>()};
    } else if (v != nullptr) {
      if (!non_negative_integer(*v))
        fail(fmt::format("{} must be a non-negative integer, got {}", dotted(path), json_fields::shown(*v)));
      out = Count{v->get<std::uint64_t>(), false};
    }
    if (!out && required) fail(fmt::format("no {}", dotted(path)));
    return out;
  }

  // A count that cannot be infinite.
  [[nodiscard]] std::optional<std::uint64_t> finite(std::initializer_list<std::string_view> path,
                                                    bool required = false) const {
    const auto c = count(path, required);
    if (!c) return std::nullopt;
    if (c->infinite) fail(fmt::format("{} is infinite", dotted(path)));
    return c->number;
  }

  // A time in Unix seconds; 0 and Slurm's NO_VAL or INFINITE mean none.
  [[nodiscard]] std::optional<std::string> time(std::initializer_list<std::string_view> path) const {
    const auto seconds = finite(path);
    if (!seconds || *seconds == 0 || *seconds >= no_val) return std::nullopt;
    const auto t = static_cast<std::time_t>(*seconds);
    std::tm local{};
    if (localtime_r(&t, &local) == nullptr) fail(fmt::format("{} is not a time: {}", dotted(path), *seconds));
    std::array<char, 32> buffer{};
    const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%S", &local);
    return std::string(buffer.data(), n);
  }

 private:
  static bool non_negative_integer(const Json& v) {
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
  }
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
std::string time_limit_text(const std::optional<Count>& limit) {
  if (!limit || limit->infinite || limit->number >= infinite_minutes) return "UNLIMITED";
  const std::uint64_t minutes = limit->number;
  const std::uint64_t days = minutes / (24 * 60);
  const std::uint64_t hours = minutes / 60 % 24;
  const std::uint64_t rest = minutes % 60;
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

JobRecord read_job(const Json& value, const std::string& source, std::size_t index) {
  const JobReader r(value, source, index);
  if (!value.is_object()) r.fail("a job must be an object");
  JobRecord job;
  job.line = static_cast<std::uint32_t>(index + 1);
  job.job_id = *r.finite({"job_id"}, true);
  if (job.job_id == 0) r.fail("job_id must be positive");
  job.cluster = r.text({"cluster"}, true);
  if (job.cluster.empty()) r.fail("cluster is empty");
  job.job_name = r.text({"name"}, true);
  // "COMPLETED" (22.05), or ["COMPLETED"], ["PENDING", "REQUEUED"]: the base state first.
  std::vector<std::string> state = r.words({"state", "current"}, true);
  if (state.empty() || state.front().empty()) r.fail("state.current is empty");
  job.state = state.front();
  job.state_flags.assign(state.begin() + 1, state.end());
  job.user_name = r.text({"user"});
  job.partition = r.text({"partition"});
  job.work_dir = r.text({"working_directory"});
  job.time_limit = time_limit_text(r.count({"time", "limit"}));
  job.start_time = r.time({"time", "start"}).value_or("");
  job.end_time = r.time({"time", "end"});
  job.submit_time = r.time({"time", "submission"});
  job.eligible_time = r.time({"time", "eligible"});
  // An array's tasks carry the array's job id; 0 means the job is not part of one.
  if (const auto array_job = r.finite({"array", "job_id"}); array_job && *array_job != 0) {
    job.array_job_id = array_job;
    job.array_task_id = r.finite({"array", "task_id"});
    if (!job.array_task_id) {
      const std::string pending = r.text({"array", "task"});
      try {
        if (!pending.empty()) job.pending_array_tasks = array_task_ids(pending);
      } catch (const Error& e) {
        r.fail(fmt::format("array.task: {}", e.what()));
      }
    }
  }
  const std::string nodes = r.text({"nodes"});
  if (!nodes.empty() && nodes != "None assigned" && nodes != "(null)") job.node_list = nodes;
  if (const auto n = r.finite({"allocation_nodes"}); n) job.node_count = static_cast<std::int64_t>(*n);
  job.proc_count = allocated_cpus(r);
  // The exit code and the signal are independent: a job killed by a signal has no code.
  // Slurm 22.05's JSON gives every job that was not killed by a signal the code 0, failed
  // ones too (`sacct -o ExitCode` prints their real code, 3:0): a 0 beside the state FAILED
  // and no signal contradicts the state, and is read as no exit code at all.
  const auto code = r.finite({"exit_code", "return_code"});
  std::optional<std::uint64_t> signal = r.finite({"exit_code", "signal", "id"});
  if (!signal) signal = r.finite({"exit_code", "signal", "signal_id"});
  const bool contradicted = job.state == "FAILED" && code == 0U && !signal;
  if (code && !contradicted) job.exit_code = static_cast<std::int64_t>(*code);
  if (signal) job.exit_signal = static_cast<std::int64_t>(*signal);
  else if (job.exit_code) job.exit_signal = 0;
  flatten(value, "", job.fields);
  return job;
}

// Slurm 22.05 answers a query that matches no job with an error entry (error_number
// 9003, "Nothing found") beside an empty "jobs"; later releases with no entry.
bool only_nothing_found(const Json& errors) {
  for (const Json& e : errors) {
    if (!e.is_object()) return false;
    const auto number = e.find("error_number");
    if (number == e.end() || !number->is_number_integer() || number->get<std::int64_t>() != 9003) return false;
  }
  return true;
}

}  // namespace

SacctJobs read_sacct_json(std::string_view text, const std::string& source) {
  require_json_nesting_within_limit(text, source);
  // The JSON parser refuses a string that is not UTF-8; one user's job name must not fail
  // the whole output.
  const Utf8Repair utf8 = replace_invalid_utf8(text);
  Json document;
  try {
    document = Json::parse(utf8.text(text));
  } catch (const Json::exception& e) {  // a syntax error, or a number out of range
    throw ConfigError({source, 0, 0}, fmt::format("not the JSON of sacct --json: {}", e.what()));
  }
  if (!document.is_object()) throw ConfigError({source, 0, 0}, "not the JSON of sacct --json: not an object");
  if (const auto errors = document.find("errors"); errors != document.end() && errors->is_array() &&
                                                   !errors->empty() && !only_nothing_found(*errors)) {
    std::string said;
    for (const Json& e : *errors) {
      const Json* message = e.is_object() && e.contains("description") ? &e["description"]
                            : e.is_object() && e.contains("error")     ? &e["error"]
                                                                       : nullptr;
      if (message != nullptr && message->is_string()) said += (said.empty() ? "" : "; ") + message->get<std::string>();
    }
    throw ConfigError({source, 0, 0}, fmt::format("sacct reported errors: {}", said.empty() ? "(no description)" : said));
  }
  const auto jobs = document.find("jobs");
  if (jobs == document.end() || !jobs->is_array())
    throw ConfigError({source, 0, 0}, "not the JSON of sacct --json: no \"jobs\" array");
  SacctJobs out;
  out.replaced_bytes = utf8.replaced_bytes;
  out.jobs.reserve(jobs->size());
  for (std::size_t i = 0; i < jobs->size(); ++i) out.jobs.push_back(read_job((*jobs)[i], source, i));
  return out;
}

}  // namespace hetscale::slurm
