#include <gtest/gtest.h>

#include <set>

#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {
namespace {

std::string fixture(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/site/" + name;
}

// The message of the ConfigError loading a committed bad fixture, without its path.
std::string load_error(const std::string& name) {
  std::string path = fixture(name);
  try {
    load_site_table(path);
  } catch (const ConfigError& e) {
    std::string what = e.what();
    return what.starts_with(path) ? what.substr(path.size()) : "wrong file: " + what;
  }
  return "no error";
}

std::string parse_error(const std::string& text) {
  try {
    parse_site_table(text, "site.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string header = R"([site]
name = "s"

[[group]]
name = "blade"
marked_speed = 20.29
)";

// Everything that must survive a write and a read (not the source locations).
void expect_same_table(const SiteTable& a, const SiteTable& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.speed_unit, b.speed_unit);
  EXPECT_EQ(a.benchmark, b.benchmark);
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    EXPECT_EQ(a.groups[i].name, b.groups[i].name);
    EXPECT_EQ(a.groups[i].marked_speed, b.groups[i].marked_speed);
    EXPECT_EQ(a.groups[i].fingerprint, b.groups[i].fingerprint);
    EXPECT_EQ(a.groups[i].hardware, b.groups[i].hardware);
    EXPECT_EQ(a.groups[i].cpu_kinds, b.groups[i].cpu_kinds);
  }
  ASSERT_EQ(a.network.has_value(), b.network.has_value());
  if (a.network) {
    EXPECT_EQ(a.network->topology, b.network->topology);
    EXPECT_EQ(a.network->latency_us, b.network->latency_us);
    EXPECT_EQ(a.network->bandwidth_MBps, b.network->bandwidth_MBps);
    EXPECT_EQ(a.network->backbone_latency_us, b.network->backbone_latency_us);
    EXPECT_EQ(a.network->backbone_bandwidth_MBps, b.network->backbone_bandwidth_MBps);
    for (auto member : {&Network::barrier_overhead, &Network::broadcast_overhead,
                        &Network::allreduce_overhead}) {
      EXPECT_EQ(((*a.network).*member).us, ((*b.network).*member).us);
      EXPECT_EQ(((*a.network).*member).us_per_rank, ((*b.network).*member).us_per_rank);
      EXPECT_EQ(((*a.network).*member).max_ranks, ((*b.network).*member).max_ranks);
    }
  }
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    SCOPED_TRACE(a.nodes[i].name);
    EXPECT_EQ(a.nodes[i].name, b.nodes[i].name);
    EXPECT_EQ(a.nodes[i].group, b.nodes[i].group);
    EXPECT_EQ(a.nodes[i].processors, b.nodes[i].processors);
    EXPECT_EQ(a.nodes[i].marked_speed, b.nodes[i].marked_speed);
    EXPECT_EQ(a.nodes[i].state, b.nodes[i].state);
  }
}

TEST(LoadSiteTable, ReadsEveryKeyAndDefault) {
  SiteTable table = load_site_table(fixture("good-three-groups.toml"));
  EXPECT_EQ(table.name, "three-groups");
  EXPECT_EQ(table.source, fixture("good-three-groups.toml"));
  ASSERT_EQ(table.groups.size(), 3u);
  EXPECT_EQ(table.groups[2].name, "old");
  EXPECT_EQ(table.groups[2].marked_speed, 9.0);
  EXPECT_EQ(table.groups[1].where.line, 11u);
  ASSERT_EQ(table.nodes.size(), 8u);

  const Node* head = table.find_node("head0");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->processors, 4u);
  EXPECT_EQ(head->marked_speed, 45.3);
  EXPECT_EQ(head->total_speed(), 4 * 45.3);
  EXPECT_EQ(head->state, NodeState::ok);

  const Node* blade = table.find_node("hpc-05");
  ASSERT_NE(blade, nullptr);
  EXPECT_EQ(blade->group, "blade");
  EXPECT_EQ(blade->processors, 1u);
  EXPECT_EQ(blade->marked_speed, 20.29);
  EXPECT_EQ(blade->where.line, 24u);

  const Node* slow = table.find_node("hpc-04");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->marked_speed, 17.5);
  EXPECT_EQ(slow->state, NodeState::degraded);
  EXPECT_EQ(table.find_node("old2")->state, NodeState::excluded);
  EXPECT_EQ(table.find_node("hpc-4"), nullptr);
}

TEST(LoadSiteTable, KeepsFileOrderOfExpandedNodes) {
  SiteTable table = load_site_table(fixture("good-three-groups.toml"));
  std::vector<std::string> names;
  for (const Node& node : table.nodes) names.push_back(node.name);
  EXPECT_EQ(names, (std::vector<std::string>{"head0", "hpc-01", "hpc-02", "hpc-03", "hpc-05",
                                             "hpc-04", "old1", "old2"}));
}

TEST(LoadSiteTable, SiteDefaultsWhenOnlyTheNameIsGiven) {
  SiteTable table = load_site_table(fixture("good-minimal.toml"));
  EXPECT_EQ(table.name, "minimal");
  EXPECT_EQ(table.speed_unit, "Mflops");
  EXPECT_EQ(table.benchmark, "dgemm");
  EXPECT_TRUE(table.groups.empty());
  EXPECT_TRUE(table.nodes.empty());
}

TEST(LoadSiteTable, UnreadableFile) {
  EXPECT_EQ(load_error("does-not-exist.toml"), ": cannot read: No such file or directory");
}

TEST(LoadSiteTableErrors, Syntax) {
  EXPECT_EQ(load_error("bad-syntax.toml"),
            ":2:10: syntax error while parsing string: unescaped control characters other than "
            "TAB (U+0009) are explicitly prohibited");
}

TEST(LoadSiteTableErrors, UnknownKeys) {
  EXPECT_EQ(load_error("bad-unknown-key-site.toml"),
            ":3:1: unknown key 'speed' in [site] (expected name, speed_unit or benchmark)");
  EXPECT_EQ(load_error("bad-unknown-key-top.toml"),
            ":4:3: unknown key 'nodes' at top level (expected site, network, group or node)");
  EXPECT_EQ(load_error("bad-unknown-key-node.toml"),
            ":11:1: unknown key 'cpus' in [[node]] (expected name, group, processors, "
            "marked_speed or state)");
}

TEST(LoadSiteTableErrors, WrongTypes) {
  EXPECT_EQ(load_error("bad-wrong-type.toml"),
            ":11:14: 'processors' must be an integer, not a string");
  EXPECT_EQ(load_error("bad-wrong-type-speed.toml"),
            ":6:16: 'marked_speed' must be a number, not a string");
  EXPECT_EQ(load_error("bad-site-not-table.toml"), ":1:8: 'site' must be a table, not a string");
  EXPECT_EQ(load_error("bad-group-not-array.toml"),
            ":1:9: 'group' must be an array of tables ([[group]]), not a string");
}

TEST(LoadSiteTableErrors, MissingKeysPointAtTheTable) {
  EXPECT_EQ(load_error("bad-missing-site.toml"), ":1:1: missing table [site]");
  EXPECT_EQ(load_error("bad-missing-site-name.toml"), ":1:1: missing key 'name' in [site]");
  EXPECT_EQ(load_error("bad-missing-key-group.toml"),
            ":4:1: missing key 'marked_speed' in [[group]]");
  EXPECT_EQ(load_error("bad-missing-key-node.toml"), ":8:1: missing key 'group' in [[node]]");
}

TEST(LoadSiteTableErrors, OutOfRangeValues) {
  EXPECT_EQ(load_error("bad-negative-speed.toml"),
            ":6:16: 'marked_speed' must be positive and finite, not -20.5");
  EXPECT_EQ(load_error("bad-zero-speed-node.toml"),
            ":11:16: 'marked_speed' must be positive and finite, not 0");
  EXPECT_EQ(load_error("bad-infinite-speed.toml"),
            ":6:16: 'marked_speed' must be positive and finite, not inf");
  EXPECT_EQ(load_error("bad-huge-speed.toml"),
            ":6:16: 'marked_speed' must be at most 1e+18, not 1e+19");
  EXPECT_EQ(load_error("bad-processors.toml"), ":11:14: 'processors' must be between 1 and 4294967295, got 0");
  EXPECT_EQ(load_error("bad-empty-name.toml"), ":9:8: 'name' must not be empty");
}

TEST(LoadSiteTableErrors, GroupsAndStates) {
  EXPECT_EQ(load_error("bad-unknown-group.toml"), ":10:9: unknown group 'gpu'");
  EXPECT_EQ(load_error("bad-unknown-state.toml"),
            ":11:9: unknown state 'broken' (expected ok, degraded or excluded)");
  std::string path = fixture("bad-duplicate-group.toml");
  EXPECT_EQ(load_error("bad-duplicate-group.toml"),
            ":9:8: group 'blade' is declared twice (first at " + path + ":5:8)");
}

TEST(LoadSiteTableErrors, HostListErrorPointsInsideTheString) {
  EXPECT_EQ(load_error("bad-hostlist.toml"),
            ":9:18: bad host list 'hpc-[1-4,9-7]': descending range 9-7");
}

TEST(LoadSiteTableErrors, NodeListedTwiceAcrossExpressions) {
  std::string path = fixture("bad-duplicate-node.toml");
  EXPECT_EQ(load_error("bad-duplicate-node.toml"),
            ":13:16: node 'n3' is listed twice (first at " + path + ":9:9)");
}

TEST(ParseSiteTable, HostListColumnInLiteralAndMultiLineStrings) {
  EXPECT_EQ(parse_error(header + "[[node]]\nname = 'n[1-'\ngroup = \"blade\"\n"),
            "site.toml:8:10: bad host list 'n[1-': unbalanced '['");
  EXPECT_EQ(parse_error(header + "[[node]]\n  name = \"\"\"n1,n]\"\"\"\ngroup = \"blade\"\n"),
            "site.toml:8:17: bad host list 'n1,n]': unbalanced ']'");
}

TEST(ParseSiteTable, NodeListedTwiceInOneExpression) {
  EXPECT_EQ(parse_error(header + "[[node]]\nname = \"n[1-3,2]\"\ngroup = \"blade\"\n"),
            "site.toml:8:9: node 'n2' is listed twice (first at site.toml:8:9)");
  EXPECT_EQ(parse_error(header + "[[node]]\nname = \"a1,n[1-2]\"\ngroup = \"blade\"\n" +
                        "[[node]]\nname = \"b,n2\"\ngroup = \"blade\"\n"),
            "site.toml:11:11: node 'n2' is listed twice (first at site.toml:8:12)");
}

TEST(ParseSiteTable, MoreTypeAndRangeErrors) {
  EXPECT_EQ(parse_error(header + "[[node]]\ngroup = \"blade\"\n"),
            "site.toml:7:1: missing key 'name' in [[node]]");
  EXPECT_EQ(parse_error(header + "[[group]]\nmarked_speed = 1\n"),
            "site.toml:7:1: missing key 'name' in [[group]]");
  EXPECT_EQ(parse_error(header + "[[node]]\nname = \"n1\"\ngroup = \"blade\"\nprocessors = 2.0\n"),
            "site.toml:10:14: 'processors' must be an integer, not a floating-point number");
  EXPECT_EQ(
      parse_error(header + "[[node]]\nname = \"n1\"\ngroup = \"blade\"\nprocessors = 5000000000\n"),
      "site.toml:10:14: 'processors' must be between 1 and 4294967295, got 5000000000");
  EXPECT_EQ(
      parse_error(header + "[[node]]\nname = \"n1\"\ngroup = \"blade\"\nmarked_speed = nan\n"),
      "site.toml:10:16: 'marked_speed' must be positive and finite, not nan");
  EXPECT_EQ(parse_error(header + "[[node]]\nname = 7\ngroup = \"blade\"\n"),
            "site.toml:8:8: 'name' must be a string, not an integer");
  EXPECT_EQ(parse_error(header + "[[node]]\nname = \"n1\"\ngroup = \"blade\"\nstate = true\n"),
            "site.toml:10:9: 'state' must be a string, not a boolean");
  EXPECT_EQ(parse_error("[site]\nname = \"s\"\nbenchmark = [1]\n"),
            "site.toml:3:13: 'benchmark' must be a string, not an array");
  EXPECT_EQ(parse_error("[site]\nname = \"s\"\nnode = [1, 2]\n"),
            "site.toml:3:1: unknown key 'node' in [site] (expected name, speed_unit or benchmark)");
  EXPECT_EQ(parse_error("node = [1, 2]\n[site]\nname = \"s\"\n"),
            "site.toml:1:8: 'node' must be an array of tables ([[node]]), not an array");
}

const std::string hybrid_group = R"([site]
name = "s"
speed_unit = "Mflops"
benchmark = "dgemm"

[[group]]
name = "hybrid"
marked_speed = 1500.0
fingerprint = "0123456789abcdef"
hardware = "1x14c 13th Gen Intel Core i7-1370P (6 + 8 cores of 2 kinds), 32 GB DRAM"

[[group.cpu_kind]]
cpus = [12, 13]
efficiency = 0
core_type = "IntelAtom"
marked_speed = 900.0

[[group.cpu_kind]]
cpus = [0, 1, 2]
marked_speed = 2000.0
)";

TEST(ParseSiteTable, GroupsCarryWhatTheirNodesHave) {
  const SiteTable table = parse_site_table(hybrid_group, "site.toml");
  ASSERT_EQ(table.groups.size(), 1u);
  const Group& g = table.groups[0];
  EXPECT_EQ(g.fingerprint, "0123456789abcdef");
  EXPECT_EQ(g.hardware, "1x14c 13th Gen Intel Core i7-1370P (6 + 8 cores of 2 kinds), 32 GB DRAM");
  ASSERT_EQ(g.cpu_kinds.size(), 2u);
  EXPECT_EQ(g.cpu_kinds[0], (GroupCpuKind{{12, 13}, 0, "IntelAtom", 900, {}}));
  EXPECT_EQ(g.cpu_kinds[1], (GroupCpuKind{{0, 1, 2}, std::nullopt, "", 2000, {}}));
  EXPECT_EQ(g.cpu_kinds[1].where.line, 18u);
  // Written back as read.
  EXPECT_EQ(format_site_table(table), hybrid_group);
  // A table without them reads as before.
  EXPECT_TRUE(parse_site_table(header, "site.toml").groups[0].cpu_kinds.empty());
}

TEST(ParseSiteTable, CpuKindErrorsHaveTheirPlace) {
  EXPECT_EQ(parse_error(header + "[[group.cpu_kind]]\ncpus = [1]\n"),
            "site.toml:7:1: missing key 'marked_speed' in [[group.cpu_kind]]");
  EXPECT_EQ(parse_error(header + "[[group.cpu_kind]]\ncpus = []\nmarked_speed = 1\n"),
            "site.toml:8:8: 'cpus' must not be empty");
  EXPECT_EQ(parse_error(header + "[[group.cpu_kind]]\ncpus = [-1]\nmarked_speed = 1\n"),
            "site.toml:8:9: 'cpus' must be between 0 and 4294967295, got -1");
  EXPECT_EQ(parse_error(header + "[[group.cpu_kind]]\ncpus = [1]\nmarked_speed = 0\n"),
            "site.toml:9:16: 'marked_speed' must be positive and finite, not 0");
  EXPECT_EQ(parse_error(header + "[[group.cpu_kind]]\ncpus = [1]\nspeed = 1\n"),
            "site.toml:9:1: unknown key 'speed' in [[group.cpu_kind]] (expected cpus, efficiency, "
            "core_type or marked_speed)");
  EXPECT_EQ(parse_error(header + "fingerprint = 7\n"),
            "site.toml:7:15: 'fingerprint' must be a string, not an integer");
}

TEST(ParseSiteTable, GroupsMayFollowTheirNodes) {
  SiteTable table = parse_site_table(
      "[site]\nname = \"s\"\n[[node]]\nname = \"n1\"\ngroup = \"g\"\n[[group]]\nname = \"g\"\n"
      "marked_speed = 3\n",
      "site.toml");
  ASSERT_EQ(table.nodes.size(), 1u);
  EXPECT_EQ(table.nodes[0].marked_speed, 3.0);
}

TEST(FormatSiteTable, WritesTheContractForm) {
  SiteTable table = load_site_table(fixture("good-three-groups.toml"));
  EXPECT_EQ(format_site_table(table), R"([site]
name = "three-groups"
speed_unit = "Mflops"
benchmark = "dgemm"

[[group]]
name = "head"
marked_speed = 45.3

[[group]]
name = "blade"
marked_speed = 20.29

[[group]]
name = "old"
marked_speed = 9.0

[[node]]
name = "head0"
group = "head"
processors = 4
state = "ok"

[[node]]
name = "hpc-[01-03,05]"
group = "blade"
processors = 1
state = "ok"

[[node]]
name = "hpc-04"
group = "blade"
processors = 1
marked_speed = 17.5
state = "degraded"

[[node]]
name = "old[1-2]"
group = "old"
processors = 2
state = "excluded"
)");
}

TEST(FormatSiteTable, ParseOfFormatGivesTheSameTable) {
  SiteTable table = load_site_table(fixture("good-three-groups.toml"));
  expect_same_table(parse_site_table(format_site_table(table), "formatted.toml"), table);
}

TEST(FormatSiteTable, RoundTripsAwkwardValues) {
  SiteTable table;
  table.name = "quote \" and \\ backslash\tand tab";
  table.speed_unit = "Gflop/s";
  table.groups = {{"a", 0.1 + 0.2, {}}, {"b", 1e-7, {}}, {"c", 123456789012.345, {}}};
  for (std::string host : expand_hostlist("n[1-5],n[7-9]x,m00[8-9],m010")) {
    Node node;
    node.name = host;
    node.group = host.ends_with("x") ? "b" : "a";
    node.marked_speed = host == "n3" ? 1.0 / 3.0 : (host.ends_with("x") ? 1e-7 : 0.1 + 0.2);
    node.processors = host.starts_with("m") ? 64 : 1;
    node.state = host == "n5" ? NodeState::excluded : NodeState::ok;
    table.nodes.push_back(node);
  }
  std::string text = format_site_table(table);
  expect_same_table(parse_site_table(text, "formatted.toml"), table);
  EXPECT_NE(text.find("name = \"n[1-2]\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("name = \"m[008-010]\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("marked_speed = 0.3333333333333333\n"), std::string::npos) << text;
}

// Names that do not compress (two number runs each) would make one list longer than
// the host-list length bound; the writer splits the run so the text reads back.
TEST(FormatSiteTable, SplitsARunWhoseNamesDoNotFitOneHostList) {
  SiteTable table = parse_site_table(R"([site]
name = "s"
[[group]]
name = "blade"
marked_speed = 20.0
[[node]]
name = "n0[1-4112]111111101n02111000002051290703[1-24]"
group = "blade"
)",
                                     "wide.toml");
  ASSERT_EQ(table.nodes.size(), 4112u * 24u);
  const std::string text = format_site_table(table);
  expect_same_table(parse_site_table(text, "formatted.toml"), table);
  std::size_t entries = 0;
  for (std::size_t at = text.find("[[node]]"); at != std::string::npos;
       at = text.find("[[node]]", at + 1))
    ++entries;
  EXPECT_GT(entries, 1u);
}

TEST(LoadSiteTableNetwork, AbsentIsNoTable) {
  SiteTable table = load_site_table(fixture("good-three-groups.toml"));
  EXPECT_FALSE(table.network.has_value());
  EXPECT_EQ(table.speed_unit_where.line, 4u);
  EXPECT_EQ(table.speed_unit_where.column, 14u);
}

TEST(LoadSiteTableNetwork, Star) {
  SiteTable table = load_site_table(fixture("good-network-star.toml"));
  ASSERT_TRUE(table.network.has_value());
  EXPECT_EQ(table.network->topology, NetworkTopology::star);
  EXPECT_EQ(table.network->latency_us, 2.5);
  EXPECT_EQ(table.network->bandwidth_MBps, 1250.0);
  EXPECT_EQ(table.network->where.line, 6u);
  // A star has no backbone: the defaults stay.
  EXPECT_EQ(table.network->backbone_latency_us, Network{}.backbone_latency_us);
}

TEST(LoadSiteTableNetwork, SwitchPerGroup) {
  SiteTable table = load_site_table(fixture("good-network-switch-per-group.toml"));
  ASSERT_TRUE(table.network.has_value());
  EXPECT_EQ(table.network->topology, NetworkTopology::switch_per_group);
  EXPECT_EQ(table.network->latency_us, 1.5);
  EXPECT_EQ(table.network->bandwidth_MBps, 1250.0);
  EXPECT_EQ(table.network->backbone_latency_us, 10.0);
  EXPECT_EQ(table.network->backbone_bandwidth_MBps, 5000.0);
}

TEST(LoadSiteTableNetwork, Defaults) {
  const Network defaults;
  EXPECT_EQ(defaults.topology, NetworkTopology::star);
  EXPECT_EQ(defaults.latency_us, 1.5);
  EXPECT_EQ(defaults.bandwidth_MBps, 1250.0);
  EXPECT_EQ(defaults.backbone_latency_us, 1.5);
  EXPECT_EQ(defaults.backbone_bandwidth_MBps, 1250.0);
  EXPECT_EQ(to_string(NetworkTopology::switch_per_group), "switch-per-group");
}

TEST(LoadSiteTableNetworkErrors, EveryMistakeHasItsPlace) {
  EXPECT_EQ(load_error("bad-network-unknown-key.toml"),
            ":7:1: unknown key 'bandwidth_Mbps' in [network] (expected topology, latency_us, "
            "bandwidth_MBps, backbone_latency_us, backbone_bandwidth_MBps, barrier_overhead_us, "
            "barrier_overhead_us_per_rank, broadcast_overhead_us, broadcast_overhead_us_per_rank, "
            "allreduce_overhead_us, allreduce_overhead_us_per_rank, barrier_overhead_max_ranks, "
            "broadcast_overhead_max_ranks or allreduce_overhead_max_ranks)");
  EXPECT_EQ(load_error("bad-network-wrong-type.toml"),
            ":6:14: 'latency_us' must be a number, not a string");
  EXPECT_EQ(load_error("bad-network-negative-latency.toml"),
            ":8:23: 'backbone_latency_us' must be zero or more and finite, not -3");
  EXPECT_EQ(load_error("bad-network-zero-bandwidth.toml"),
            ":7:18: 'bandwidth_MBps' must be positive and finite, not 0");
  EXPECT_EQ(load_error("bad-network-unknown-topology.toml"),
            ":5:12: unknown topology 'fat-tree' (expected star or switch-per-group)");
  EXPECT_EQ(load_error("bad-network-backbone-for-star.toml"),
            ":8:23: 'backbone_latency_us' applies only to topology 'switch-per-group', not 'star'");
  EXPECT_EQ(load_error("bad-network-missing-backbone.toml"),
            ":4:1: missing key 'backbone_bandwidth_MBps' in [network]");
  EXPECT_EQ(load_error("bad-network-not-table.toml"),
            ":1:11: 'network' must be a table, not a string");
}

TEST(ParseSiteTableNetwork, MissingAndOutOfRange) {
  EXPECT_EQ(parse_error("[site]\nname = \"s\"\n[network]\nlatency_us = 1\nbandwidth_MBps = 1\n"),
            "site.toml:3:1: missing key 'topology' in [network]");
  EXPECT_EQ(parse_error("[site]\nname = \"s\"\n[network]\ntopology = \"star\"\n"
                        "bandwidth_MBps = 1\n"),
            "site.toml:3:1: missing key 'latency_us' in [network]");
  EXPECT_EQ(parse_error("[site]\nname = \"s\"\n[network]\ntopology = \"star\"\nlatency_us = 1\n"
                        "bandwidth_MBps = inf\n"),
            "site.toml:6:18: 'bandwidth_MBps' must be positive and finite, not inf");
  EXPECT_EQ(parse_error("[site]\nname = \"s\"\n[network]\ntopology = 1\n"),
            "site.toml:4:12: 'topology' must be a string, not an integer");
  // Zero latency is allowed (an ideal link), integers are numbers.
  SiteTable table = parse_site_table(
      "[site]\nname = \"s\"\n[network]\ntopology = \"star\"\nlatency_us = 0\n"
      "bandwidth_MBps = 100\n",
      "site.toml");
  ASSERT_TRUE(table.network.has_value());
  EXPECT_EQ(table.network->latency_us, 0.0);
  EXPECT_EQ(table.network->bandwidth_MBps, 100.0);
}

// The ranges of number_limits.hpp: latency at most 1e7 us (10 s), bandwidth at most
// 1e9 MBps (1 PB/s), for the host links and the backbone alike; the limits themselves are
// allowed.
TEST(LoadSiteTableNetworkErrors, FiguresBeyondTheirRange) {
  EXPECT_EQ(load_error("bad-network-huge-latency.toml"),
            ":6:14: 'latency_us' must be at most 1e+07, not 2e+07");
  EXPECT_EQ(load_error("bad-network-huge-backbone-bandwidth.toml"),
            ":9:27: 'backbone_bandwidth_MBps' must be at most 1e+09, not 1e+10");
  const std::string star = "[site]\nname = \"s\"\n[network]\ntopology = \"star\"\n";
  EXPECT_EQ(parse_error(star + "latency_us = 1\nbandwidth_MBps = 1e300\n"),
            "site.toml:6:18: 'bandwidth_MBps' must be at most 1e+09, not 1e+300");
  const std::string switches =
      "[site]\nname = \"s\"\n[network]\ntopology = \"switch-per-group\"\nlatency_us = 1\n"
      "bandwidth_MBps = 1\nbackbone_bandwidth_MBps = 1\n";
  EXPECT_EQ(parse_error(switches + "backbone_latency_us = 10000000.5\n"),
            "site.toml:8:23: 'backbone_latency_us' must be at most 1e+07, not 10000000.5");
  const SiteTable limits = parse_site_table(
      switches.substr(0, switches.find("latency_us")) +
          "latency_us = 1e7\nbandwidth_MBps = 1e9\nbackbone_latency_us = 1e7\n"
          "backbone_bandwidth_MBps = 1e9\n",
      "site.toml");
  ASSERT_TRUE(limits.network.has_value());
  EXPECT_EQ(limits.network->latency_us, 1e7);
  EXPECT_EQ(limits.network->bandwidth_MBps, 1e9);
  EXPECT_EQ(limits.network->backbone_latency_us, 1e7);
  EXPECT_EQ(limits.network->backbone_bandwidth_MBps, 1e9);
}

// Each collective's overhead: optional, 0 when absent; the intercept any finite number,
// the per-rank figure zero or more; the charge never below zero.
TEST(ParseSiteTableNetwork, CollectiveOverheads) {
  const std::string star =
      "[site]\nname = \"s\"\n[network]\ntopology = \"star\"\nlatency_us = 1\nbandwidth_MBps = 1\n";
  const SiteTable plain = parse_site_table(star, "site.toml");
  ASSERT_TRUE(plain.network.has_value());
  EXPECT_TRUE(plain.network->barrier_overhead.none());
  EXPECT_TRUE(plain.network->allreduce_overhead.none());
  const SiteTable table = parse_site_table(
      star + "barrier_overhead_us = -8100\nbarrier_overhead_us_per_rank = 6680\nbarrier_overhead_max_ranks = 5\n"
             "broadcast_overhead_us = 250\nallreduce_overhead_us_per_rank = 3\n",
      "site.toml");
  ASSERT_TRUE(table.network.has_value());
  const Network& n = *table.network;
  EXPECT_EQ(n.barrier_overhead.us, -8100.0);
  EXPECT_EQ(n.barrier_overhead.us_per_rank, 6680.0);
  EXPECT_EQ(n.broadcast_overhead.us, 250.0);
  EXPECT_EQ(n.broadcast_overhead.us_per_rank, 0.0);
  EXPECT_EQ(n.allreduce_overhead.us, 0.0);
  EXPECT_EQ(n.allreduce_overhead.us_per_rank, 3.0);
  // -8100 + 6680 p us: 5.26 ms on 2 ranks, nothing on 1 (never below zero).
  EXPECT_DOUBLE_EQ(n.barrier_overhead.seconds(2), 5.26e-3);
  EXPECT_EQ(n.barrier_overhead.seconds(1), 0.0);
  // Measured up to 5 ranks: 64 ranks cost what 5 did, -8100 + 5 x 6680 = 25300 us.
  EXPECT_EQ(n.barrier_overhead.max_ranks, 5);
  EXPECT_DOUBLE_EQ(n.barrier_overhead.seconds(64), 25.3e-3);
  EXPECT_EQ(n.broadcast_overhead.max_ranks, 0);
  EXPECT_DOUBLE_EQ(n.broadcast_overhead.seconds(64), 250e-6);
  EXPECT_EQ(parse_error(star + "barrier_overhead_us_per_rank = -1\n"),
            "site.toml:7:32: 'barrier_overhead_us_per_rank' must be zero or more and finite, not -1");
  EXPECT_EQ(parse_error(star + "allreduce_overhead_us = -2e7\n"),
            "site.toml:7:25: 'allreduce_overhead_us' must be at most 1e+07, not -2e+07");
  EXPECT_EQ(parse_error(star + "allreduce_overhead_max_ranks = 0\n"),
            "site.toml:7:32: 'allreduce_overhead_max_ranks' must be between 1 and 1073741824, got 0");
  EXPECT_EQ(parse_error(star + "broadcast_overhead_us = \"1\"\n"),
            "site.toml:7:25: 'broadcast_overhead_us' must be a number, not a string");
  // Written back only where set, and read back the same.
  const std::string text = format_site_table(table);
  EXPECT_NE(text.find("barrier_overhead_us = -8100.0\nbarrier_overhead_us_per_rank = 6680.0\n"
                      "barrier_overhead_max_ranks = 5\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(format_site_table(plain).find("overhead"), std::string::npos);
  expect_same_table(parse_site_table(text, "formatted.toml"), table);
}

// The text a twin platform carries each overhead in, and the twin kernels' reading of it.
TEST(OverheadProperty, RoundTripsAndRefusesWhatIsNotThreeNumbers) {
  const CollectiveOverhead overhead{-8100.5, 6680, 5};
  EXPECT_EQ(overhead_property_text(overhead), "-8100.5 6680 5");
  const CollectiveOverhead back = parse_overhead_property("p", overhead_property_text(overhead).c_str());
  EXPECT_EQ(back.us, overhead.us);
  EXPECT_EQ(back.us_per_rank, overhead.us_per_rank);
  EXPECT_EQ(back.max_ranks, overhead.max_ranks);
  EXPECT_TRUE(parse_overhead_property("p", nullptr).none());
  const auto error = [](const char* text) {
    try {
      (void)parse_overhead_property("hetscale.overhead.barrier", text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("1 2"), "the platform's hetscale.overhead.barrier is '1 2': not three numbers "
                          "(microseconds, microseconds per rank, largest ranks)");
  EXPECT_EQ(error("1 inf 3"), "the platform's hetscale.overhead.barrier is '1 inf 3': not three numbers "
                              "(microseconds, microseconds per rank, largest ranks)");
  EXPECT_EQ(error("1 2 3 4"), "the platform's hetscale.overhead.barrier is '1 2 3 4': more than three numbers");
  EXPECT_EQ(error("1 2 3.5"),
            "the platform's hetscale.overhead.barrier is '1 2 3.5': its largest ranks is no count from 0 to 2^30");
  // Every overhead of a [network] has its own keys' prefix and property.
  std::set<std::string_view> kinds;
  std::set<std::string> properties;
  for (const CollectiveOverheadField& field : kCollectiveOverheadFields) {
    kinds.insert(field.kind);
    properties.insert(field.property);
  }
  EXPECT_EQ(kinds.size(), 3u);
  EXPECT_EQ(properties.size(), 3u);
}

TEST(FormatSiteTable, RoundTripsTheNetwork) {
  for (const char* name : {"good-network-star.toml", "good-network-switch-per-group.toml"}) {
    SiteTable table = load_site_table(fixture(name));
    std::string text = format_site_table(table);
    EXPECT_NE(text.find("[network]\n"), std::string::npos) << text;
    expect_same_table(parse_site_table(text, "formatted.toml"), table);
  }
  SiteTable table = load_site_table(fixture("good-network-switch-per-group.toml"));
  table.network->backbone_latency_us = 0.1 + 0.2;
  expect_same_table(parse_site_table(format_site_table(table), "formatted.toml"), table);
  EXPECT_NE(format_site_table(table).find("backbone_latency_us = 0.30000000000000004\n"),
            std::string::npos);
}

}  // namespace
}  // namespace hetscale
