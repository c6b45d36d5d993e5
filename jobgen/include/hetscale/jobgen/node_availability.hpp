// Whether the members of a round's machine sets can run a job now, as Slurm reports
// them (`scontrol show node --oneliner`, `scontrol show reservation --oneliner`): a
// member that is drained or draining, down, failed, not responding, or inside an active
// reservation the spec does not name would hold its set's job in the queue. Pure
// functions: the caller runs scontrol and prints (docs/experiment-spec.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/jobgen/round.hpp"

namespace hetscale::jobgen {

struct SlurmNode {
  std::string name;
  std::string state;   // as scontrol gives it: "IDLE", "IDLE+DRAIN", "DOWN+NOT_RESPONDING", ...
  std::string reason;  // the administrator's reason, without "[user@time]"; empty if none
};

struct SlurmReservation {
  std::string name;
  std::vector<std::string> nodes;  // host list expanded
  bool active = false;             // State=ACTIVE
  std::string end_time;            // as scontrol gives it
};

struct SlurmNodeStates {
  std::vector<SlurmNode> nodes;
  std::vector<SlurmReservation> reservations;
};

/// Reads `scontrol show node --oneliner`: one "NodeName=... State=... [Reason=...]" line
/// per node (the reason runs to the end of its line). Throws Error naming the line for a
/// line that is not a node or has no State.
std::vector<SlurmNode> parse_scontrol_nodes(std::string_view text);

/// Reads `scontrol show reservation --oneliner` ("No reservations in the system", or one
/// "ReservationName=... Nodes=... State=..." line each). Throws Error naming the line for
/// anything else.
std::vector<SlurmReservation> parse_scontrol_reservations(std::string_view text);

/// Why a node cannot run a job now.
struct Unavailability {
  std::string state;        // DRAINED, DRAINING, DOWN, FAIL, NOT_RESPONDING, RESERVED or UNKNOWN
  std::string reason;       // Slurm's reason (node states) or the reservation's name
  std::string end_time;     // a reservation's end

  /// "DRAINED (reason "maintenance")", "in reservation 'maint' (until 2026-...)", ...
  [[nodiscard]] std::string describe() const;
};

/// Nothing when `node` can run a job now; `usable_reservation` is the spec's [slurm]
/// reservation (empty: none), whose nodes count as available. A node Slurm does not
/// report is UNKNOWN.
std::optional<Unavailability> unavailability(const SlurmNodeStates& states, const std::string& node,
                                             const std::string& usable_reservation);

struct UnavailableMember {
  std::size_t set_index = 0;  // the first set (with jobs) that holds the node
  std::string node;
  std::string group;
  Unavailability why;

  /// "set 2 member n3 is DRAINED (reason "maintenance")".
  [[nodiscard]] std::string describe() const;
};

/// Every unavailable member of the sets that have jobs, each node once, in set order.
std::vector<UnavailableMember> unavailable_members(const Round& round, const SlurmNodeStates& states);

struct NodeReplacement {
  UnavailableMember replaced;
  std::string replacement;
  std::vector<std::size_t> sets;  // the sets that hold it, ascending

  /// "n3 (group full, DRAINED (reason "x")) replaced by n2 in sets 1-2".
  [[nodiscard]] std::string describe() const;
};

struct ReplacedRound {
  Round round;
  std::vector<NodeReplacement> replacements;
};

/// Swaps each unavailable member for an available node of its group that is in none of
/// the sets (the first in site-table order; eligible as the spec asks, include_degraded),
/// the same node in every set that holds it, and recomputes members, C and sizes. Throws
/// Error naming the group when it has no such node left.
ReplacedRound replace_unavailable(const Round& round, const SlurmNodeStates& states);

}  // namespace hetscale::jobgen
