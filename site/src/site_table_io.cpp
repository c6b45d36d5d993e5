// Reading and writing the site table (docs/site-table.md) with toml++. Every error
// is a ConfigError at the file:line:col of the offending key, value or table.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "hetscale/base/regular_file.hpp"
#include "hetscale/base/toml_source.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {
namespace {

// Positions and key checks come from TomlSource; this class knows the site table's meaning.
class SiteReader : private TomlSource {
 public:
  SiteReader(std::string_view text, std::string source_name)
      : TomlSource(text, std::move(source_name)) {}

  SiteTable read() {
    toml::table root = parse();
    check_keys(root, {"site", "network", "group", "node"}, "at top level");
    SiteTable table;
    read_site(root, table);
    read_network(root, table);
    for (const toml::table* entry : tables_of(root, "group")) table.groups.push_back(group(*entry));
    std::vector<const toml::table*> node_entries = tables_of(root, "node");
    table.nodes.reserve(node_entries.size());  // exact for one name per entry, the common case
    for (const toml::table* entry : node_entries) add_nodes(*entry, table);
    table.index();
    return table;
  }

 private:
  void read_site(const toml::table& root, SiteTable& table) const {
    const toml::node* node = root.get("site");
    if (node == nullptr) fail(at(root), "missing table [site]");
    const toml::table* site = node->as_table();
    if (site == nullptr) fail(at(*node), "'site' must be a table, not " + toml_type_name(*node));
    check_keys(*site, {"name", "speed_unit", "benchmark"}, "in [site]");
    table.name = required_string(*site, "name", "[site]");
    table.speed_unit_where = at(*site);
    if (const toml::node* unit = site->get("speed_unit")) {
      table.speed_unit = string(*unit, "speed_unit");
      table.speed_unit_where = at(*unit);
    }
    if (auto benchmark = optional_string(*site, "benchmark")) table.benchmark = *benchmark;
  }

  // [network]: optional; when given, the topology and the host links are required, and the
  // backbone keys belong to switch-per-group only (a backbone a star ignores is a mistake).
  void read_network(const toml::table& root, SiteTable& table) const {
    const toml::node* node = root.get("network");
    if (node == nullptr) return;
    const toml::table* entry = node->as_table();
    if (entry == nullptr)
      fail(at(*node), "'network' must be a table, not " + toml_type_name(*node));
    check_keys(*entry,
               {"topology", "latency_us", "bandwidth_MBps", "backbone_latency_us",
                "backbone_bandwidth_MBps", "barrier_overhead_us", "barrier_overhead_us_per_rank",
                "broadcast_overhead_us", "broadcast_overhead_us_per_rank", "allreduce_overhead_us",
                "allreduce_overhead_us_per_rank", "barrier_overhead_max_ranks",
                "broadcast_overhead_max_ranks", "allreduce_overhead_max_ranks"},
               "in [network]");
    Network network;
    network.where = at(*entry);
    network.topology = topology(required(*entry, "topology", "[network]"));
    network.latency_us = latency(*entry, "latency_us");
    network.bandwidth_MBps = bandwidth(*entry, "bandwidth_MBps");
    if (network.topology == NetworkTopology::switch_per_group) {
      network.backbone_latency_us = latency(*entry, "backbone_latency_us");
      network.backbone_bandwidth_MBps = bandwidth(*entry, "backbone_bandwidth_MBps");
    } else {
      for (std::string_view key : {"backbone_latency_us", "backbone_bandwidth_MBps"})
        if (const toml::node* value = entry->get(key))
          fail(at(*value), fmt::format("'{}' applies only to topology 'switch-per-group', not '{}'",
                                       key, to_string(network.topology)));
    }
    for (const CollectiveOverheadField& field : kCollectiveOverheadFields)
      network.*field.member = overhead(*entry, field.kind);
    table.network = network;
  }

  // A collective's optional overhead: KIND_overhead_us, any finite number (a fitted line
  // may start below zero) and KIND_overhead_us_per_rank, >= 0, both within a latency's
  // range, and KIND_overhead_max_ranks, 1 to 2^30; each 0 when absent.
  CollectiveOverhead overhead(const toml::table& network, std::string_view kind) const {
    CollectiveOverhead out;
    const std::string us = std::string(kind) + "_overhead_us";
    const std::string per_rank = us + "_per_rank";
    if (const toml::node* value = network.get(us)) out.us = number(*value, us, kMaxLatencyMicroseconds);
    if (const toml::node* value = network.get(per_rank))
      out.us_per_rank = non_negative(*value, per_rank, kMaxLatencyMicroseconds);
    const std::string max_ranks = std::string(kind) + "_overhead_max_ranks";
    if (const toml::node* value = network.get(max_ranks))
      out.max_ranks = static_cast<int>(integer(*value, max_ranks, 1, std::int64_t{1} << 30));
    return out;
  }

  // A link's latency (>= 0) and bandwidth (> 0), each within number_limits.hpp's range.
  double latency(const toml::table& network, std::string_view key) const {
    return non_negative(required(network, key, "[network]"), key, kMaxLatencyMicroseconds);
  }
  double bandwidth(const toml::table& network, std::string_view key) const {
    return positive(required(network, key, "[network]"), key, kMaxBandwidthMBps);
  }

  NetworkTopology topology(const toml::node& node) const {
    std::string text = string(node, "topology");
    for (NetworkTopology t : {NetworkTopology::star, NetworkTopology::switch_per_group})
      if (to_string(t) == text) return t;
    fail(at(node), fmt::format("unknown topology '{}' (expected star or switch-per-group)", text));
  }

  Group group(const toml::table& entry) {
    check_keys(entry, {"name", "marked_speed", "fingerprint", "hardware", "cpu_kind"},
               "in [[group]]");
    Group g;
    g.name = required_string(entry, "name", "[[group]]");
    g.where = at(entry);
    const toml::node& speed = required(entry, "marked_speed", "[[group]]");
    g.marked_speed = positive(speed, "marked_speed", kMaxProcessorSpeed);
    if (auto fingerprint = optional_string(entry, "fingerprint")) g.fingerprint = *fingerprint;
    if (auto hardware = optional_string(entry, "hardware")) g.hardware = *hardware;
    for (const toml::table* kind : tables_of(entry, "cpu_kind"))
      g.cpu_kinds.push_back(cpu_kind(*kind));
    const toml::node& name = *entry.get("name");
    auto [first, inserted] = group_places_.emplace(g.name, at(name));
    if (!inserted)
      fail(at(name),
           fmt::format("group '{}' is declared twice (first at {})", g.name, first->second.str()));
    group_speeds_.emplace(g.name, g.marked_speed);
    return g;
  }

  // [[group.cpu_kind]]: the CPUs of one kind of core and its marked speed.
  GroupCpuKind cpu_kind(const toml::table& entry) const {
    check_keys(entry, {"cpus", "efficiency", "core_type", "marked_speed"}, "in [[group.cpu_kind]]");
    GroupCpuKind kind;
    kind.where = at(entry);
    const toml::node& cpus = required(entry, "cpus", "[[group.cpu_kind]]");
    for (const toml::node& cpu : array(cpus, "cpus"))
      kind.cpus.push_back(static_cast<unsigned>(
          integer(cpu, "cpus", 0, std::numeric_limits<std::uint32_t>::max())));
    if (kind.cpus.empty()) fail(at(cpus), "'cpus' must not be empty");
    if (const toml::node* value = entry.get("efficiency"))
      kind.efficiency = static_cast<int>(integer(*value, "efficiency", 0, 1 << 30));
    if (auto core_type = optional_string(entry, "core_type")) kind.core_type = *core_type;
    kind.marked_speed = positive(required(entry, "marked_speed", "[[group.cpu_kind]]"),
                                 "marked_speed", kMaxProcessorSpeed);
    return kind;
  }

  void add_nodes(const toml::table& entry, SiteTable& table) {
    check_keys(entry, {"name", "group", "processors", "marked_speed", "state"}, "in [[node]]");
    Node proto;
    proto.where = at(entry);
    std::string expression = required_string(entry, "name", "[[node]]");
    proto.group = required_string(entry, "group", "[[node]]");
    auto speed = group_speeds_.find(proto.group);
    if (speed == group_speeds_.end())
      fail(at(*entry.get("group")), fmt::format("unknown group '{}'", proto.group));
    proto.marked_speed = speed->second;
    if (const toml::node* value = entry.get("marked_speed"))
      proto.marked_speed = positive(*value, "marked_speed", kMaxProcessorSpeed);
    if (const toml::node* value = entry.get("processors")) proto.processors = processors(*value);
    if (const toml::node* value = entry.get("state")) proto.state = state(*value);

    const toml::node& name = *entry.get("name");
    std::vector<HostlistTerm>& terms = terms_;  // reused: no allocation per entry
    std::vector<std::string> hosts = expand(name, expression, terms);
    // The place of a host is its term inside the string: "n3" in "n[5-8],n3". Every term
    // gives at least one host, so the next term starts exactly at its first_host.
    std::size_t term = 0;
    toml::source_position place = position_inside(name, terms[0].column);
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      if (term + 1 < terms.size() && terms[term + 1].first_host == i)
        place = position_inside(name, terms[++term].column);
      auto [first, inserted] = node_places_.emplace(hosts[i], place);
      if (!inserted)
        fail(at(place), fmt::format("node '{}' is listed twice (first at {})", hosts[i],
                                    at(first->second).str()));
      Node& node = table.nodes.emplace_back(proto);
      node.name = std::move(hosts[i]);
    }
  }

  std::vector<std::string> expand(const toml::node& name, const std::string& expression,
                                  std::vector<HostlistTerm>& terms) const {
    try {
      return expand_hostlist(expression, terms);
    } catch (const ExpressionError& e) {
      fail(at(position_inside(name, e.column())),
           fmt::format("bad host list '{}': {}", expression, e.message()));
    }
  }

  std::uint32_t processors(const toml::node& node) const {
    return static_cast<std::uint32_t>(
        integer(node, "processors", 1, std::numeric_limits<std::uint32_t>::max()));
  }

  NodeState state(const toml::node& node) const {
    std::string text = string(node, "state");
    for (NodeState s : {NodeState::ok, NodeState::degraded, NodeState::excluded})
      if (to_string(s) == text) return s;
    fail(at(node), fmt::format("unknown state '{}' (expected ok, degraded or excluded)", text));
  }

  std::vector<HostlistTerm> terms_;
  std::unordered_map<std::string, SourceLocation> group_places_;
  std::unordered_map<std::string, double> group_speeds_;
  // Only line and column per host: 10,000 copies of the file name would cost time.
  std::unordered_map<std::string, toml::source_position> node_places_;
};

// --- writing -----------------------------------------------------------------------

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Shortest text that reads back as the same double, always a TOML float.
std::string float_text(double speed) {
  std::string text = fmt::format("{}", speed);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

bool same_entry(const Node& a, const Node& b) {
  return a.group == b.group && a.processors == b.processors && a.marked_speed == b.marked_speed &&
         a.state == b.state;
}

void write_network(std::string& out, const Network& network) {
  out += "\n[network]\n";
  out += fmt::format("topology = \"{}\"\n", to_string(network.topology));
  out += "latency_us = " + float_text(network.latency_us) + "\n";
  out += "bandwidth_MBps = " + float_text(network.bandwidth_MBps) + "\n";
  if (network.topology == NetworkTopology::switch_per_group) {
    out += "backbone_latency_us = " + float_text(network.backbone_latency_us) + "\n";
    out += "backbone_bandwidth_MBps = " + float_text(network.backbone_bandwidth_MBps) + "\n";
  }
  for (const CollectiveOverheadField& field : kCollectiveOverheadFields) {
    const CollectiveOverhead& overhead = network.*field.member;
    if (overhead.none()) continue;
    out += fmt::format("{}_overhead_us = {}\n", field.kind, float_text(overhead.us));
    out += fmt::format("{}_overhead_us_per_rank = {}\n", field.kind, float_text(overhead.us_per_rank));
    if (overhead.max_ranks > 0) out += fmt::format("{}_overhead_max_ranks = {}\n", field.kind, overhead.max_ranks);
  }
}

void write_group(std::string& out, const Group& group) {
  out += "\n[[group]]\nname = " + toml_string(group.name) + "\n";
  out += "marked_speed = " + float_text(group.marked_speed) + "\n";
  if (!group.fingerprint.empty()) out += "fingerprint = " + toml_string(group.fingerprint) + "\n";
  if (!group.hardware.empty()) out += "hardware = " + toml_string(group.hardware) + "\n";
  for (const GroupCpuKind& kind : group.cpu_kinds) {
    out += fmt::format("\n[[group.cpu_kind]]\ncpus = [{}]\n", fmt::join(kind.cpus, ", "));
    if (kind.efficiency) out += fmt::format("efficiency = {}\n", *kind.efficiency);
    if (!kind.core_type.empty()) out += "core_type = " + toml_string(kind.core_type) + "\n";
    out += "marked_speed = " + float_text(kind.marked_speed) + "\n";
  }
}

using GroupSpeeds = std::unordered_map<std::string_view, double>;

void write_node_entry(std::string& out, const GroupSpeeds& group_speeds,
                      std::span<const Node> run) {
  std::vector<std::string> names;
  names.reserve(run.size());
  for (const Node& node : run) names.push_back(node.name);
  const Node& first = run.front();
  out += "\n[[node]]\nname = " + toml_string(compress_hostlist(names)) + "\n";
  out += "group = " + toml_string(first.group) + "\n";
  out += fmt::format("processors = {}\n", first.processors);
  // A speed equal to the group's is the default and left out.
  auto group = group_speeds.find(first.group);
  if (group == group_speeds.end() || group->second != first.marked_speed)
    out += "marked_speed = " + float_text(first.marked_speed) + "\n";
  out += fmt::format("state = \"{}\"\n", to_string(first.state));
}

}  // namespace

SiteTable parse_site_table(std::string_view text, const std::string& source_name) {
  return SiteReader(text, source_name).read();
}

SiteTable load_site_table(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxSiteTableBytes);
  } catch (const FileReadError& e) {
    throw ConfigError({path.string(), 0, 0}, "cannot read: " + e.reason());
  }
  SiteTable table = parse_site_table(text, path.string());
  table.source = path;
  return table;
}

std::string format_site_table(const SiteTable& table) {
  GroupSpeeds group_speeds;
  for (const Group& group : table.groups) group_speeds.emplace(group.name, group.marked_speed);
  std::string out = "[site]\n";
  out += "name = " + toml_string(table.name) + "\n";
  out += "speed_unit = " + toml_string(table.speed_unit) + "\n";
  out += "benchmark = " + toml_string(table.benchmark) + "\n";
  if (table.network) write_network(out, *table.network);
  for (const Group& group : table.groups) write_group(out, group);
  // Only neighbours merge, so reading the text back gives the nodes in the same order.
  // An entry's names, joined by commas, stay within half the host-list length bound
  // (a compressed list is never more than a few characters per name longer), so every
  // name list written reads back; a longer run becomes several entries.
  const std::size_t max_names_length = HostlistLimits{}.max_length / 2;
  std::span<const Node> nodes(table.nodes);
  for (std::size_t start = 0; start < nodes.size();) {
    std::size_t end = start + 1;
    std::size_t names_length = nodes[start].name.size();
    while (end < nodes.size() && same_entry(nodes[start], nodes[end]) &&
           names_length + 1 + nodes[end].name.size() <= max_names_length) {
      names_length += 1 + nodes[end].name.size();
      ++end;
    }
    write_node_entry(out, group_speeds, nodes.subspan(start, end - start));
    start = end;
  }
  return out;
}

}  // namespace hetscale
