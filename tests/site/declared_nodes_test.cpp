#include "hetscale/site/declared_nodes.hpp"

#include <gtest/gtest.h>

#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {
namespace {

const DeclaredSite kTestbed{"testbed", "speed-factor"};

std::string parse_error(const std::string& text) {
  try {
    parse_declared_nodes(text, "layout.txt", kTestbed);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// Everything a reader of the table sees: [site], groups and expanded nodes.
void expect_same_table(const SiteTable& a, const SiteTable& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.speed_unit, b.speed_unit);
  EXPECT_EQ(a.benchmark, b.benchmark);
  EXPECT_EQ(a.network.has_value(), b.network.has_value());
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    EXPECT_EQ(a.groups[i].name, b.groups[i].name);
    EXPECT_EQ(a.groups[i].marked_speed, b.groups[i].marked_speed);
  }
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    EXPECT_EQ(a.nodes[i].name, b.nodes[i].name);
    EXPECT_EQ(a.nodes[i].group, b.nodes[i].group) << a.nodes[i].name;
    EXPECT_EQ(a.nodes[i].processors, b.nodes[i].processors) << a.nodes[i].name;
    EXPECT_EQ(a.nodes[i].marked_speed, b.nodes[i].marked_speed) << a.nodes[i].name;
    EXPECT_EQ(a.nodes[i].state, b.nodes[i].state) << a.nodes[i].name;
  }
}

TEST(DeclaredNodes, ReadsNodesGroupsAndDefaults) {
  const SiteTable table = parse_declared_nodes(
      "# a comment line\n"
      "\n"
      "n1 group=big cpus=4 speed=2.5   # the rest of the line is a comment\n"
      "\tn2\tspeed=2.5 group=big cpus=4\r\n"
      "small-1 group=small\n"
      "n3 group=big speed=2.5",
      "layout.txt", kTestbed);
  EXPECT_EQ(table.name, "testbed");
  EXPECT_EQ(table.speed_unit, "speed-factor");
  EXPECT_EQ(table.benchmark, "declared");
  EXPECT_FALSE(table.network.has_value());
  ASSERT_EQ(table.groups.size(), 2u);
  EXPECT_EQ(table.groups[0].name, "big");
  EXPECT_EQ(table.groups[0].marked_speed, 2.5);
  EXPECT_EQ(table.groups[1].name, "small");
  EXPECT_EQ(table.groups[1].marked_speed, 1.0);
  ASSERT_EQ(table.nodes.size(), 4u);
  EXPECT_EQ(table.nodes[1].name, "n2");
  EXPECT_EQ(table.nodes[1].where.str(), "layout.txt:4:2");
  EXPECT_EQ(table.nodes[1].processors, 4u);
  const Node* small = table.find_node("small-1");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->processors, 1u);  // cpus and speed default to 1
  EXPECT_EQ(small->marked_speed, 1.0);
  EXPECT_EQ(small->state, NodeState::ok);
  EXPECT_EQ(table.nodes[3].name, "n3");
  EXPECT_EQ(table.nodes[3].processors, 1u);
}

TEST(DeclaredNodes, SiteNameAndUnitComeFromTheCaller) {
  const SiteTable defaults = parse_declared_nodes("a group=g\n", "x", DeclaredSite{});
  EXPECT_EQ(defaults.name, "site");
  EXPECT_EQ(defaults.speed_unit, "speed-factor");
  const SiteTable given = parse_declared_nodes("a group=g speed=900\n", "x", {"hpc", "Mflops"});
  EXPECT_EQ(given.name, "hpc");
  EXPECT_EQ(given.speed_unit, "Mflops");
  EXPECT_EQ(given.nodes[0].marked_speed, 900);
}

// The testbed's layout gives the table the committed fixture spells out node by node.
TEST(DeclaredNodes, TestbedLayoutReadsBackAsTheExpectedTable) {
  const SiteTable declared =
      load_declared_nodes(HETSCALE_SOURCE_DIR "/site-configs/testbed-layout.txt", kTestbed);
  const SiteTable written = parse_site_table(format_site_table(declared), "written");
  const SiteTable expected =
      load_site_table(HETSCALE_FIXTURES_DIR "/site/testbed-layout-expected.toml");
  ASSERT_EQ(expected.nodes.size(), 5u);
  expect_same_table(declared, expected);
  expect_same_table(written, expected);
}

TEST(DeclaredNodes, WordsAndKeys) {
  EXPECT_EQ(parse_error("n1 group=a\nn2 group=a cpus\n"),
            "layout.txt:2:12: expected key=value, not 'cpus'");
  EXPECT_EQ(parse_error("n1 group=a  speeed=2\n"),
            "layout.txt:1:13: unknown key 'speeed' (expected group, cpus or speed)");
  EXPECT_EQ(parse_error("n1 group=a cpus=1 group=b\n"), "layout.txt:1:19: 'group' is given twice");
  EXPECT_EQ(parse_error("n1 group=a speed=1 speed=1\n"), "layout.txt:1:20: 'speed' is given twice");
  EXPECT_EQ(parse_error("n1 group= cpus=1\n"), "layout.txt:1:10: group must not be empty");
}

TEST(DeclaredNodes, MissingGroup) {
  EXPECT_EQ(parse_error("n1 group=a\n  n2 cpus=2 speed=1\n"),
            "layout.txt:2:3: node 'n2' has no group (group=NAME)");
}

TEST(DeclaredNodes, BadNumbers) {
  EXPECT_EQ(parse_error("n1 group=a speed=fast\n"),
            "layout.txt:1:18: speed must be a positive number, not 'fast'");
  EXPECT_EQ(parse_error("n1 group=a speed=0\n"),
            "layout.txt:1:18: speed must be a positive number, not '0'");
  EXPECT_EQ(parse_error("n1 group=a speed=-1\n"),
            "layout.txt:1:18: speed must be a positive number, not '-1'");
  EXPECT_EQ(parse_error("n1 group=a speed=inf\n"),
            "layout.txt:1:18: speed must be a positive number, not 'inf'");
  EXPECT_EQ(parse_error("n1 group=a speed=1.5x\n"),
            "layout.txt:1:18: speed must be a positive number, not '1.5x'");
  for (const std::string cpus : {"0", "1.5", "-2", "+2", "2e3", "4294967296", ""})
    EXPECT_EQ(parse_error("n1 group=a cpus=" + cpus + "\n"),
              "layout.txt:1:17: cpus must be a positive integer (at most 4294967295), not '" +
                  cpus + "'");
  EXPECT_EQ(parse_declared_nodes("n1 group=a cpus=4294967295", "x", kTestbed).nodes[0].processors,
            4294967295u);
}

TEST(DeclaredNodes, DuplicateNode) {
  EXPECT_EQ(parse_error("n1 group=a\nn2 group=a\n n1 group=a\n"),
            "layout.txt:3:2: node 'n1' is listed twice (first at layout.txt:1:1)");
}

TEST(DeclaredNodes, GroupWithDifferentSpeeds) {
  EXPECT_EQ(parse_error("n1 group=a speed=0.5\nn2 group=a speed=0.25\n"),
            "layout.txt:2:18: node 'n2' declares speed 0.25 but group 'a' has speed 0.5 (node "
            "'n1' at layout.txt:1:1): the nodes of a group declare one speed");
  // A speed left out is 1.0, and then the node's name is the place.
  EXPECT_EQ(parse_error("n1 group=a speed=2\nn2 group=a\n"),
            "layout.txt:2:1: node 'n2' declares speed 1 but group 'a' has speed 2 (node 'n1' "
            "at layout.txt:1:1): the nodes of a group declare one speed");
  // 1 and 1.0 are the same speed; different CPU counts are fine.
  EXPECT_EQ(parse_declared_nodes("n1 group=a speed=1\nn2 group=a speed=1.0 cpus=8\n", "x", kTestbed)
                .nodes.size(),
            2u);
}

TEST(DeclaredNodes, NodeNameIsOneHost) {
  EXPECT_EQ(parse_error("n[1-4] group=a\n"),
            "layout.txt:1:1: node name 'n[1-4]' is not one host name (one node a line)");
  EXPECT_EQ(parse_error("a,b group=a\n"),
            "layout.txt:1:1: node name 'a,b' is not one host name (one node a line)");
  EXPECT_EQ(parse_error("n1 group=a\n  n[1-2 group=a\n"),
            "layout.txt:2:4: bad node name 'n[1-2': unbalanced '['");
}

TEST(DeclaredNodes, NoNodes) {
  EXPECT_EQ(parse_error(""), "layout.txt: no nodes declared");
  EXPECT_EQ(parse_error("# only comments\n\n   \n"), "layout.txt: no nodes declared");
}

TEST(DeclaredNodes, UnreadableFile) {
  try {
    load_declared_nodes("/nonexistent/layout.txt", kTestbed);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().str(), "/nonexistent/layout.txt");
    EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hetscale
