// Reading Slurm jobcomp/filetxt lines (slurm/include/hetscale/slurm/jobcomp.hpp).
#include "hetscale/slurm/jobcomp.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "hetscale/base/error.hpp"
#include "hetscale/base/utf8_text.hpp"

namespace hetscale::slurm {
namespace {

// A field of a jobcomp/filetxt line: its name, and whether its value is one a user or an
// administrator chose (any text, spaces included) rather than one Slurm formats (no space).
struct FieldSpec {
  std::string_view name;
  bool chosen;
};

// Slurm's JOB_FORMAT (jobcomp_filetxt.c), the same from 22.05 to 26.05.
constexpr FieldSpec leading_fields[] = {
    {"JobId", false},      {"UserId", false},         {"GroupId", false}, {"Name", true},
    {"JobState", false},   {"Partition", false},      {"TimeLimit", false}, {"StartTime", false},
    {"EndTime", false},    {"NodeList", false},       {"NodeCnt", false}, {"ProcCnt", false},
    {"WorkDir", true},     {"ReservationName", true}, {"Tres", false},    {"Account", true},
    {"QOS", true},         {"WcKey", true},           {"Cluster", false}, {"SubmitTime", false},
    {"EligibleTime", false}};
constexpr FieldSpec array_fields[] = {{"ArrayJobId", false}, {"ArrayTaskId", false}};  // an array's task
constexpr FieldSpec het_fields[] = {{"HetJobId", false}, {"HetJobOffset", false}};     // a heterogeneous job's part
constexpr FieldSpec exit_fields[] = {{"DerivedExitCode", false}, {"ExitCode", false}};

// A form of the line: its fields in order, with the text that starts each ("Name=") and
// the text that ends each but the last (" Next=").
struct Format {
  std::vector<FieldSpec> fields;
  std::vector<std::string> starts;
  std::vector<std::string> ends;
};

// The four forms of a line: with or without the array's ids, with or without the
// heterogeneous job's (index: 2 x array + het).
const std::vector<Format>& line_formats() {
  static const std::vector<Format> formats = [] {
    std::vector<Format> out;
    for (const bool array : {false, true}) {
      for (const bool het : {false, true}) {
        Format f;
        f.fields.assign(std::begin(leading_fields), std::end(leading_fields));
        if (array) f.fields.insert(f.fields.end(), std::begin(array_fields), std::end(array_fields));
        if (het) f.fields.insert(f.fields.end(), std::begin(het_fields), std::end(het_fields));
        f.fields.insert(f.fields.end(), std::begin(exit_fields), std::end(exit_fields));
        for (std::size_t i = 0; i < f.fields.size(); ++i) {
          f.starts.push_back(std::string(f.fields[i].name) + "=");
          if (i + 1 < f.fields.size()) f.ends.push_back(" " + std::string(f.fields[i + 1].name) + "=");
        }
        out.push_back(std::move(f));
      }
    }
    return out;
  }();
  return formats;
}

// The one form a line can have: after the last chosen value (WcKey) every value is
// Slurm's and holds no space, so the names of the line's last words tell whether it has
// the array's and the heterogeneous job's ids. Nothing when they are none of the forms'.
const Format* form_of(std::string_view line) {
  std::array<std::string_view, 7> last{};  // the last words' names, the last first
  std::size_t end = line.size();
  for (auto& name : last) {
    if (end == 0) break;
    const std::size_t space = line.rfind(' ', end - 1);
    const std::size_t start = space == std::string_view::npos ? 0 : space + 1;
    const std::string_view word = line.substr(start, end - start);
    name = word.substr(0, word.find('='));
    if (space == std::string_view::npos) break;
    end = space;
  }
  if (last[0] != "ExitCode" || last[1] != "DerivedExitCode") return nullptr;
  std::size_t at = 2;
  const bool het = last[at] == "HetJobOffset" && last[at + 1] == "HetJobId";
  if (het) at += 2;
  const bool array = last[at] == "ArrayTaskId" && last[at + 1] == "ArrayJobId";
  if (array) at += 2;
  if (last[at] != "EligibleTime") return nullptr;
  return &line_formats()[2 * static_cast<std::size_t>(array) + static_cast<std::size_t>(het)];
}

// The readings of one line in one form: field i's name starts at a position, its value
// runs to the next field's name (the first space for a value Slurm formats, any later
// " Next=" for a chosen one). How many readings follow from a chosen field at a position
// is counted once (at most `cap`) and looked up by (field, position), so that a line full
// of field names costs quadratic time at worst.
class LineMatcher {
 public:
  LineMatcher(std::string_view line, const Format& format, std::size_t cap)
      : line_(line), format_(format), cap_(cap) {}

  std::size_t count(std::size_t field, std::size_t at) {
    const bool chosen = format_.fields[field].chosen;
    const std::size_t key = field * (line_.size() + 1) + at;
    if (chosen) {
      if (const auto known = counted_.find(key); known != counted_.end()) return known->second;
    }
    std::size_t n = 0;
    const auto value_at = value_start(field, at);
    if (value_at) {
      for_each_end(field, *value_at, [&](std::size_t end) {
        n += end == line_.size() ? 1 : count(field + 1, end + 1);
        return n < cap_;
      });
    }
    n = std::min(n, cap_);
    if (chosen) counted_.emplace(key, n);
    return n;
  }

  void collect(std::size_t field, std::size_t at, JobcompFields& fields, std::vector<JobcompFields>& out,
               std::size_t limit) {
    const std::size_t value_at = *value_start(field, at);
    for_each_end(field, value_at, [&](std::size_t end) {
      if (out.size() >= limit) return false;
      if (end != line_.size() && count(field + 1, end + 1) == 0) return true;
      fields.emplace_back(std::string(format_.fields[field].name), std::string(line_.substr(value_at, end - value_at)));
      if (end == line_.size()) {
        out.push_back(fields);
      } else {
        collect(field + 1, end + 1, fields, out, limit);
      }
      fields.pop_back();
      return true;
    });
  }

  // Where the furthest reading stopped: the column (1-based) and what was expected there.
  [[nodiscard]] std::size_t furthest_column() const { return furthest_ + 1; }
  [[nodiscard]] std::string expected() const {
    if (expected_field_ == format_.fields.size()) return "the end of the line";
    return fmt::format("'{}'", format_.starts[expected_field_]);
  }

 private:
  // Where field's value starts, when its name and '=' are at `at`.
  std::optional<std::size_t> value_start(std::size_t field, std::size_t at) {
    if (line_.substr(at).starts_with(format_.starts[field])) return at + format_.starts[field].size();
    stopped(at, field);
    return std::nullopt;
  }

  // Calls `take(end)` for each place field's value may end (the line's end for the last
  // field, else the space before the next field's name) until it returns false.
  template <typename Take>
  void for_each_end(std::size_t field, std::size_t value_at, Take take) {
    const bool last = field + 1 == format_.fields.size();
    if (!format_.fields[field].chosen) {
      const std::size_t space = line_.find(' ', value_at);
      if (last) {
        if (space == std::string_view::npos) (void)take(line_.size());
        else stopped(space, field + 1);
      } else if (space != std::string_view::npos && line_.substr(space).starts_with(format_.ends[field])) {
        (void)take(space);
      } else {
        stopped(space == std::string_view::npos ? line_.size() : space + 1, field + 1);
      }
      return;
    }
    if (last) {
      (void)take(line_.size());
      return;
    }
    const std::string& next = format_.ends[field];
    bool found = false;
    for (std::size_t end = line_.find(next, value_at); end != std::string_view::npos;
         end = line_.find(next, end + 1)) {
      found = true;
      if (!take(end)) return;
    }
    if (!found) stopped(line_.size(), field + 1);
  }

  // Reading stopped at `at`, where field `expected` (or, past the last, the end) was due.
  void stopped(std::size_t at, std::size_t expected) {
    if (!stopped_ || at > furthest_) {
      stopped_ = true;
      furthest_ = at;
      expected_field_ = expected;
    }
  }

  std::string_view line_;
  const Format& format_;
  std::size_t cap_;
  std::unordered_map<std::size_t, std::size_t> counted_;  // field * (line size + 1) + position: count
  bool stopped_ = false;
  std::size_t furthest_ = 0;
  std::size_t expected_field_ = 0;
};

// The field names of a format, as a message lists them.
std::string field_order() {
  std::string out;
  for (const FieldSpec& f : leading_fields) out += fmt::format("{}= ", f.name);
  out += "[ArrayJobId= ArrayTaskId=] [HetJobId= HetJobOffset=] DerivedExitCode= ExitCode=";
  return out;
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

JobRecord parse_line(JobcompFields fields, const std::string& source, std::uint32_t line) {
  LineFields f(source, line, std::move(fields));
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

// The names of the fields on which two readings of a line disagree, in the line's order.
std::string disagreeing_fields(const JobcompFields& a, const JobcompFields& b) {
  std::string out;
  for (const auto& field : a) {
    const auto other = std::find_if(b.begin(), b.end(), [&](const auto& candidate) { return candidate.first == field.first; });
    if (other == b.end() || other->second != field.second) out += (out.empty() ? "" : ", ") + field.first;
  }
  return out;
}

}  // namespace

namespace {

// The line without the spaces that end it (Slurm ends a line with one).
std::string_view trimmed(std::string_view line) {
  while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
  return line;
}

// The readings of a trimmed line in its form (form_of), at most `limit`.
std::vector<JobcompFields> readings_in_form(std::string_view line, const Format* format, std::size_t limit) {
  std::vector<JobcompFields> out;
  if (format == nullptr || limit == 0) return out;
  LineMatcher matcher(line, *format, limit);
  if (matcher.count(0, 0) == 0) return out;
  JobcompFields fields;
  matcher.collect(0, 0, fields, out, limit);
  return out;
}

// How far a trimmed line reads in its form (the plain form where its last words name
// none: the leading fields are every form's), and what was expected there: for the
// message about a line that is no job completion line.
ConfigError not_a_completion_line(std::string_view line, const Format* format, const std::string& source,
                                  std::uint32_t number) {
  LineMatcher matcher(line, format != nullptr ? *format : line_formats().front(), 1);
  (void)matcher.count(0, 0);
  return ConfigError({source, number, static_cast<std::uint32_t>(matcher.furthest_column())},
                     fmt::format("not a jobcomp/filetxt line: expected {} here (Slurm writes {})", matcher.expected(),
                                 field_order()));
}

}  // namespace

std::vector<JobcompFields> jobcomp_readings(std::string_view line, std::size_t limit) {
  line = trimmed(line);
  return readings_in_form(line, form_of(line), limit);
}

namespace {

// One line of the file as read on its own: its job, or why it cannot be stored.
struct LineRead {
  std::uint32_t number = 0;
  std::optional<JobRecord> job;
  std::optional<SetAsideLine> set_aside;
  bool broken = false;  // no jobcomp/filetxt line at all: where a line break in a chosen value falls
};

std::string field_of(const JobRecord& job, std::string_view name) {
  for (const auto& [key, value] : job.fields)
    if (key == name) return value;
  return {};
}

// Sets a line aside with its reason. Built in place: GCC 12 at -O3 reports the strings of
// an optional assigned from a temporary as maybe uninitialized (a false positive).
void set_aside_with(LineRead& line, const std::string& source, std::string message) {
  line.set_aside.emplace();
  line.set_aside->where = SourceLocation{source, line.number, 0};
  line.set_aside->message = std::move(message);
}

// Slurm writes a job name or working directory as it is, line breaks included, and a user
// can write a whole line of any job after one. Such a break leaves a line that is no job
// completion where it falls: the lines on both sides of one are set aside.
void set_aside_beside_broken_lines(std::vector<LineRead>& lines, const std::string& source) {
  std::vector<std::pair<std::size_t, std::uint32_t>> beside;  // (line index, the broken line's number)
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].broken) continue;
    if (i > 0) beside.emplace_back(i - 1, lines[i].number);
    if (i + 1 < lines.size()) beside.emplace_back(i + 1, lines[i].number);
  }
  for (const auto& [i, broken] : beside) {
    LineRead& line = lines[i];
    if (!line.job) continue;
    set_aside_with(line, source,
        fmt::format("job {}: next to line {}, which is no jobcomp/filetxt line (where a line break in a job name "
                    "or working directory falls): a user can write a whole line of any job beside such a break, so "
                    "this line cannot be told from Slurm's",
                    line.job->job_id, broken));
    line.job.reset();
  }
}

// A job (cluster, JobId) whose lines name more than one user: one of them was written by
// a user (after a line break in a chosen value), and which cannot be told, so all are set
// aside. A requeued job has a line per start, all of the same user.
void set_aside_jobs_of_two_users(std::vector<LineRead>& lines, const std::string& source) {
  std::map<std::pair<std::string, std::uint64_t>, std::vector<std::size_t>> by_job;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].job) by_job[{lines[i].job->cluster, lines[i].job->job_id}].push_back(i);
  for (const auto& [key, indices] : by_job) {
    std::set<std::string> users;
    for (const std::size_t i : indices) users.insert(field_of(*lines[i].job, "UserId"));
    if (users.size() < 2) continue;
    std::string said;
    for (const std::size_t i : indices)
      said += fmt::format("{}line {} {}", said.empty() ? "" : ", ", lines[i].number, field_of(*lines[i].job, "UserId"));
    for (const std::size_t i : indices) {
      set_aside_with(lines[i], source,
          fmt::format("job {} of cluster {}: its lines name different users ({}): a user can write a line of "
                      "another user's job after a line break in a job name or working directory, so which is "
                      "Slurm's cannot be told",
                      key.second, key.first, said));
    }
    for (const std::size_t i : indices) lines[i].job.reset();
  }
}

}  // namespace

JobcompFile read_jobcomp(std::istream& in, const std::string& source) {
  JobcompFile out;
  std::vector<LineRead> lines;  // the non-empty lines, each read on its own
  bool any_job = false;
  std::string raw;
  std::uint32_t line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (raw.find_first_not_of(' ') == std::string::npos) continue;
    const Utf8Repair utf8 = replace_invalid_utf8(raw);
    out.replaced_bytes += utf8.replaced_bytes;
    const std::string_view text = trimmed(utf8.text(raw));
    const Format* format = form_of(text);
    std::vector<JobcompFields> readings = readings_in_form(text, format, 2);
    LineRead read;
    read.number = line;
    read.broken = readings.empty();
    try {
      if (readings.empty()) throw not_a_completion_line(text, format, source, line);
      if (readings.size() > 1)
        throw ConfigError({source, line, 0},
                          fmt::format("job {}: the line reads more than one way, with different {}: a value a user "
                                      "chose (a job name, a working directory) holds text that reads as the fields "
                                      "after it",
                                      readings[0].front().second, disagreeing_fields(readings[0], readings[1])));
      read.job = parse_line(std::move(readings.front()), source, line);
      any_job = true;
    } catch (const ConfigError& e) {
      read.set_aside = SetAsideLine{e.where(), e.message()};
    }
    lines.push_back(std::move(read));
  }
  if (in.bad()) throw ConfigError({source, line, 0}, "read error");
  if (!any_job && !lines.empty()) throw ConfigError(lines.front().set_aside->where, lines.front().set_aside->message);
  set_aside_beside_broken_lines(lines, source);
  set_aside_jobs_of_two_users(lines, source);
  for (LineRead& read : lines) {
    if (read.job) out.jobs.push_back(std::move(*read.job));
    else out.set_aside.push_back(std::move(*read.set_aside));
  }
  return out;
}

JobcompFile read_jobcomp(const std::filesystem::path& file) {
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
