// The figures of a network probe, hetscale-commbench's output (docs/twin.md, "Calibration";
// docs/contracts.md, "hetscale-commbench output"): point-to-point times over message sizes,
// between nodes and within a node, fitted piecewise; the bandwidth each of several
// concurrent flows gets (saturation); the kernels' collectives timed per process count and
// size. As types, as JSON (written by hetscale-commbench, read by predict, collect and the
// twin), and as what a message of the kernels costs on the probed network (ProbeCosts).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/model/network_calibration.hpp"
#include "hetscale/model/piecewise_fit.hpp"

namespace hetscale {

/// The version of the probe's keys in hetscale-commbench's output ("probe_version"). A
/// reader refuses a newer one.
inline constexpr int kNetworkProbeVersion = 1;

/// How the kernels' messages travel (kernels/common/collectives.hpp) and what a size in
/// bytes means for each:
///   send       one message between two ranks, of B bytes;
///   broadcast  B bytes from the root to every rank;
///   scatterv   the root's whole buffer of B bytes, B / p to each rank (gatherv: back);
///   allreduce  B bytes on every rank;
///   barrier    no bytes;
///   alltoall   B bytes sent by every rank in all, B / p to each rank.
enum class MessagePattern { send, broadcast, scatterv, gatherv, allreduce, barrier, alltoall };
inline constexpr MessagePattern kMessagePatterns[] = {
    MessagePattern::send,      MessagePattern::broadcast, MessagePattern::scatterv, MessagePattern::gatherv,
    MessagePattern::allreduce, MessagePattern::barrier,   MessagePattern::alltoall};

/// "send", "broadcast", "scatterv", "gatherv", "allreduce", "barrier", "alltoall".
[[nodiscard]] std::string_view to_string(MessagePattern pattern) noexcept;
[[nodiscard]] std::optional<MessagePattern> parse_message_pattern(std::string_view text) noexcept;

/// One size of a point-to-point sweep: the median one-way time of its repetitions.
struct MessageSample {
  double bytes = 0;
  double seconds = 0;
  int repetitions = 0;
};

/// Point to point between two ranks (half a round trip), every size of the sweep and the
/// piecewise-linear fit of them.
struct PointToPointProbe {
  int first_rank = 0;
  int second_rank = 0;
  std::string first_host;
  std::string second_host;
  std::vector<MessageSample> samples;  // by size
  PiecewiseLinearFit fit;
};

/// `flows` disjoint pairs of nodes sending at once, one message of the probe's size each:
/// the median time of a flow and the bandwidth that gives each flow.
struct SaturationPoint {
  int flows = 1;
  double seconds = 0;
  double per_flow_MBps = 0;
};

/// An all-to-all among one rank per node: every rank sends bytes_per_pair to every other;
/// each rank's bytes over the time, the bandwidth each of the `processes` flows gets.
struct AllToAllPoint {
  int processes = 0;
  double bytes_per_pair = 0;
  double seconds = 0;
  double per_flow_MBps = 0;
};

struct SaturationProbe {
  double message_bytes = 0;
  /// "groups": each pair joins nodes of different site-table groups where the groups allow
  /// it; "halves": the first half of the nodes (in rank order) with the second.
  std::string pairing;
  std::vector<std::pair<std::string, std::string>> pairs;  // in the order flows are added
  std::vector<SaturationPoint> points;                      // by flows, 1 first
  std::optional<AllToAllPoint> alltoall;

  /// The share of a lone flow's bandwidth each of `flows` concurrent flows gets, in (0, 1]:
  /// from the points and the all-to-all (at its processes), linear in ln(flows) between
  /// them, held beyond the first and the last. 1 when nothing was measured.
  [[nodiscard]] double per_flow_share(double flows) const;
};

/// One collective of the kernels on the first `processes` ranks, timed as a kernel meets
/// it (one rank late, docs/twin.md): the median over its repetitions.
struct CollectiveSample {
  MessagePattern pattern = MessagePattern::barrier;
  int processes = 0;
  double bytes = 0;
  double seconds = 0;
  int repetitions = 0;
};

struct NetworkProbe {
  int version = kNetworkProbeVersion;
  std::string engine;       // "slurm", "simgrid" or "mpirun" (an MPI launcher outside Slurm)
  std::string experiment;   // "" when none was named
  std::string site;         // the site table's name, "" when none was given
  std::optional<int> machine_set;
  std::optional<std::uint64_t> slurm_job_id;
  std::string measured_at;  // ISO 8601 UTC, when the probe started
  std::vector<std::string> hosts;  // every rank's host, by rank
  std::string wait;                // spin or sleep (HETSCALE_MPI_WAIT)
  std::string load = "none";       // none, spin or dgemm beside the measurements
  double skew_us = 0;
  double budget_seconds = 0;
  double elapsed_seconds = 0;
  std::optional<PointToPointProbe> remote;  // between two nodes
  std::optional<PointToPointProbe> local;   // two ranks of one node
  std::string local_absent;                 // why there is no `local` (e.g. every rank on its own node)
  std::optional<SaturationProbe> saturation;
  std::string saturation_absent;            // why there is none
  std::vector<CollectiveSample> collectives;

  [[nodiscard]] int processes() const { return static_cast<int>(hosts.size()); }
  /// The distinct hosts, in the order of their first rank.
  [[nodiscard]] std::vector<std::string> nodes() const;
  /// The point-to-point probe the kernels' messages go by: between nodes, or within a node
  /// when every rank is on one. Throws Error when the probe has neither.
  [[nodiscard]] const PointToPointProbe& point_to_point() const;
};

/// What a message of the kernels costs on a probed network, in seconds.
///
/// A collective measured at the process count and size asked is its measured time; between
/// measured counts and sizes, ln(time) is interpolated linearly in ln(bytes) and then in
/// ln(p). Outside them, the time at the nearest measured count and size is scaled by what
/// the pattern's algorithm gives at the two (algorithm_seconds), so that the figures
/// continue from what was measured. A pattern never measured (and `send`) costs what its
/// algorithm gives.
///
/// The algorithms, on the point-to-point fit T(B) with its segment's latency L(B) and time
/// per byte b(B), a round of k concurrent flows taking L + b B / share(k)
/// (SaturationProbe::per_flow_share), R = ceil(log2 p) rounds: send T(B); broadcast a
/// binomial tree, round r with 2^r flows of B; scatterv and gatherv (p - 1) messages of B / p
/// from or to the root, one at a time; allreduce R rounds of p flows of B (recursive
/// doubling); barrier R rounds of L(0); alltoall (p - 1) rounds of p flows of B / p
/// (pairwise exchange). Every pattern costs nothing on one process.
class ProbeCosts {
 public:
  /// Throws Error when the probe has no point-to-point figures.
  explicit ProbeCosts(const NetworkProbe& probe);

  [[nodiscard]] double seconds(MessagePattern pattern, double bytes, double processes) const;
  [[nodiscard]] double algorithm_seconds(MessagePattern pattern, double bytes, double processes) const;
  /// Whether a measurement of `pattern` covers (processes, bytes): within its measured
  /// process counts, and within the sizes measured at the counts that bracket it.
  [[nodiscard]] bool measured(MessagePattern pattern, double bytes, double processes) const;

 private:
  struct Column {  // one process count of one pattern: its sizes, ascending
    double processes = 0;
    std::vector<double> bytes;
    std::vector<double> seconds;
  };
  [[nodiscard]] double column_seconds(MessagePattern pattern, const Column& column, double bytes) const;
  [[nodiscard]] double round_seconds(double bytes, double flows) const;

  PiecewiseLinearFit fit_;
  std::optional<SaturationProbe> saturation_;
  std::vector<std::vector<Column>> columns_;  // by pattern (index of kMessagePatterns), by processes
};

/// The probe's keys ("probe_version", "engine", ..., "point_to_point", "saturation",
/// "collectives") added to `out`, hetscale-commbench's output object.
void add_network_probe_json(nlohmann::json& out, const NetworkProbe& probe);

/// Whether `document` (hetscale-commbench's output) carries the probe's keys.
[[nodiscard]] bool has_network_probe(const nlohmann::json& document);

/// The probe in `document`. Throws Error naming `source` and the field for a missing or
/// malformed field, an unknown pattern, and a probe_version newer than this hetscale's.
NetworkProbe parse_network_probe(const nlohmann::json& document, const std::string& source);

/// hetscale-commbench's output as read from a file: the probe when the file has its keys
/// (files written before them have none), and the fitted lines of its "models" object
/// (CommModels: send, bcast, barrier, and allreduce when present; null in a probe whose
/// collectives were timed at one process count, through which no line can be fitted).
struct CommbenchOutput {
  std::optional<NetworkProbe> probe;
  std::optional<CommModels> models;
  bool has_allreduce_model = false;  // "models.allreduce" was there
};

/// Reads hetscale-commbench's output. Throws Error naming `path` when it is not JSON, has
/// neither a probe nor a "models" object, a "models" object without finite send, bcast and
/// barrier lines, or a malformed probe.
CommbenchOutput read_commbench_output(const std::string& path);
/// The same from its text.
CommbenchOutput parse_commbench_output(const std::string& text, const std::string& source);

}  // namespace hetscale
