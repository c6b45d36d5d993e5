// The run record (docs/run-record.md): one JSON object per run, one line in a
// JSON Lines file. Written by the kernels (and any code through the small helper),
// read and validated by the collector.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetscale/site/parameter_values.hpp"

namespace hetscale {

inline constexpr int run_record_schema = 1;

struct RankTiming {
  int rank = 0;
  std::string host;
  double weight = 0;                // share of the work; all ranks sum to 1
  double marked_speed = 0;          // in the site's unit; 0 when unknown
  double compute_seconds = 0;
  double communication_seconds = 0;
  double wall_seconds = 0;
};

/// One node's part of a job step as slurmstepd saw it (the SPANK plugin's task times,
/// task_times.hpp): from its first task's start to its last task's exit.
struct NodeTime {
  std::string host;
  int tasks = 0;
  std::string start_time;    // ISO 8601 UTC
  std::string end_time;
  double wall_seconds = 0;   // end - start, on the node's own clock
};

/// Slurm identifiers, taken from the task's environment; absent outside Slurm.
struct SlurmIds {
  std::optional<std::uint64_t> job_id;
  std::optional<std::uint64_t> array_job_id;
  std::optional<std::uint64_t> array_task_id;
  std::optional<std::uint64_t> step_id;
  std::string node_list;            // the step's nodes as a host-list expression
  std::optional<std::string> cluster;  // SLURM_CLUSTER_NAME: job ids are unique only within it
};

struct RunRecord {
  int schema = run_record_schema;
  std::string experiment;           // from --experiment / HETSCALE_EXPERIMENT; may be empty
  std::string code;                 // kernel name ("mm") or the user's command
  std::string workload;             // the workload formula as given (e.g. "mm", "2*N^3")
  ParameterValues parameters;       // {"N": 1200}
  double work = 0;                  // W from the workload formula (operations)
  double wall_seconds = 0;          // T: wall time of the timed region (kernels: slowest rank)
  double marked_speed = 0;          // C of the step, in speed_unit; 0 when unknown
  std::string speed_unit;           // unit of marked speeds ("Mflops"); empty when unknown
  std::string weights_source;       // marked | equalized | file | equal | option
  std::vector<RankTiming> ranks;
  SlurmIds slurm;
  std::optional<int> machine_set;   // index of the machine set (HETSCALE_MACHINE_SET)
  int repetition = 0;               // HETSCALE_REPETITION, 0-based
  std::string start_time;           // ISO 8601 UTC, e.g. "2026-11-21T06:10:00.123Z"
  std::string end_time;
  bool verified = false;            // the code's own answer check passed
  nlohmann::json fingerprint = nlohmann::json::object();  // {"software":{...},"hardware":{...}}
  // Optional keys of schema 1, written only when set: what ran the code ("slurm",
  // "mpirun" or "simgrid"; absent means a Slurm run) and, for a simulated run, the hash
  // of the platform it ran on (hexadecimal).
  std::optional<std::string> engine;
  std::optional<std::string> platform_hash;
  // HETSCALE_WEIGHTS_DIGEST of the ranks: one digest when they all saw the same, else
  // their distinct digests in ascending order joined by ',' (a step whose nodes read
  // different versions of the site table or partition).
  std::optional<std::string> weights_digest;
  // Who timed the run: "program" (the code itself, through the helpers or a kernel) or
  // "step" (`hetscale record step`, from outside the step); absent means "program".
  std::optional<std::string> timed_by;
  // The step's exit status (0 to 255; 128 + the signal's number for a step killed by one),
  // when known: a step-timed record always has it. Not 0: the run failed and never counts
  // towards E_s. Absent: not known (a code that wrote its own record), and the run counts.
  std::optional<int> exit_status;
  // Who timed ranks[i].wall_seconds when the code did not: "step" (nominal: every rank the
  // step's T) or "spank" (each task's own, from its start to its exit in slurmstepd, the
  // SPANK plugin's task times). Absent: the program timed its ranks itself.
  std::optional<std::string> ranks_timed_by;
  // The step's start to end on every node, from the SPANK plugin's task times, in the
  // order of the ranks' hosts; empty when not known.
  std::vector<NodeTime> node_times;
};

/// The values `timed_by` may take.
[[nodiscard]] bool is_timed_by(std::string_view text);

/// The values `ranks_timed_by` may take.
[[nodiscard]] bool is_ranks_timed_by(std::string_view text);

/// Who timed the record's run: its `timed_by`, or "program" when it has none.
[[nodiscard]] std::string_view run_timed_by(const RunRecord& record);

/// A run failed when its step's exit status is known and not 0.
[[nodiscard]] bool run_failed(const RunRecord& record);

/// The largest exit status a record holds (a shell's range).
inline constexpr int max_exit_status = 255;

/// A weights digest as a record holds it: 64 lower-case hex digits, or several joined by ','.
[[nodiscard]] bool is_weights_digest(std::string_view text);

/// The record's weights_digest from every rank's HETSCALE_WEIGHTS_DIGEST ("" when a rank
/// had none): nullopt when no rank had one, else the distinct digests, sorted, joined by ','.
[[nodiscard]] std::optional<std::string> combine_weights_digests(std::span<const std::string> by_rank);

/// The values `engine` may take.
[[nodiscard]] bool is_run_engine(std::string_view text);

/// What ran the record's code: its `engine`, or "slurm" when it has none.
[[nodiscard]] std::string_view run_engine(const RunRecord& record);

/// A platform hash: one or more hexadecimal digits.
[[nodiscard]] bool is_platform_hash(std::string_view text);

/// Serialises to the contract's JSON object (stable keys; see docs/run-record.md).
nlohmann::json to_json(const RunRecord& record);

/// The record's `node_times` array (as the collector stores it in runs.node_times).
nlohmann::json node_times_json(std::span<const NodeTime> nodes);

/// Appends one line to a JSON Lines file atomically with respect to other writers
/// (single write(2) on an O_APPEND descriptor). Throws Error on I/O failure.
void append_run_record(const std::filesystem::path& file, const RunRecord& record);

/// Validates and converts one parsed JSON object; throws Error naming the offending
/// field (e.g. "field 'ranks[3].wall_seconds' must be a non-negative number").
RunRecord run_record_from_json(const nlohmann::json& object);

}  // namespace hetscale
