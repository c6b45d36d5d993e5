// The SimGrid platform text (docs/twin.md). Every host sits in a zone with routing
// "Cluster" (SimGrid's star zone, no Floyd tables: it loads in linear time), with a
// full-duplex private link; switch-per-group puts one such zone per group under a "Full"
// zone whose zone routes cross one shared backbone link.
#include "hetscale/twin_platform.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string_view>
#include <vector>

#include "hetscale/atomic_file.hpp"
#include "hetscale/error.hpp"
#include "hetscale/sha256.hpp"
#include "hetscale/units.hpp"
#include "hetscale/xml_text.hpp"

namespace hetscale {
namespace {

// Ids the generator makes itself all contain ':', which a safe name never does, so they
// cannot clash with a host: "zone:site", "zone:<group>", "switch:<group>", "link:<host>",
// "backbone:site".
bool safe_id(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

void check_id(std::string_view what, std::string_view name, const SourceLocation& where) {
  if (!safe_id(name))
    throw ConfigError(where, fmt::format("{} name '{}' cannot be a SimGrid id (use letters, "
                                         "digits, '.', '_' and '-')",
                                         what, name));
}


std::string operation_units() {
  std::string out;
  for (const SpeedUnit& unit : known_speed_units()) {
    if (!unit.operations) continue;
    if (!out.empty()) out += ", ";
    out += unit.name;
  }
  return out;
}

// Shortest text that reads back as the same double ("20290000", "1.5", "2.5e-07").
std::string number(double value) {
  return fmt::format("{}", value);
}

void prop(std::string& out, std::string_view indent, std::string_view id, std::string_view value) {
  out += fmt::format("{}<prop id=\"{}\" value=\"{}\"/>\n", indent, id, escape_xml(value));
}

// Hosts, their private links and the host_links tying them together, in that order (the
// DTD's), one Cluster zone's content.
void hosts_of_zone(std::string& out, std::string_view indent, const std::vector<const Node*>& hosts,
                   const Network& network, double flops_per_unit) {
  for (const Node* node : hosts)
    out += fmt::format("{}<host id=\"{}\" speed=\"{}f\" core=\"{}\"/>\n", indent, node->name,
                       number(node->marked_speed * flops_per_unit), node->processors);
  for (const Node* node : hosts)
    out += fmt::format(
        "{}<link id=\"link:{}\" bandwidth=\"{}MBps\" latency=\"{}us\" "
        "sharing_policy=\"SPLITDUPLEX\"/>\n",
        indent, node->name, number(network.bandwidth_MBps), number(network.latency_us));
  for (const Node* node : hosts)
    out += fmt::format("{}<host_link id=\"{}\" up=\"link:{}_UP\" down=\"link:{}_DOWN\"/>\n", indent,
                       node->name, node->name, node->name);
}

struct GroupHosts {
  const Group* group;
  std::vector<const Node*> hosts;
};

void switch_per_group(std::string& out, const SiteTable& table,
                      const std::vector<const Node*>& hosts, const Network& network,
                      double flops_per_unit) {
  std::vector<GroupHosts> zones;
  for (const Group& group : table.groups) {
    GroupHosts zone{&group, {}};
    for (const Node* node : hosts)
      if (node->group == group.name) zone.hosts.push_back(node);
    if (zone.hosts.empty()) continue;
    check_id("group", group.name, group.where);
    zones.push_back(std::move(zone));
  }
  for (const GroupHosts& zone : zones) {
    out += fmt::format("    <zone id=\"zone:{}\" routing=\"Cluster\">\n", zone.group->name);
    out += fmt::format("      <router id=\"switch:{}\"/>\n", zone.group->name);
    hosts_of_zone(out, "      ", zone.hosts, network, flops_per_unit);
    out += "    </zone>\n";
  }
  out += fmt::format("    <link id=\"backbone:site\" bandwidth=\"{}MBps\" latency=\"{}us\"/>\n",
                     number(network.backbone_bandwidth_MBps), number(network.backbone_latency_us));
  for (std::size_t a = 0; a < zones.size(); ++a)
    for (std::size_t b = a + 1; b < zones.size(); ++b) {
      const std::string& from = zones[a].group->name;
      const std::string& to = zones[b].group->name;
      out += fmt::format(
          "    <zoneRoute src=\"zone:{}\" dst=\"zone:{}\" gw_src=\"switch:{}\" "
          "gw_dst=\"switch:{}\">\n      <link_ctn id=\"backbone:site\"/>\n    </zoneRoute>\n",
          from, to, from, to);
    }
}

}  // namespace

double twin_flops_per_unit(const SiteTable& table, std::optional<double> given) {
  if (given) {
    if (!(*given > 0) || !std::isfinite(*given))
      throw Error(fmt::format("the flop/s per unit must be positive and finite, not {}", *given));
    return *given;
  }
  if (std::optional<double> scale = flops_scale(table.speed_unit)) return *scale;
  throw ConfigError(
      table.speed_unit_where,
      fmt::format("speed_unit '{}' is no operation rate, so marked speeds cannot become flop/s; "
                  "give the flop/s of one '{}' with --flops-per-unit (operation rates: {})",
                  table.speed_unit, table.speed_unit, operation_units()));
}

TwinPlatform make_twin_platform(const SiteTable& table, const TwinPlatformOptions& options) {
  TwinPlatform platform;
  platform.flops_per_unit = twin_flops_per_unit(table, options.flops_per_unit);
  platform.default_network = !table.network.has_value();
  platform.network = table.network.value_or(Network{});
  const Network& network = platform.network;

  std::vector<const Node*> hosts;
  hosts.reserve(table.nodes.size());
  for (const Node& node : table.nodes) {
    if (node.state == NodeState::excluded) continue;
    check_id("host", node.name, node.where);
    hosts.push_back(&node);
    platform.hostfile += node.name + "\n";
  }
  if (hosts.empty())
    throw ConfigError({table.source.string(), 0, 0},
                      "no node for the twin: the site table lists none that is not excluded");
  platform.hosts = hosts.size();

  std::string& out = platform.xml;
  out += "<?xml version='1.0'?>\n";
  out += "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  out += "<!-- Written by hetscale twin platform from a site table (docs/twin.md). -->\n";
  out += "<platform version=\"4.1\">\n";
  const bool star = network.topology == NetworkTopology::star;
  out += fmt::format("  <zone id=\"zone:site\" routing=\"{}\">\n", star ? "Cluster" : "Full");
  prop(out, "    ", "hetscale.site", table.name);
  prop(out, "    ", "hetscale.speed_unit", table.speed_unit);
  prop(out, "    ", "hetscale.flops_per_unit", number(platform.flops_per_unit));
  prop(out, "    ", "hetscale.topology", to_string(network.topology));
  prop(out, "    ", "hetscale.network", platform.default_network ? "defaults" : "site table");
  if (star)
    hosts_of_zone(out, "    ", hosts, network, platform.flops_per_unit);
  else
    switch_per_group(out, table, hosts, network, platform.flops_per_unit);
  out += "  </zone>\n</platform>\n";
  platform.sha256 = to_hex(sha256(out));
  return platform;
}

std::vector<std::pair<std::string, std::string>> twin_platform_file_texts(const TwinPlatform& platform) {
  return {{"hostfile", platform.hostfile},
          {"platform.xml", platform.xml},
          {"platform.sha256", platform.sha256 + "  platform.xml\n"}};
}

TwinPlatformFiles write_twin_platform(const TwinPlatform& platform,
                                      const std::filesystem::path& dir) {
  for (const auto& [name, text] : twin_platform_file_texts(platform)) write_file_atomically(dir / name, text);
  return {dir / "platform.xml", dir / "hostfile", dir / "platform.sha256"};
}

}  // namespace hetscale
