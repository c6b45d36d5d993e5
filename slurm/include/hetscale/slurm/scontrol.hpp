// Reading what `scontrol ... --oneliner` prints about nodes, reservations, partitions and
// the configuration, as Slurm 22.05 to 26.05 write it (tests/fixtures/slurm/<release>/):
// one record per line of "Key=value" fields. Most values hold no blanks; the ones that do
// come last on a node's line, in this order: Reason= (ended by "[user@time]"), Comment=,
// Extra= (22.05), ReservationName= (23.02), InstanceId=, InstanceType= (23.11),
// TLSCertTokenSet=, TLSCertLastRenewal=, Topology= (25.05). Each of them runs to the next
// one of them or to the end of the line, so a reason may hold blanks and "Key=" words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale::slurm {

struct Node {
  std::string name;
  std::string state;    // as scontrol gives it: "IDLE", "IDLE+DRAIN", "DOWN+NOT_RESPONDING", ...
  std::string reason;   // the administrator's reason, without "[user@time]"; empty if none
  std::string comment;  // Comment=, empty if none
};

struct Reservation {
  std::string name;
  std::vector<std::string> nodes;  // host list expanded
  bool active = false;             // State=ACTIVE
  std::string end_time;            // as scontrol gives it
};

struct NodeStates {
  std::vector<Node> nodes;
  std::vector<Reservation> reservations;
};

struct Partition {
  std::string name;
  std::vector<std::string> nodes;                 // host list expanded
  std::optional<std::uint64_t> max_time_seconds;  // MaxTime; absent when UNLIMITED
};

/// `scontrol show node --oneliner`: one "NodeName=... State=... [Reason=...]" line per
/// node, or "No nodes in the system". Throws Error naming the line for a line that is not
/// a node or has no State.
std::vector<Node> parse_scontrol_nodes(std::string_view text);

/// `scontrol show reservation --oneliner`: "No reservations in the system", or one
/// "ReservationName=... Nodes=... State=..." line each. Throws Error naming the line for
/// anything else.
std::vector<Reservation> parse_scontrol_reservations(std::string_view text);

/// `scontrol show partition NAME --oneliner` ("PartitionName=batch ... Nodes=n[1-5] ...").
/// Throws Error when it holds no PartitionName= or Nodes= field.
Partition parse_scontrol_partition(std::string_view text);

/// ClusterName from `scontrol show config` ("ClusterName             = hetscale"), or
/// nothing when it has none.
std::optional<std::string> cluster_name_of_config(std::string_view text);

/// The value of `key=` among the "Key=value" words of one line (the value runs to the next
/// blank), or nothing.
std::optional<std::string> oneliner_field(std::string_view line, std::string_view key);

/// The non-blank lines of `text`, each without its line end and trailing blanks.
std::vector<std::string_view> oneliner_lines(std::string_view text);

/// Seconds of a Slurm time: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S (every field digits);
/// nothing for anything else.
std::optional<std::uint64_t> parse_slurm_time(std::string_view text);

/// "H:MM:SS", or "D-HH:MM:SS" from one day on, as Slurm writes a time.
std::string format_slurm_time(std::uint64_t seconds);

}  // namespace hetscale::slurm
