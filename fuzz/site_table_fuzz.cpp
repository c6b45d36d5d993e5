// Site table (site/src/site_table_io.cpp): read by the SPANK plugin in slurmstepd and by every
// command. Any text parses or raises ConfigError; an accepted table written back with
// format_site_table reads back to the same groups and nodes.
#include "fuzz_targets.hpp"
#include "hetscale/site/site_table.hpp"

namespace {

using hetscale::fuzz::require;

constexpr std::size_t kMaxRoundTripNodes = 10'000;

void require_same(const hetscale::SiteTable& a, const hetscale::SiteTable& b) {
  require(a.name == b.name && a.speed_unit == b.speed_unit && a.benchmark == b.benchmark,
          "site table round trip: [site] differs");
  require(a.groups.size() == b.groups.size(), "site table round trip: group count differs");
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    require(a.groups[i].name == b.groups[i].name &&
                a.groups[i].marked_speed == b.groups[i].marked_speed &&
                a.groups[i].fingerprint == b.groups[i].fingerprint &&
                a.groups[i].hardware == b.groups[i].hardware &&
                a.groups[i].cpu_kinds == b.groups[i].cpu_kinds,
            "site table round trip: group " + a.groups[i].name + " differs");
  }
  require(a.nodes.size() == b.nodes.size(), "site table round trip: node count differs");
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const hetscale::Node& x = a.nodes[i];
    const hetscale::Node& y = b.nodes[i];
    require(x.name == y.name && x.group == y.group && x.processors == y.processors &&
                x.marked_speed == y.marked_speed && x.state == y.state,
            "site table round trip: node " + x.name + " differs");
  }
}

}  // namespace

int hetscale_fuzz_site_table(const std::uint8_t* data, std::size_t size) {
  hetscale::SiteTable table;
  try {
    table = hetscale::parse_site_table(hetscale::fuzz::text_of(data, size), "fuzz.toml");
  } catch (const hetscale::ConfigError&) {
    return 0;
  }
  for (const hetscale::Node& node : table.nodes) {
    require(table.find_node(node.name) != nullptr, "site table: node " + node.name + " not found");
  }
  // A short name can stand for up to a million nodes; writing and reading such a table
  // back takes seconds under the sanitizers and would only time the fuzzer out. The unit
  // tests round-trip a table whose names overflow one host list.
  if (table.nodes.size() > kMaxRoundTripNodes) return 0;
  const std::string text = hetscale::format_site_table(table);
  hetscale::SiteTable again;
  try {
    again = hetscale::parse_site_table(text, "formatted.toml");
  } catch (const hetscale::ConfigError& e) {
    throw hetscale::fuzz::PropertyBroken(std::string("formatted site table rejected: ") + e.what());
  }
  require_same(table, again);
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_site_table(data, size);
}
#endif
