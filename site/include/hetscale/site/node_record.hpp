// The node record: what `hetscale classify` prints for one node (one JSON object on one
// line) and `hetscale groups` reads back. Format in docs/admin-classify.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/site/hardware.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {

inline constexpr int node_record_schema = 1;

/// The node's availability (docs/science.md section 3): its delivered speed sampled in short
/// windows over a period (`hetscale classify --availability`), relative to its marked
/// speed. A(t) per window; a_i its mean, sigma_Ai its standard deviation over the windows
/// (population), TH_i = sigma_Ai / a_i.
struct NodeAvailability {
  double period_seconds = 0;   // how long it was sampled
  double window_seconds = 0;   // the length of one window
  double reference_speed = 0;  // the marked speed (per processor) A(t) is relative to
  std::string reference;       // "measured": this record's marked speed; "given": --marked-speed
  std::vector<double> series;  // A(t), one per window, in time order
  double mean = 0;             // a_i
  double sd = 0;               // sigma_Ai
  double th = 0;               // TH_i = sigma_Ai / a_i
  /// How long availability stays correlated: the first lag (seconds, interpolated between
  /// windows) at which the series' autocorrelation drops below 1/e. None when it never does
  /// within the series (or the series is constant).
  std::optional<double> correlation_seconds;
};

/// The marked speed of one kind of core of a hybrid node (more than one CPU kind), measured
/// with the benchmark on that kind's CPUs alone, as the node's is on all of them.
struct KindSpeed {
  std::size_t kind = 0;          // index into hardware.cpu_kinds
  std::vector<unsigned> cpus;    // the kind's CPUs the workers ran on
  std::uint32_t processors = 0;  // workers
  double marked_speed = 0;       // per processor, in the record's speed_unit
  int repetitions = 0;
  double cv = 0;
  double duration_seconds = 0;
};

struct NodeRecord {
  int schema = node_record_schema;
  std::string host;
  std::string time;                 // ISO 8601 UTC, "2026-11-21T06:10:00Z" (fraction allowed)
  NodeState state = NodeState::ok;  // ok or excluded (degraded is decided by `groups`)
  std::string reason;               // why the node is excluded; empty when ok
  std::string fingerprint;          // hardware_fingerprint(hardware)
  HardwareParts hardware;
  std::string topology_source;       // "live", "xml:FILE" or "synthetic:SPEC"
  std::string benchmark;             // "dgemm", "stream", "kernel:mm:512"
  std::uint64_t benchmark_size = 0;  // its problem size (dgemm order...); 0 when not run
  std::string speed_unit;            // unit of marked_speed ("Mflops", "MB/s")
  double marked_speed = 0;           // per processor; 0 when excluded before measuring
  std::uint32_t processors = 0;      // workers: the CPUs of the job's allocation used
  std::vector<unsigned> cpus;        // their OS indices
  /// "pinned" (one worker per CPU of `cpus`), "unpinned" (`processors` workers sharing
  /// `cpus`: Slurm bound none), "" (not run, or a record older than the key).
  std::string binding;
  std::string binding_reason;  // why, in words
  int repetitions = 0;
  double cv = 0;                // coefficient of variation over the repetitions
  double duration_seconds = 0;  // wall time of the whole benchmark, calibration run included
  nlohmann::json software = nlohmann::json::object();  // {"hetscale": "0.1.0", "hwloc": ...}
  std::optional<NodeAvailability> availability;        // only from `classify --availability`
  std::vector<KindSpeed> kind_speeds;  // one per kind measured; only on a node of several kinds
};

/// The "availability" object of a node record.
nlohmann::json availability_to_json(const NodeAvailability& availability);

/// The record as one JSON object with stable keys.
nlohmann::json to_json(const NodeRecord& record);

/// The "hardware" object of a node record (the fingerprint's parts).
nlohmann::json hardware_to_json(const HardwareParts& hardware);

/// Validates and converts one parsed object. Throws Error naming the field, e.g.
/// "field 'marked_speed' must be a positive number for a node in state ok", or
/// "schema 2 is not supported (this hetscale reads node records of schema 1)".
NodeRecord node_record_from_json(const nlohmann::json& object);

/// Orders time stamps of node records; -1, 0, 1 as a <, ==, > b.
int compare_record_times(const std::string& a, const std::string& b);

/// A record and where it was read from (file and line).
struct LocatedNodeRecord {
  NodeRecord record;
  SourceLocation where;
};

/// Records and the problems met reading them; a bad line never stops the others.
struct NodeRecordBatch {
  std::vector<LocatedNodeRecord> records;
  std::vector<std::string> errors;  // "file:line: message", one per bad line
};

/// Reads JSON Lines (one record per line; blank lines ignored) and appends to `batch`.
/// `source` names the stream in messages (a file name or "<stdin>").
void read_node_records(std::istream& in, const std::string& source, NodeRecordBatch& batch);

/// Reads a file, or every *.json and *.jsonl file of a directory (sorted by name, not
/// recursive). An unreadable path is one error in `batch`, not an exception.
void read_node_record_path(const std::filesystem::path& path, NodeRecordBatch& batch);

}  // namespace hetscale
