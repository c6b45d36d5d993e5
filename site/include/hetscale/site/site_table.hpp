// The site table (docs/site-table.md): the marked speed of every node, by group.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {

enum class NodeState { ok, degraded, excluded };

std::string_view to_string(NodeState state);

/// How the twin (SimGrid) connects the hosts: `star`, one switch with a private link per
/// host; `switch-per-group`, one switch per group, the switches joined by a backbone link.
enum class NetworkTopology { star, switch_per_group };

/// "star" or "switch-per-group", as written in a site table.
std::string_view to_string(NetworkTopology topology);

/// What one collective call costs on a cluster beyond what its messages cost on the links
/// (the time a rank waits for the others to be scheduled, a slow progress engine): on a
/// communicator of p ranks, max(0, us + us_per_rank x min(p, max_ranks)) microseconds
/// (max_ranks 0: no limit; on more ranks than were measured, what the largest measured
/// count cost, not an extrapolation), charged by the twin after each call. Zero (the
/// default) adds nothing.
struct CollectiveOverhead {
  double us = 0;
  double us_per_rank = 0;
  int max_ranks = 0;
  [[nodiscard]] double seconds(int ranks) const;
  [[nodiscard]] bool none() const { return us == 0 && us_per_rank == 0; }
};

/// The optional [network] table: the interconnect the twin models. Units are those the
/// keys name: microseconds and megabytes (1e6 bytes) per second. The member defaults are
/// the documented defaults for a table without [network] (a 10 Gb/s-class Ethernet).
struct Network {
  NetworkTopology topology = NetworkTopology::star;
  double latency_us = 1.5;                // of each host's private link
  double bandwidth_MBps = 1250;           // of each host's private link
  double backbone_latency_us = 1.5;       // switch-per-group only
  double backbone_bandwidth_MBps = 1250;  // switch-per-group only
  SourceLocation where;                   // the [network] table (empty for the defaults)
  // Each collective's overhead (barrier_overhead_us, barrier_overhead_us_per_rank, ...).
  CollectiveOverhead barrier_overhead;
  CollectiveOverhead broadcast_overhead;
  CollectiveOverhead allreduce_overhead;
};

/// Each collective overhead of a [network]: its keys' prefix in a site table (`barrier`:
/// barrier_overhead_us, ..._us_per_rank, ..._max_ranks), the twin platform's root-zone
/// property that carries it to the simulated kernels, and its member. The one list the
/// site table's reader and writer, the twin platform, the calibration's output and the
/// twin kernels go through.
struct CollectiveOverheadField {
  std::string_view kind;
  const char* property;
  CollectiveOverhead Network::*member;
};
inline constexpr CollectiveOverheadField kCollectiveOverheadFields[] = {
    {"barrier", "hetscale.overhead.barrier", &Network::barrier_overhead},
    {"broadcast", "hetscale.overhead.broadcast", &Network::broadcast_overhead},
    {"allreduce", "hetscale.overhead.allreduce", &Network::allreduce_overhead}};

/// An overhead as its platform property's text, "US US_PER_RANK MAX_RANKS" (shortest
/// numbers that read back the same), and back. Reading `text` null gives no overhead;
/// anything but three finite numbers, the last a count from 0 to 2^30, throws Error naming
/// `property`.
std::string overhead_property_text(const CollectiveOverhead& overhead);
CollectiveOverhead parse_overhead_property(const char* property, const char* text);

/// One kind of core of a group's hybrid nodes and its own marked speed: the median of the
/// nodes' figures measured on that kind's CPUs alone (docs/admin-classify.md).
struct GroupCpuKind {
  std::vector<unsigned> cpus;     // OS indices of the kind's CPUs on every node of the group
  std::optional<int> efficiency;  // hwloc's rank: 0 the most power-efficient kind
  std::string core_type;          // hwloc's CoreType; empty when not given
  double marked_speed = 0;        // per processor, in the site's speed_unit
  SourceLocation where;           // its [[group.cpu_kind]] table

  bool operator==(const GroupCpuKind& other) const {
    return cpus == other.cpus && efficiency == other.efficiency && core_type == other.core_type &&
           marked_speed == other.marked_speed;
  }
};

struct Group {
  std::string name;
  double marked_speed = 0;  // per processor, in the site's speed_unit
  SourceLocation where;     // the [[group]] table it was declared in
  // Optional, written by `hetscale groups` from the node records: what the group's nodes
  // are, for people, the report and dashboards; no weight depends on them.
  std::string fingerprint{};              // the nodes' hardware fingerprint; empty when not given
  std::string hardware{};                 // "2x64c AMD EPYC 9554, 4x H100 80 GB, 768 GB DRAM"
  std::vector<GroupCpuKind> cpu_kinds{};  // per kind of core of hybrid nodes
};

/// One node, after host-list expansion: a [[node]] entry naming "n[1-4]" gives four.
struct Node {
  std::string name;
  std::string group;
  std::uint32_t processors = 1;  // Slurm CPUs a job may use on this node
  double marked_speed = 0;       // per processor (the group's figure when not given)
  NodeState state = NodeState::ok;
  SourceLocation where;  // the [[node]] entry it came from

  /// Marked speed of the whole node: per-processor speed x processors.
  [[nodiscard]] double total_speed() const { return marked_speed * processors; }
};

struct SiteTable {
  std::string name;
  std::string speed_unit = "Mflops";
  SourceLocation speed_unit_where;  // its value, or the [site] table when defaulted
  std::string benchmark = "dgemm";
  std::filesystem::path source;    // file it was loaded from (empty when built in memory)
  std::vector<Group> groups;       // in file order
  std::vector<Node> nodes;         // in file order, host lists expanded
  std::optional<Network> network;  // the [network] table; absent when the file has none

  /// Looks a node up by exact host name; nullptr when absent. O(1) after index().
  [[nodiscard]] const Node* find_node(std::string_view host) const;
  [[nodiscard]] const Group* find_group(std::string_view group) const;

  /// Rebuilds the name -> position index used by find_node/find_group; the loader calls
  /// it, code that edits `nodes` or `groups` by hand must call it again.
  void index();

 private:
  std::unordered_map<std::string, std::size_t> node_index_;
  std::unordered_map<std::string, std::size_t> group_index_;
};

/// Parses a site table. `source_name` is the file name used in error messages.
/// Throws ConfigError naming file:line:col for syntax errors, unknown keys, wrong types,
/// missing keys, non-positive speeds or processors, unknown groups, unknown states, a
/// node listed twice (also across host-list expressions) and, in [network], an unknown
/// topology, a latency or bandwidth out of its range (number_limits.hpp: latency from 0 to
/// kMaxLatencyMicroseconds, bandwidth above 0 up to kMaxBandwidthMBps) or a backbone key for
/// `star`.
SiteTable parse_site_table(std::string_view text, const std::string& source_name);

/// Reads and parses a site table file; an unreadable file is a ConfigError too.
SiteTable load_site_table(const std::filesystem::path& path);

/// Writes a site table in the contract's TOML form. Nodes of the same group, processors,
/// speed and state are merged into compressed host-list expressions.
std::string format_site_table(const SiteTable& table);

}  // namespace hetscale
