// Reading the run record (docs/run-record.md): validation of one parsed JSON object. Every
// error names the offending field, so the collector can report file, line and field.
#include <set>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/base/json_fields.hpp"
#include "hetscale/base/number_limits.hpp"
#include "hetscale/site/run_record.hpp"

namespace hetscale {
namespace {

using namespace json_fields;

RankTiming rank_timing(const Json& value, const std::string& field) {
  if (!value.is_object()) fail(field, "must be an object");
  reject_unknown_keys(value, field,
                      {"rank", "host", "weight", "marked_speed", "compute_seconds",
                       "communication_seconds", "wall_seconds"});
  RankTiming rank;
  rank.rank = small_counter(require(value, field, "rank"), field + ".rank");
  rank.host = non_empty_text(require(value, field, "host"), field + ".host");
  rank.weight = non_negative(require(value, field, "weight"), field + ".weight", kMaxWeight);
  rank.marked_speed = optional_non_negative(value, field, "marked_speed", kMaxSpeed);
  rank.compute_seconds = optional_non_negative(value, field, "compute_seconds", kMaxSeconds);
  rank.communication_seconds =
      optional_non_negative(value, field, "communication_seconds", kMaxSeconds);
  rank.wall_seconds =
      non_negative(require(value, field, "wall_seconds"), field + ".wall_seconds", kMaxSeconds);
  return rank;
}

std::vector<RankTiming> ranks(const Json& object) {
  const Json& value = require(object, "", "ranks");
  if (!value.is_array() || value.empty()) fail("ranks", "must be a non-empty array");
  std::vector<RankTiming> out;
  out.reserve(value.size());
  std::set<int> seen;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string field = "ranks[" + std::to_string(i) + "]";
    out.push_back(rank_timing(value[i], field));
    if (!seen.insert(out.back().rank).second) {
      fail(field + ".rank", "repeats rank " + std::to_string(out.back().rank));
    }
  }
  return out;
}

NodeTime node_time(const Json& value, const std::string& field) {
  if (!value.is_object()) fail(field, "must be an object");
  reject_unknown_keys(value, field, {"host", "tasks", "start_time", "end_time", "wall_seconds"});
  NodeTime node;
  node.host = non_empty_text(require(value, field, "host"), field + ".host");
  node.tasks = small_counter(require(value, field, "tasks"), field + ".tasks");
  if (node.tasks == 0) fail(field + ".tasks", "must be at least 1");
  node.start_time = optional_timestamp(value, field, "start_time");
  node.end_time = optional_timestamp(value, field, "end_time");
  node.wall_seconds =
      non_negative(require(value, field, "wall_seconds"), field + ".wall_seconds", kMaxSeconds);
  return node;
}

// Absent or null: not known. One entry per node: a host twice is refused.
std::vector<NodeTime> node_times(const Json& object) {
  const Json* value = find(object, "node_times");
  if (absent(value)) return {};
  if (!value->is_array() || value->empty()) fail("node_times", "must be a non-empty array");
  std::vector<NodeTime> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < value->size(); ++i) {
    const std::string field = "node_times[" + std::to_string(i) + "]";
    out.push_back(node_time((*value)[i], field));
    if (!seen.insert(out.back().host).second) fail(field + ".host", "repeats host " + out.back().host);
  }
  return out;
}

ParameterValues parameters(const Json& object) {
  const Json& value = require(object, "", "parameters");
  if (!value.is_object()) fail("parameters", "must be an object of numbers");
  ParameterValues out;
  for (const auto& item : value.items()) {
    if (item.key().empty()) fail("parameters", "must not have an empty name");
    if (item.key().find('\0') != std::string::npos) {
      fail("parameters", "must not contain a NUL character");
    }
    out.emplace(item.key(),
                finite_number(item.value(), "parameters." + item.key(), kMaxParameter));
  }
  return out;
}

SlurmIds slurm_ids(const Json& object) {
  const Json* value = find(object, "slurm");
  if (absent(value)) return {};
  if (!value->is_object()) fail("slurm", "must be an object");
  reject_unknown_keys(*value, "slurm",
                      {"job_id", "array_job_id", "array_task_id", "step_id", "node_list", "cluster"});
  SlurmIds ids;
  ids.job_id = optional_counter(*value, "slurm", "job_id");
  ids.array_job_id = optional_counter(*value, "slurm", "array_job_id");
  ids.array_task_id = optional_counter(*value, "slurm", "array_task_id");
  ids.step_id = optional_counter(*value, "slurm", "step_id");
  ids.node_list = optional_text(*value, "slurm", "node_list");
  // Absent or null: not known (a record written outside Slurm, or by an older kernel).
  if (std::string cluster = optional_text(*value, "slurm", "cluster"); !cluster.empty()) {
    ids.cluster = std::move(cluster);
  } else if (const Json* given = find(*value, "cluster"); !absent(given)) {
    fail("slurm.cluster", "must not be empty (leave it out when the cluster is not known)");
  }
  return ids;
}

void check_schema(const Json& object) {
  const Json& value = require(object, "", "schema");
  if (!value.is_number_integer() || value.get<std::int64_t>() != run_record_schema) {
    fail("schema", "must be " + std::to_string(run_record_schema) + " (got " + shown(value) + ")");
  }
}

}  // namespace

RunRecord run_record_from_json(const Json& object) {
  if (!object.is_object()) throw Error("a run record must be a JSON object");
  check_schema(object);  // first: a newer schema explains every other difference
  reject_unknown_keys(object, "",
                      {"schema",   "experiment",   "code",         "workload",   "parameters",
                       "work",     "wall_seconds", "marked_speed", "speed_unit", "weights_source",
                       "ranks",    "slurm",        "machine_set",  "repetition", "start_time",
                       "end_time", "verified",     "fingerprint",  "engine",     "platform_hash",
                       "weights_digest", "timed_by", "exit_status", "ranks_timed_by", "node_times"});
  RunRecord record;
  record.experiment = optional_text(object, "", "experiment");
  record.code = non_empty_text(require(object, "", "code"), "code");
  record.workload = text(require(object, "", "workload"), "workload");
  record.parameters = parameters(object);
  record.work = positive(require(object, "", "work"), "work", kMaxWork);
  record.wall_seconds = positive(require(object, "", "wall_seconds"), "wall_seconds", kMaxSeconds);
  record.marked_speed = optional_non_negative(object, "", "marked_speed", kMaxSpeed);
  record.speed_unit = optional_text(object, "", "speed_unit");
  record.weights_source = optional_text(object, "", "weights_source");
  record.ranks = ranks(object);
  record.slurm = slurm_ids(object);
  if (const Json* set = find(object, "machine_set"); !absent(set)) {
    record.machine_set = small_counter(*set, "machine_set");
  }
  if (const Json* rep = find(object, "repetition"); !absent(rep)) {
    record.repetition = small_counter(*rep, "repetition");
  }
  record.start_time = optional_timestamp(object, "", "start_time");
  record.end_time = optional_timestamp(object, "", "end_time");
  if (const Json* verified = find(object, "verified"); !absent(verified)) {
    if (!verified->is_boolean()) fail("verified", "must be true or false");
    record.verified = verified->get<bool>();
  }
  if (const Json* fingerprint = find(object, "fingerprint"); !absent(fingerprint)) {
    require_jsonb_safe(*fingerprint, "fingerprint");
    record.fingerprint = *fingerprint;
  }
  if (const Json* engine = find(object, "engine"); !absent(engine)) {
    record.engine = text(*engine, "engine");
    if (!is_run_engine(*record.engine)) fail("engine", "must be slurm, mpirun or simgrid");
  }
  if (const Json* hash = find(object, "platform_hash"); !absent(hash)) {
    record.platform_hash = text(*hash, "platform_hash");
    if (!is_platform_hash(*record.platform_hash))
      fail("platform_hash", "must be hexadecimal digits");
  }
  if (const Json* digest = find(object, "weights_digest"); !absent(digest)) {
    record.weights_digest = text(*digest, "weights_digest");
    if (!is_weights_digest(*record.weights_digest))
      fail("weights_digest", "must be 64 lower-case hexadecimal digits, or several joined by ','");
  }
  if (const Json* timed_by = find(object, "timed_by"); !absent(timed_by)) {
    record.timed_by = text(*timed_by, "timed_by");
    if (!is_timed_by(*record.timed_by)) fail("timed_by", "must be program or step");
  }
  if (const Json* status = find(object, "exit_status"); !absent(status)) {
    const int value = small_counter(*status, "exit_status");
    if (value > max_exit_status) {
      fail("exit_status", "must be at most " + std::to_string(max_exit_status) + ", not " + std::to_string(value));
    }
    record.exit_status = value;
  }
  if (const Json* by = find(object, "ranks_timed_by"); !absent(by)) {
    record.ranks_timed_by = text(*by, "ranks_timed_by");
    if (!is_ranks_timed_by(*record.ranks_timed_by)) fail("ranks_timed_by", "must be step or spank");
  }
  record.node_times = node_times(object);
  return record;
}

}  // namespace hetscale
