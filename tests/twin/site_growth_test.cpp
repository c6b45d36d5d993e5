#include "hetscale/twin/site_growth.hpp"

#include <gtest/gtest.h>

#include <map>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

// Five nodes: two fast, two mid (one degraded), one slow with 4 processors, and an
// excluded fast node that does not count.
constexpr const char* site_text = R"(
[site]
name = "small"
speed_unit = "Gflops"

[[group]]
name = "fast"
marked_speed = 60

[[group]]
name = "mid"
marked_speed = 35

[[group]]
name = "slow"
marked_speed = 15

[[node]]
name = "f[1-2]"
group = "fast"

[[node]]
name = "f9"
group = "fast"
state = "excluded"

[[node]]
name = "m1"
group = "mid"
state = "degraded"
marked_speed = 30

[[node]]
name = "m2"
group = "mid"

[[node]]
name = "s1"
group = "slow"
processors = 4
)";

TEST(SiteGrowth, GrowsEachGroupInProportionByLargestRemainders) {
  const SiteTable site = parse_site_table(site_text, "small.toml");
  const SiteTable grown = grow_site_table(site, 64);
  // 64 x (2, 2, 1) / 5 = 25.6, 25.6, 12.8: floors 25, 25, 12; the two left go to slow
  // (remainder .8), then fast (.6, declared before mid).
  std::map<std::string, int> eligible;
  for (const Node& n : grown.nodes)
    if (n.state != NodeState::excluded) ++eligible[n.group];
  EXPECT_EQ(eligible["fast"], 26);
  EXPECT_EQ(eligible["mid"], 25);
  EXPECT_EQ(eligible["slow"], 13);
  ASSERT_EQ(grown.nodes.size(), 65u);  // with the excluded one
  // The old nodes first, unchanged; new ones copy the group's first ok node.
  for (std::size_t i = 0; i < site.nodes.size(); ++i) EXPECT_EQ(grown.nodes[i].name, site.nodes[i].name);
  const Node* m = grown.find_node("mid-t1");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->marked_speed, 35);  // m2's, not the degraded m1's
  EXPECT_EQ(m->state, NodeState::ok);
  const Node* s = grown.find_node("slow-t12");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->processors, 4u);
  EXPECT_EQ(grown.find_node("slow-t13"), nullptr);
  EXPECT_NE(grown.find_node("fast-t24"), nullptr);
  EXPECT_EQ(grown.find_node("fast-t25"), nullptr);
  // It is a site table like any other: written and read back the same.
  const SiteTable again = parse_site_table(format_site_table(grown), "grown.toml");
  ASSERT_EQ(again.nodes.size(), grown.nodes.size());
  EXPECT_EQ(again.find_node("slow-t7")->processors, 4u);
}

TEST(SiteGrowth, TheSameSizeIsTheSameSiteAndASmallerOneIsAnError) {
  const SiteTable site = parse_site_table(site_text, "small.toml");
  EXPECT_EQ(grow_site_table(site, 5).nodes.size(), site.nodes.size());
  try {
    grow_site_table(site, 4);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot grow site 'small' to 4 nodes: it has 5 already");
  }
}

}  // namespace
}  // namespace hetscale
