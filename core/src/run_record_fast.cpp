// The fast run record reader (see run_record_fast.hpp): simdjson's DOM, the same rules as
// run_record_parse.cpp, and a refusal (Decline) wherever a rule would fail.
#include "run_record_fast.hpp"

#include <simdjson.h>

#include <bitset>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "json_fields.hpp"

namespace hetscale::fast {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

struct Decline {};  // not an error: "let the reference path decide"

void require(bool condition) {
  if (!condition) throw Decline{};
}

std::string_view text(element value) {
  std::string_view s;
  require(value.get_string().get(s) == simdjson::SUCCESS);
  require(s.find('\0') == std::string_view::npos);
  return s;
}

std::string non_empty_text(element value) {
  const std::string_view s = text(value);
  require(!s.empty());
  return std::string(s);
}

std::string optional_text(element value) {
  return value.is_null() ? std::string() : std::string(text(value));
}

bool is_number(element value) {
  const element_type t = value.type();
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

double number(element value) {
  require(is_number(value));
  const double x = double(value);
  require(std::isfinite(x));
  return x;
}

double non_negative(element value) {
  const double x = number(value);
  require(x >= 0);
  return x;
}

double positive(element value) {
  const double x = number(value);
  require(x > 0);
  return x;
}

double optional_non_negative(element value) { return value.is_null() ? 0.0 : non_negative(value); }

std::uint64_t counter(element value) {
  if (value.type() == element_type::INT64) {
    const std::int64_t n = int64_t(value);
    require(n >= 0);
    return static_cast<std::uint64_t>(n);
  }
  require(value.type() == element_type::UINT64);
  const std::uint64_t n = uint64_t(value);
  require(n <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  return n;
}

int small_counter(element value) {
  const std::uint64_t n = counter(value);
  require(n <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()));
  return static_cast<int>(n);
}

std::optional<std::uint64_t> optional_counter(element value) {
  if (value.is_null()) return std::nullopt;
  return counter(value);
}

std::string optional_timestamp(element value) {
  std::string s = optional_text(value);
  require(s.empty() || json_fields::is_iso8601(s));
  return s;
}

// Marks a key as seen; a key seen twice is declined (nlohmann keeps the last one).
void see(std::bitset<32>& seen, std::size_t bit) {
  require(!seen[bit]);
  seen[bit] = true;
}

RankTiming rank_timing(element value) {
  object o;
  require(value.get_object().get(o) == simdjson::SUCCESS);
  RankTiming rank;
  std::bitset<32> seen;
  for (auto field : o) {
    const std::string_view key = field.key;
    if (key == "rank") see(seen, 0), rank.rank = small_counter(field.value);
    else if (key == "host") see(seen, 1), rank.host = non_empty_text(field.value);
    else if (key == "weight") see(seen, 2), rank.weight = non_negative(field.value);
    else if (key == "marked_speed") see(seen, 3), rank.marked_speed = optional_non_negative(field.value);
    else if (key == "compute_seconds") see(seen, 4), rank.compute_seconds = optional_non_negative(field.value);
    else if (key == "communication_seconds") see(seen, 5), rank.communication_seconds = optional_non_negative(field.value);
    else if (key == "wall_seconds") see(seen, 6), rank.wall_seconds = non_negative(field.value);
    else throw Decline{};
  }
  require(seen[0] && seen[1] && seen[2] && seen[6]);  // the required ones
  return rank;
}

std::vector<RankTiming> ranks(element value) {
  simdjson::dom::array a;
  require(value.get_array().get(a) == simdjson::SUCCESS);
  require(a.size() > 0);
  std::vector<RankTiming> out;
  out.reserve(a.size());
  std::set<int> numbers;
  for (element e : a) {
    out.push_back(rank_timing(e));
    require(numbers.insert(out.back().rank).second);
  }
  return out;
}

ParameterValues parameters(element value) {
  object o;
  require(value.get_object().get(o) == simdjson::SUCCESS);
  ParameterValues out;
  for (auto field : o) {
    require(!field.key.empty() && field.key.find('\0') == std::string_view::npos);
    require(out.emplace(std::string(field.key), number(field.value)).second);
  }
  return out;
}

SlurmIds slurm_ids(element value) {
  if (value.is_null()) return {};
  object o;
  require(value.get_object().get(o) == simdjson::SUCCESS);
  SlurmIds ids;
  std::bitset<32> seen;
  for (auto field : o) {
    const std::string_view key = field.key;
    if (key == "job_id") see(seen, 0), ids.job_id = optional_counter(field.value);
    else if (key == "array_job_id") see(seen, 1), ids.array_job_id = optional_counter(field.value);
    else if (key == "array_task_id") see(seen, 2), ids.array_task_id = optional_counter(field.value);
    else if (key == "step_id") see(seen, 3), ids.step_id = optional_counter(field.value);
    else if (key == "node_list") see(seen, 4), ids.node_list = optional_text(field.value);
    else throw Decline{};
  }
  return ids;
}

// Small: handed to nlohmann so that RunRecord holds the same value as on the slow path.
nlohmann::json fingerprint(element value) {
  require(value.type() == element_type::OBJECT);
  const std::string minified = simdjson::minify(value);
  require(minified.find("\\u0000") == std::string::npos);  // declines even an escaped one
  return nlohmann::json::parse(minified);
}

RunRecord record(object o) {
  RunRecord r;
  std::bitset<32> seen;
  for (auto field : o) {
    const std::string_view key = field.key;
    const element v = field.value;
    if (key == "schema") see(seen, 0), require(v.type() == element_type::INT64 && int64_t(v) == run_record_schema);
    else if (key == "experiment") see(seen, 1), r.experiment = optional_text(v);
    else if (key == "code") see(seen, 2), r.code = non_empty_text(v);
    else if (key == "workload") see(seen, 3), r.workload = std::string(text(v));
    else if (key == "parameters") see(seen, 4), r.parameters = parameters(v);
    else if (key == "work") see(seen, 5), r.work = positive(v);
    else if (key == "wall_seconds") see(seen, 6), r.wall_seconds = positive(v);
    else if (key == "marked_speed") see(seen, 7), r.marked_speed = optional_non_negative(v);
    else if (key == "speed_unit") see(seen, 8), r.speed_unit = optional_text(v);
    else if (key == "weights_source") see(seen, 9), r.weights_source = optional_text(v);
    else if (key == "ranks") see(seen, 10), r.ranks = ranks(v);
    else if (key == "slurm") see(seen, 11), r.slurm = slurm_ids(v);
    else if (key == "machine_set") see(seen, 12), r.machine_set = v.is_null() ? std::nullopt : std::optional<int>(small_counter(v));
    else if (key == "repetition") see(seen, 13), r.repetition = v.is_null() ? 0 : small_counter(v);
    else if (key == "start_time") see(seen, 14), r.start_time = optional_timestamp(v);
    else if (key == "end_time") see(seen, 15), r.end_time = optional_timestamp(v);
    else if (key == "verified") see(seen, 16), r.verified = v.is_null() ? false : [&] { require(v.is_bool()); return bool(v); }();
    else if (key == "fingerprint") see(seen, 17), r.fingerprint = v.is_null() ? nlohmann::json::object() : fingerprint(v);
    else throw Decline{};
  }
  for (std::size_t required : {0, 2, 3, 4, 5, 6, 10}) require(seen[required]);
  return r;
}

}  // namespace

std::optional<RunRecord> run_record_from_text(std::string_view text) {
  thread_local simdjson::dom::parser parser;
  try {
    element root;
    if (parser.parse(text.data(), text.size(), true).get(root) != simdjson::SUCCESS) return std::nullopt;
    object o;
    if (root.get_object().get(o) != simdjson::SUCCESS) return std::nullopt;
    return record(o);
  } catch (const Decline&) {
    return std::nullopt;
  } catch (const std::exception&) {  // anything unexpected: the reference path decides
    return std::nullopt;
  }
}

}  // namespace hetscale::fast
