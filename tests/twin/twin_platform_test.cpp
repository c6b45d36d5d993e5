#include "hetscale/twin/twin_platform.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/base/sha256.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/site/" + name;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string config_error(const SiteTable& table, const TwinPlatformOptions& options = {}) {
  try {
    (void)make_twin_platform(table, options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TwinPlatform, StarHasOneHostPerNodeNotExcluded) {
  const SiteTable table = load_site_table(fixture("good-network-star.toml"));
  const TwinPlatform p = make_twin_platform(table);
  EXPECT_EQ(p.hosts, 3u);
  EXPECT_EQ(p.hostfile, "f1\nf2\ns1\n");  // s2 is excluded
  EXPECT_FALSE(p.default_network);
  EXPECT_EQ(p.flops_per_unit, 1e6);
  // Per-processor speed in flop/s, processors as cores; the degraded node keeps its speed.
  EXPECT_TRUE(contains(p.xml, R"(<host id="f1" speed="45300000f" core="4"/>)")) << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<host id="s1" speed="17500000f" core="1"/>)")) << p.xml;
  EXPECT_FALSE(contains(p.xml, R"("s2")")) << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<zone id="zone:site" routing="Cluster">)")) << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<link id="link:f2" bandwidth="1250MBps" latency="2.5us" )"
                              R"(sharing_policy="SPLITDUPLEX"/>)"))
      << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<host_link id="s1" up="link:s1_UP" down="link:s1_DOWN"/>)"))
      << p.xml;
  EXPECT_FALSE(contains(p.xml, "backbone")) << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.network" value="site table"/>)")) << p.xml;
}

// The collectives' overheads travel to the twin kernels as properties of the root zone,
// only those that are set (a platform without them is the same text as before).
TEST(TwinPlatform, CollectiveOverheadsAreRootZoneProperties) {
  SiteTable table = load_site_table(fixture("good-network-star.toml"));
  EXPECT_FALSE(contains(make_twin_platform(table).xml, "hetscale.overhead")) << make_twin_platform(table).xml;
  table.network->barrier_overhead = {-8100, 6680, 5};
  table.network->allreduce_overhead = {2.5, 0, 0};
  const TwinPlatform p = make_twin_platform(table);
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.overhead.barrier" value="-8100 6680 5"/>)")) << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.overhead.allreduce" value="2.5 0 0"/>)")) << p.xml;
  EXPECT_FALSE(contains(p.xml, "hetscale.overhead.broadcast")) << p.xml;
  // Inside the site's zone, before its first host.
  EXPECT_LT(p.xml.find("hetscale.overhead.barrier"), p.xml.find("<host "));
  EXPECT_GT(p.xml.find("hetscale.overhead.barrier"), p.xml.find("<zone id=\"zone:site\""));
}

TEST(TwinPlatform, SwitchPerGroupHasAZoneAndASwitchPerGroup) {
  const SiteTable table = load_site_table(fixture("good-network-switch-per-group.toml"));
  const TwinPlatform p = make_twin_platform(table);
  EXPECT_EQ(p.hostfile, "fast-01\nfast-02\nmid1\nslow1\nslow2\n");
  EXPECT_EQ(p.flops_per_unit, 1e9);
  EXPECT_TRUE(contains(p.xml, R"(<zone id="zone:site" routing="Full">)")) << p.xml;
  for (const char* group : {"fast", "mid", "slow"}) {
    const std::string name = group;
    EXPECT_TRUE(contains(p.xml, "<zone id=\"zone:" + name + "\" routing=\"Cluster\">\n" +
                                    "      <router id=\"switch:" + name + "\"/>\n"))
        << p.xml;
  }
  EXPECT_TRUE(contains(p.xml, R"(<host id="slow2" speed="3300000000f" core="8"/>)")) << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<link id="backbone:site" bandwidth="5000MBps" latency="10us"/>)"))
      << p.xml;
  // One zone route per pair of groups, all over the one backbone.
  EXPECT_TRUE(contains(p.xml, R"(<zoneRoute src="zone:fast" dst="zone:slow" gw_src="switch:fast" )"
                              R"(gw_dst="switch:slow">)"))
      << p.xml;
  std::size_t routes = 0;
  for (std::size_t at = p.xml.find("<zoneRoute"); at != std::string::npos;
       at = p.xml.find("<zoneRoute", at + 1))
    ++routes;
  EXPECT_EQ(routes, 3u);
}

TEST(TwinPlatform, DefaultsWhenTheTableHasNoNetwork) {
  const SiteTable table = load_site_table(fixture("good-three-groups.toml"));
  const TwinPlatform p = make_twin_platform(table);
  EXPECT_TRUE(p.default_network);
  EXPECT_EQ(p.network.topology, NetworkTopology::star);
  EXPECT_EQ(p.network.latency_us, 1.5);
  EXPECT_EQ(p.network.bandwidth_MBps, 1250.0);
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.network" value="defaults"/>)")) << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<host id="hpc-04" speed="17500000f" core="1"/>)")) << p.xml;
  EXPECT_EQ(p.hosts, 6u);  // old[1-2] are excluded
}

TEST(TwinPlatform, HashIsTheSha256OfTheTextAndStable) {
  const SiteTable table = load_site_table(fixture("good-network-star.toml"));
  const TwinPlatform p = make_twin_platform(table);
  EXPECT_EQ(p.sha256, to_hex(sha256(p.xml)));
  EXPECT_EQ(p.sha256.size(), 64u);
  EXPECT_EQ(make_twin_platform(table).xml, p.xml);
  SiteTable slower = table;
  slower.nodes[0].marked_speed = 45.2;
  EXPECT_NE(make_twin_platform(slower).sha256, p.sha256);
}

TEST(TwinPlatform, SpeedsAreExactShortestNumbers) {
  SiteTable table = load_site_table(fixture("good-network-star.toml"));
  table.nodes[0].marked_speed = 0.1 + 0.2;  // 0.30000000000000004 Mflops
  const TwinPlatform p = make_twin_platform(table);
  EXPECT_TRUE(contains(p.xml, R"(<host id="f1" speed="300000.00000000006f")")) << p.xml;
}

TEST(TwinPlatform, NonOperationUnitNeedsAConversion) {
  const SiteTable table = load_site_table(fixture("good-speed-factor.toml"));
  const std::string error = config_error(table);
  EXPECT_EQ(error,
            fixture("good-speed-factor.toml") +
                ":4:14: speed_unit 'speed-factor' is no operation rate, so marked speeds cannot "
                "become flop/s; give the flop/s of one 'speed-factor' with --flops-per-unit "
                "(operation rates: flops, Kflops, Mflops, Gflops, Tflops, Pflops, flop/s, Kflop/s, "
                "Mflop/s, Gflop/s, Tflop/s, Pflop/s, op/s, Kop/s, Mop/s, Gop/s, Top/s)");
  const TwinPlatform p = make_twin_platform(table, {2.5e10});
  EXPECT_EQ(p.flops_per_unit, 2.5e10);
  EXPECT_TRUE(contains(p.xml, R"(<host id="n2" speed="25000000000f" core="1"/>)")) << p.xml;
  SiteTable bytes = table;
  bytes.speed_unit = "MB/s";
  EXPECT_TRUE(contains(config_error(bytes), "speed_unit 'MB/s' is no operation rate"))
      << config_error(bytes);
  EXPECT_THROW((void)make_twin_platform(table, {0.0}), Error);
  EXPECT_THROW((void)make_twin_platform(table, {-1.0}), Error);
}

TEST(TwinPlatform, AGivenConversionReplacesTheUnitsOwn) {
  const SiteTable table = load_site_table(fixture("good-network-star.toml"));
  EXPECT_EQ(make_twin_platform(table, {1e3}).flops_per_unit, 1e3);
  EXPECT_EQ(twin_flops_per_unit(table, std::nullopt), 1e6);
}

TEST(TwinPlatform, UnsafeNamesAreRejectedAtTheirEntry) {
  SiteTable table = load_site_table(fixture("good-network-star.toml"));
  table.nodes[1].name = "f2\"/><host id=\"x";
  EXPECT_EQ(config_error(table),
            fixture("good-network-star.toml") +
                ":19:1: host name 'f2\"/><host id=\"x' cannot be a SimGrid id (use letters, "
                "digits, '.', '_' and '-')");
  table.nodes[1].name = "f:2";
  EXPECT_TRUE(contains(config_error(table), "host name 'f:2' cannot be a SimGrid id"));
  // An excluded node is not on the platform, so its name does not matter.
  table = load_site_table(fixture("good-network-star.toml"));
  table.nodes[3].name = "s 2";
  EXPECT_EQ(config_error(table), "no error");

  SiteTable groups = load_site_table(fixture("good-network-switch-per-group.toml"));
  groups.groups[1].name = "mid&low";
  for (Node& node : groups.nodes)
    if (node.group == "mid") node.group = "mid&low";
  groups.index();
  EXPECT_EQ(config_error(groups),
            fixture("good-network-switch-per-group.toml") +
                ":17:1: group name 'mid&low' cannot be a SimGrid id (use letters, digits, '.', '_' "
                "and '-')");
}

TEST(TwinPlatform, SiteNameIsEscapedInItsProperty) {
  SiteTable table = load_site_table(fixture("good-network-star.toml"));
  table.name = "a<b & \"c\"";
  const TwinPlatform p = make_twin_platform(table);
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.site" value="a&lt;b &amp; &quot;c&quot;"/>)"))
      << p.xml;
}

TEST(TwinPlatform, NoHostLeftIsAnError) {
  SiteTable table = load_site_table(fixture("good-network-star.toml"));
  for (Node& node : table.nodes) node.state = NodeState::excluded;
  EXPECT_EQ(config_error(table), fixture("good-network-star.toml") +
                                     ": no node for the twin: the site table lists none that is "
                                     "not excluded");
}

TEST(TwinPlatform, WritesThreeFiles) {
  const fs::path dir = fs::path(::testing::TempDir()) / "twin-platform-test" / "out";
  fs::remove_all(dir.parent_path());
  const TwinPlatform p = make_twin_platform(load_site_table(fixture("good-network-star.toml")));
  const TwinPlatformFiles files = write_twin_platform(p, dir);
  EXPECT_EQ(files.platform, dir / "platform.xml");
  EXPECT_EQ(read(files.platform), p.xml);
  EXPECT_EQ(read(files.hostfile), p.hostfile);
  EXPECT_EQ(read(files.hash), p.sha256 + "  platform.xml\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 3u);  // no temporary left behind
  fs::remove_all(dir.parent_path());
}

}  // namespace
}  // namespace hetscale
