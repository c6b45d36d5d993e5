// The SimGrid platform text (docs/twin.md). Every host sits in a zone with routing
// "Cluster" (SimGrid's star zone, no Floyd tables: it loads in linear time), with a
// full-duplex private link; switch-per-group puts one such zone per group under a "Full"
// zone whose zone routes cross one shared backbone link. Speed profiles are inline
// <trace> elements, one per profiled host, each tied to its host by a
// <trace_connect kind="SPEED">, after the zones.
#include "hetscale/twin/twin_platform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <vector>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"
#include "hetscale/base/sha256.hpp"
#include "hetscale/base/xml_text.hpp"
#include "hetscale/model/availability.hpp"
#include "hetscale/model/units.hpp"

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

// The availability setting of each profiled host.
using HostSettings = std::map<const Node*, AvailabilitySetting>;

// Hosts, their private links and the host_links tying them together, in that order (the
// DTD's), one Cluster zone's content. A profiled host carries its setting as a property.
void hosts_of_zone(std::string& out, std::string_view indent, const std::vector<const Node*>& hosts,
                   const Network& network, double flops_per_unit, const HostSettings& settings) {
  for (const Node* node : hosts) {
    out += fmt::format("{}<host id=\"{}\" speed=\"{}f\" core=\"{}\"", indent, node->name,
                       number(node->marked_speed * flops_per_unit), node->processors);
    const auto setting = settings.find(node);
    if (setting == settings.end()) {
      out += "/>\n";
      continue;
    }
    out += ">\n";
    prop(out, fmt::format("{}  ", indent), "hetscale.availability",
         format_availability_setting(setting->second));
    out += fmt::format("{}</host>\n", indent);
  }
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
                      double flops_per_unit, const HostSettings& settings) {
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
    hosts_of_zone(out, "      ", zone.hosts, network, flops_per_unit, settings);
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

// Which hosts get a profile, with which setting: the group's when given, else the one for
// every host. Checks every setting and that each group named exists.
HostSettings host_settings(const SiteTable& table, const std::vector<const Node*>& hosts,
                           const TwinAvailability& availability) {
  std::map<std::string, AvailabilitySetting> by_group;
  for (const auto& entry : availability.groups) {
    const std::string& group = entry.first;  // a plain name: lambdas capture no structured binding in clang 14
    const AvailabilitySetting& setting = entry.second;
    const bool known = std::any_of(table.groups.begin(), table.groups.end(),
                                   [&](const Group& g) { return g.name == group; });
    if (!known) {
      std::string names;
      for (const Group& g : table.groups) names += (names.empty() ? "" : ", ") + g.name;
      throw Error(fmt::format("availability for group '{}': the site table {} has no such group "
                              "(its groups: {})",
                              group, table.source.string(), names));
    }
    if (!by_group.emplace(group, setting).second)
      throw Error(fmt::format("availability for group '{}' given twice", group));
    check_availability(AvailabilityDistribution::uniform, setting.mean, setting.sd,
                       fmt::format("availability for group '{}'", group));
  }
  if (availability.every_host)
    check_availability(AvailabilityDistribution::uniform, availability.every_host->mean,
                       availability.every_host->sd, "availability for every host");
  // A step lasts max_interval / 2 on average.
  constexpr double most_steps = 1e6;
  if (!(availability.max_interval > 0) || !std::isfinite(availability.max_interval) ||
      !(availability.horizon > 0) || !std::isfinite(availability.horizon))
    throw Error(fmt::format("availability profiles need a positive, finite maximum interval and "
                            "horizon, not {} and {}",
                            availability.max_interval, availability.horizon));
  if (2 * availability.horizon / availability.max_interval > most_steps)
    throw Error(fmt::format("availability profiles of {:g} s with intervals up to {:g} s would "
                            "have about {:.3g} steps per host, more than {:g}: shorten the "
                            "horizon or lengthen the maximum interval",
                            availability.horizon, availability.max_interval,
                            2 * availability.horizon / availability.max_interval, most_steps));
  HostSettings settings;
  for (const Node* node : hosts) {
    const auto group = by_group.find(node->group);
    if (group != by_group.end())
      settings.emplace(node, group->second);
    else if (availability.every_host)
      settings.emplace(node, *availability.every_host);
  }
  return settings;
}

// Inline speed profiles: one <trace> per profiled host, "TIME VALUE" lines (seconds, a
// multiplier of the host's speed), repeating with period `horizon`, and its trace_connect.
void speed_profiles(std::string& out, const std::vector<const Node*>& hosts,
                    const HostSettings& settings, const TwinAvailability& availability) {
  for (const Node* node : hosts) {
    const auto setting = settings.find(node);
    if (setting == settings.end()) continue;
    RandomStream random(availability.seed, twin_availability_stream(node->name));
    const std::vector<AvailabilityStep> steps = availability_profile(
        random, setting->second.mean, setting->second.sd, availability.max_interval,
        availability.horizon, "availability of host " + node->name);
    out += fmt::format("  <trace id=\"speed:{}\" periodicity=\"{}\">\n", node->name,
                       number(availability.horizon));
    for (const AvailabilityStep& step : steps)
      out += fmt::format("{} {}\n", number(step.start), number(step.availability));
    out += "  </trace>\n";
    out += fmt::format("  <trace_connect kind=\"SPEED\" trace=\"speed:{}\" element=\"{}\"/>\n",
                       node->name, node->name);
  }
}

std::string availability_settings_text(const TwinAvailability& availability) {
  std::string text;
  if (availability.every_host) text = format_availability_setting(*availability.every_host);
  for (const auto& [group, setting] : availability.groups)
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", group,
                        format_availability_setting(setting));
  return text;
}

}  // namespace

std::uint64_t twin_availability_stream(const std::string& name) {
  const Sha256Digest digest = sha256(name);
  std::uint64_t stream = 0;
  for (int i = 0; i < 8; ++i) stream = (stream << 8) | digest[i];
  return stream;
}

std::string format_availability_setting(const AvailabilitySetting& setting) {
  return fmt::format("{}:{}", number(setting.mean), number(setting.sd));
}

void add_availability_option(TwinAvailability& availability, std::string_view text) {
  const std::string what = fmt::format("--availability '{}'", text);
  const auto eq = text.find('=');
  const std::string_view value = eq == std::string_view::npos ? text : text.substr(eq + 1);
  const auto colon = value.find(':');
  if (colon == std::string_view::npos || (eq != std::string_view::npos && eq == 0))
    throw Error(what + ": expected MEAN:SD or GROUP=MEAN:SD");
  const AvailabilitySetting setting{parse_number(value.substr(0, colon), what + ": the mean"),
                                    parse_number(value.substr(colon + 1), what + ": the sd")};
  check_availability(AvailabilityDistribution::uniform, setting.mean, setting.sd, what);
  if (eq == std::string_view::npos) {
    if (availability.every_host) throw Error(what + ": every host's availability is given twice");
    availability.every_host = setting;
    return;
  }
  const std::string group(text.substr(0, eq));
  for (const auto& [given, _] : availability.groups)
    if (given == group) throw Error(what + ": group '" + group + "' is given twice");
  availability.groups.emplace_back(group, setting);
}

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
  for (const CollectiveOverheadField& field : kCollectiveOverheadFields)
    if (!(network.*field.member).none())
      prop(out, "    ", field.property, overhead_property_text(network.*field.member));
  HostSettings settings;
  if (const auto& availability = options.availability) {
    settings = host_settings(table, hosts, *availability);
    prop(out, "    ", "hetscale.availability", availability_settings_text(*availability));
    prop(out, "    ", "hetscale.availability.distribution", "uniform");
    prop(out, "    ", "hetscale.availability.max_interval_s", number(availability->max_interval));
    prop(out, "    ", "hetscale.availability.horizon_s", number(availability->horizon));
    prop(out, "    ", "hetscale.availability.seed", std::to_string(availability->seed));
  }
  platform.profiled_hosts = settings.size();
  if (star)
    hosts_of_zone(out, "    ", hosts, network, platform.flops_per_unit, settings);
  else
    switch_per_group(out, table, hosts, network, platform.flops_per_unit, settings);
  out += "  </zone>\n";
  if (options.availability) speed_profiles(out, hosts, settings, *options.availability);
  out += "</platform>\n";
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
