// The fast run record reader (see run_record_fast.hpp): simdjson's DOM, the same rules as
// run_record_parse.cpp, and a refusal (Decline) wherever a rule would fail.
#include "run_record_fast.hpp"

#include <simdjson.h>

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <limits>

#include "hetscale/base/json_depth.hpp"
#include "hetscale/base/json_fields.hpp"
#include "hetscale/base/number_limits.hpp"

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

// `max`: the magnitude allowed (number_limits.hpp), as in run_record_parse.cpp.
double number(element value, double max) {
  require(is_number(value));
  const double x = double(value);
  require(std::isfinite(x) && std::fabs(x) <= max);
  return x;
}

double non_negative(element value, double max) {
  const double x = number(value, max);
  require(x >= 0);
  return x;
}

double positive(element value, double max) {
  const double x = number(value, max);
  require(x > 0);
  return x;
}

double optional_non_negative(element value, double max) {
  return value.is_null() ? 0.0 : non_negative(value, max);
}

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

// Marks key number `bit` as seen and passes its value on; a key seen twice is declined
// (nlohmann would keep the last one).
element once(std::bitset<32>& seen, std::size_t bit, element value) {
  require(!seen[bit]);
  seen[bit] = true;
  return value;
}

RankTiming rank_timing(element value) {
  object o;
  require(value.get_object().get(o) == simdjson::SUCCESS);
  RankTiming rank;
  std::bitset<32> seen;
  for (auto field : o) {
    const std::string_view key = field.key;
    if (key == "rank")
      rank.rank = small_counter(once(seen, 0, field.value));
    else if (key == "host")
      rank.host = non_empty_text(once(seen, 1, field.value));
    else if (key == "weight")
      rank.weight = non_negative(once(seen, 2, field.value), kMaxWeight);
    else if (key == "marked_speed")
      rank.marked_speed = optional_non_negative(once(seen, 3, field.value), kMaxSpeed);
    else if (key == "compute_seconds")
      rank.compute_seconds = optional_non_negative(once(seen, 4, field.value), kMaxSeconds);
    else if (key == "communication_seconds")
      rank.communication_seconds = optional_non_negative(once(seen, 5, field.value), kMaxSeconds);
    else if (key == "wall_seconds")
      rank.wall_seconds = non_negative(once(seen, 6, field.value), kMaxSeconds);
    else
      throw Decline{};
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
  std::vector<int> numbers;
  numbers.reserve(a.size());
  for (element e : a) {
    out.push_back(rank_timing(e));
    numbers.push_back(out.back().rank);
  }
  std::sort(numbers.begin(), numbers.end());
  require(std::adjacent_find(numbers.begin(), numbers.end()) == numbers.end());  // no rank twice
  return out;
}

ParameterValues parameters(element value) {
  object o;
  require(value.get_object().get(o) == simdjson::SUCCESS);
  ParameterValues out;
  for (auto field : o) {
    require(!field.key.empty() && field.key.find('\0') == std::string_view::npos);
    require(out.emplace(std::string(field.key), number(field.value, kMaxParameter)).second);
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
    if (key == "job_id")
      ids.job_id = optional_counter(once(seen, 0, field.value));
    else if (key == "array_job_id")
      ids.array_job_id = optional_counter(once(seen, 1, field.value));
    else if (key == "array_task_id")
      ids.array_task_id = optional_counter(once(seen, 2, field.value));
    else if (key == "step_id")
      ids.step_id = optional_counter(once(seen, 3, field.value));
    else if (key == "node_list")
      ids.node_list = optional_text(once(seen, 4, field.value));
    else if (key == "cluster") {
      const element v = once(seen, 5, field.value);
      if (v.is_null()) continue;
      std::string name = optional_text(v);
      require(!name.empty());
      ids.cluster = std::move(name);
    }
    else
      throw Decline{};
  }
  return ids;
}

// The nlohmann value that parsing the element's minified text would give (so that
// RunRecord holds the same value as on the slow path): a non-negative integer is unsigned
// there, a negative one signed; a string holding a NUL, even escaped, is declined. The
// parser's depth limit bounds the recursion.
nlohmann::json as_nlohmann(element value) {
  switch (value.type()) {
    case element_type::OBJECT: {
      nlohmann::json out = nlohmann::json::object();
      for (auto field : object(value)) {
        require(field.key.find('\0') == std::string_view::npos);
        out[std::string(field.key)] = as_nlohmann(field.value);
      }
      return out;
    }
    case element_type::ARRAY: {
      nlohmann::json out = nlohmann::json::array();
      for (element e : simdjson::dom::array(value)) out.push_back(as_nlohmann(e));
      return out;
    }
    case element_type::STRING:
      return std::string(text(value));
    case element_type::INT64: {
      const std::int64_t n = int64_t(value);
      return n >= 0 ? nlohmann::json(static_cast<std::uint64_t>(n)) : nlohmann::json(n);
    }
    case element_type::UINT64:
      return uint64_t(value);
    case element_type::DOUBLE:
      return double(value);
    case element_type::BOOL:
      return bool(value);
    case element_type::NULL_VALUE:
      return nullptr;
  }
  throw Decline{};
}

nlohmann::json fingerprint(element value) {
  require(value.type() == element_type::OBJECT);
  return as_nlohmann(value);
}

void check_schema(element value) {
  require(value.type() == element_type::INT64 && int64_t(value) == run_record_schema);
}

std::optional<int> optional_small_counter(element value) {
  return value.is_null() ? std::nullopt : std::optional<int>(small_counter(value));
}

int repetition(element value) {
  return value.is_null() ? 0 : small_counter(value);
}

bool verified(element value) {
  if (value.is_null()) return false;
  require(value.is_bool());
  return bool(value);
}

nlohmann::json optional_fingerprint(element value) {
  return value.is_null() ? nlohmann::json::object() : fingerprint(value);
}

std::optional<std::string> optional_engine(element value) {
  if (value.is_null()) return std::nullopt;
  std::string engine(text(value));
  require(is_run_engine(engine));
  return engine;
}

std::optional<std::string> optional_platform_hash(element value) {
  if (value.is_null()) return std::nullopt;
  std::string hash(text(value));
  require(is_platform_hash(hash));
  return hash;
}

std::optional<std::string> optional_weights_digest(element value) {
  if (value.is_null()) return std::nullopt;
  std::string digest(text(value));
  require(is_weights_digest(digest));
  return digest;
}

std::optional<std::string> optional_timed_by(element value) {
  if (value.is_null()) return std::nullopt;
  std::string timed_by(text(value));
  require(is_timed_by(timed_by));
  return timed_by;
}

std::optional<int> optional_exit_status(element value) {
  if (value.is_null()) return std::nullopt;
  const int status = small_counter(value);
  require(status <= max_exit_status);
  return status;
}

RunRecord record(object o) {
  RunRecord r;
  std::bitset<32> seen;
  for (auto field : o) {
    const std::string_view key = field.key;
    const element v = field.value;
    if (key == "schema")
      check_schema(once(seen, 0, v));
    else if (key == "experiment")
      r.experiment = optional_text(once(seen, 1, v));
    else if (key == "code")
      r.code = non_empty_text(once(seen, 2, v));
    else if (key == "workload")
      r.workload = std::string(text(once(seen, 3, v)));
    else if (key == "parameters")
      r.parameters = parameters(once(seen, 4, v));
    else if (key == "work")
      r.work = positive(once(seen, 5, v), kMaxWork);
    else if (key == "wall_seconds")
      r.wall_seconds = positive(once(seen, 6, v), kMaxSeconds);
    else if (key == "marked_speed")
      r.marked_speed = optional_non_negative(once(seen, 7, v), kMaxSpeed);
    else if (key == "speed_unit")
      r.speed_unit = optional_text(once(seen, 8, v));
    else if (key == "weights_source")
      r.weights_source = optional_text(once(seen, 9, v));
    else if (key == "ranks")
      r.ranks = ranks(once(seen, 10, v));
    else if (key == "slurm")
      r.slurm = slurm_ids(once(seen, 11, v));
    else if (key == "machine_set")
      r.machine_set = optional_small_counter(once(seen, 12, v));
    else if (key == "repetition")
      r.repetition = repetition(once(seen, 13, v));
    else if (key == "start_time")
      r.start_time = optional_timestamp(once(seen, 14, v));
    else if (key == "end_time")
      r.end_time = optional_timestamp(once(seen, 15, v));
    else if (key == "verified")
      r.verified = verified(once(seen, 16, v));
    else if (key == "fingerprint")
      r.fingerprint = optional_fingerprint(once(seen, 17, v));
    else if (key == "engine")
      r.engine = optional_engine(once(seen, 18, v));
    else if (key == "platform_hash")
      r.platform_hash = optional_platform_hash(once(seen, 19, v));
    else if (key == "weights_digest")
      r.weights_digest = optional_weights_digest(once(seen, 20, v));
    else if (key == "timed_by")
      r.timed_by = optional_timed_by(once(seen, 21, v));
    else if (key == "exit_status")
      r.exit_status = optional_exit_status(once(seen, 22, v));
    else  // any other key, node_times and ranks_timed_by too (steps timed from outside,
      throw Decline{};  // few): the reference path reads them
  }
  for (std::size_t required : {0, 2, 3, 4, 5, 6, 10}) require(seen[required]);
  return r;
}

constexpr std::size_t kParserDepth = kMaxJsonNesting - 2;

simdjson::dom::parser depth_limited_parser() {
  simdjson::dom::parser parser;
  if (parser.allocate(simdjson::SIMDJSON_PADDING, kParserDepth) != simdjson::SUCCESS)
    throw std::bad_alloc();
  return parser;
}

}  // namespace

std::optional<RunRecord> run_record_from_text(std::string_view text) {
  // The parser refuses a text nested deeper than kParserDepth (below kMaxJsonNesting, so
  // that whatever it takes is within the limit, whatever its own way of counting levels);
  // the reference path decides on those.
  thread_local simdjson::dom::parser parser = depth_limited_parser();
  try {
    element root;
    if (parser.parse(text.data(), text.size(), true).get(root) != simdjson::SUCCESS)
      return std::nullopt;
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
