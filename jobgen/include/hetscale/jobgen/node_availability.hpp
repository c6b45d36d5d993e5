// Whether the members of a round's machine sets can run a job now, as Slurm reports
// them (hetscale::slurm's node states and reservations): a
// member that is drained or draining, down, failed, not responding, or inside an active
// reservation the spec does not name would hold its set's job in the queue. Pure
// functions: the caller asks Slurm (slurm::query_node_states) and prints (docs/experiment-spec.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/jobgen/round.hpp"
#include "hetscale/slurm/scontrol.hpp"

namespace hetscale::jobgen {

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
std::optional<Unavailability> unavailability(const slurm::NodeStates& states, const std::string& node,
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
std::vector<UnavailableMember> unavailable_members(const Round& round, const slurm::NodeStates& states);

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
ReplacedRound replace_unavailable(const Round& round, const slurm::NodeStates& states);

}  // namespace hetscale::jobgen
