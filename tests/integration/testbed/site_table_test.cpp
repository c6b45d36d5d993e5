// The site table that `cluster.sh up` generates from the layout is a valid contract-3.1
// table: the site table loader reads it and finds every node with its declared speed.
#include "hetscale/site/site_table.hpp"

#include <gtest/gtest.h>

#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

TEST(SiteTable, GeneratedTableLoadsWithTheLayoutsSpeeds) {
  const Testbed tb = Testbed::from_env();
  const SiteTable table = load_site_table(tb.site_table());
  EXPECT_EQ(table.name, "testbed");
  ASSERT_EQ(table.nodes.size(), tb.nodes.size());
  for (const auto& declared : tb.nodes) {
    const Node* node = table.find_node(declared.name);
    ASSERT_NE(node, nullptr) << declared.name;
    EXPECT_EQ(node->group, declared.group);
    EXPECT_EQ(node->processors, declared.cpus);
    EXPECT_DOUBLE_EQ(node->marked_speed, declared.speed);
    EXPECT_EQ(node->state, NodeState::ok);
  }
}

}  // namespace
}  // namespace hetscale::test
