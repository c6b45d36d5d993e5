// The grouping behind `hetscale groups`: node records in, site table out
// (docs/site-table.md). Rules and their reasons are in docs/admin-classify.md, "Grouping".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetscale/site/node_record.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {

struct GroupingOptions {
  std::string site_name = "site";
  /// A node more than this fraction below its group's median is degraded.
  double degraded_threshold = 0.10;
  /// Two neighbouring speeds (sorted) closer than this relative gap are noise...
  double noise_gap = 0.05;
  /// ...and so is any gap within this many standard deviations of the two records' CVs,
  /// up to clear_gap: a gap of clear_gap or more is never noise.
  double noise_sigmas = 3.0;
  /// A speed class with fewer nodes than min_class_nodes, or than min_class_fraction of
  /// its hardware twins, is an outlier of the nearer neighbour class (then degraded if
  /// slow), not a class of its own, unless the gap to that class is at least clear_gap.
  std::uint32_t min_class_nodes = 2;
  double min_class_fraction = 0.05;
  double clear_gap = 0.25;
};

/// One group of the result, for the summary table.
struct GroupSummary {
  std::string name;
  std::string fingerprint;
  std::string cpu_model;
  std::string hardware;  // hardware_summary of its nodes: "2x64c AMD EPYC 9554, 768 GB DRAM"
  std::vector<GroupCpuKind> cpu_kinds;  // per kind of core of hybrid nodes, with its speed
  double marked_speed = 0;              // per processor: median over the group's measured nodes
  double min_speed = 0;
  double max_speed = 0;
  std::uint32_t ok = 0;
  std::uint32_t degraded = 0;
  std::uint32_t excluded = 0;
};

/// A node whose state is not ok, with the reason, for the sysadmin to review.
struct NodeNotice {
  std::string host;
  std::string group;
  NodeState state = NodeState::ok;
  std::string reason;  // "12.5% below the group median 100" or the record's reason
};

struct GroupingResult {
  SiteTable table;                    // groups and nodes in output order
  std::vector<GroupSummary> groups;   // same order as table.groups
  std::vector<NodeNotice> notices;    // degraded and excluded nodes, by host
  std::vector<std::string> warnings;  // duplicates, mixed benchmarks, nodes left out
};

/// Groups records: newest record per host (duplicates reported), then by fingerprint,
/// then by speed; degraded nodes marked; excluded nodes kept with their reason.
/// Throws Error when no record has a measured speed.
GroupingResult group_nodes(const std::vector<LocatedNodeRecord>& records,
                           const GroupingOptions& options);

/// Lower-case name from a CPU model: "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz" gives
/// "intel-xeon-gold-6248"; "node" when nothing is left.
std::string group_base_name(const std::string& cpu_model);

}  // namespace hetscale
