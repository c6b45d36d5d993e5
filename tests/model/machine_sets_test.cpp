#include "hetscale/model/machine_sets.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hetscale {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

Node node(std::string name, std::string group, double speed, NodeState state = NodeState::ok,
          std::uint32_t processors = 1) {
  Node n;
  n.name = std::move(name);
  n.group = std::move(group);
  n.marked_speed = speed;
  n.processors = processors;
  n.state = state;
  return n;
}

// A head node (speed 30), `blades` blades (20) and `fats` fat nodes (40), in that file order.
SiteTable three_groups(int blades, int fats) {
  SiteTable site;
  site.name = "test";
  site.groups = {{"head", 30, {}}, {"blade", 20, {}}, {"fat", 40, {}}};
  site.nodes.push_back(node("h1", "head", 30));
  for (int i = 1; i <= blades; ++i)
    site.nodes.push_back(node("b" + std::to_string(i), "blade", 20));
  for (int i = 1; i <= fats; ++i) site.nodes.push_back(node("f" + std::to_string(i), "fat", 40));
  site.index();
  return site;
}

std::vector<std::size_t> sizes(const std::vector<MachineSet>& sets) {
  std::vector<std::size_t> out;
  for (const auto& s : sets) out.push_back(s.nodes.size());
  return out;
}

TEST(MachineSets, StopPolicyBalancesGroupsAndStopsWhenAGroupRunsShort) {
  const auto sets = build_machine_sets(three_groups(32, 8), {});
  ASSERT_THAT(sizes(sets), ElementsAre(2, 4, 8, 16));
  // Set 0: two nodes over three groups, remainders to the faster groups (fat 40, head 30).
  EXPECT_THAT(sets[0].nodes, ElementsAre("h1", "f1"));
  EXPECT_THAT(sets[0].group_counts, ElementsAre(Pair("head", 1), Pair("blade", 0), Pair("fat", 1)));
  // The head group was used up by the first set: it stays as it is; blade and fat share.
  EXPECT_THAT(sets[1].nodes, ElementsAre("h1", "f1", "b1", "f2"));
  EXPECT_THAT(sets[2].group_counts, ElementsAre(Pair("head", 1), Pair("blade", 3), Pair("fat", 4)));
  EXPECT_THAT(sets[3].group_counts, ElementsAre(Pair("head", 1), Pair("blade", 7), Pair("fat", 8)));
  // The next set would need 8 more fat nodes; none are left, so STAS stops.
  EXPECT_DOUBLE_EQ(sets[0].marked_speed, 70);
  EXPECT_DOUBLE_EQ(sets[1].marked_speed, 130);
  EXPECT_DOUBLE_EQ(sets[2].marked_speed, 250);
  EXPECT_DOUBLE_EQ(sets[3].marked_speed, 490);
  for (std::size_t i = 0; i < sets.size(); ++i) EXPECT_EQ(sets[i].index, i);
}

TEST(MachineSets, FillPolicyTopsUpFromTheOtherGroups) {
  MachineSetOptions options;
  options.policy = SetPolicy::fill;
  const auto sets = build_machine_sets(three_groups(32, 8), options);
  ASSERT_THAT(sizes(sets), ElementsAre(2, 4, 8, 16, 32));
  EXPECT_THAT(sets[4].group_counts,
              ElementsAre(Pair("head", 1), Pair("blade", 23), Pair("fat", 8)));
  EXPECT_DOUBLE_EQ(sets[4].marked_speed, 30 + 23 * 20 + 8 * 40);
}

TEST(MachineSets, EverySetContainsThePreviousOne) {
  for (auto policy : {SetPolicy::stop, SetPolicy::fill}) {
    MachineSetOptions options;
    options.policy = policy;
    options.start = 3;
    const auto sets = build_machine_sets(three_groups(40, 21), options);
    ASSERT_GE(sets.size(), 3u);
    for (std::size_t i = 1; i < sets.size(); ++i) {
      ASSERT_EQ(sets[i].nodes.size(), 2 * sets[i - 1].nodes.size());
      EXPECT_TRUE(
          std::equal(sets[i - 1].nodes.begin(), sets[i - 1].nodes.end(), sets[i].nodes.begin()))
          << "set " << i << " does not start with set " << i - 1;
    }
  }
}

TEST(MachineSets, StartLargerThanASmallGroupLetsTheOthersMakeUpTheFirstSet) {
  MachineSetOptions options;
  options.start = 7;
  const auto sets = build_machine_sets(three_groups(16, 16), options);
  // Shares 3/2/2 (fat, head, blade: fastest first); head has only 1, so the one missing node
  // is spread again over the groups still open, fastest first: one more to fat.
  EXPECT_THAT(sets[0].group_counts, ElementsAre(Pair("head", 1), Pair("blade", 2), Pair("fat", 4)));
  EXPECT_THAT(sizes(sets), ElementsAre(7, 14, 28));
  EXPECT_THAT(sets[1].group_counts, ElementsAre(Pair("head", 1), Pair("blade", 5), Pair("fat", 8)));
}

TEST(MachineSets, MaxCapsTheLargestSet) {
  MachineSetOptions options;
  options.max = 8;
  EXPECT_THAT(sizes(build_machine_sets(three_groups(32, 32), options)), ElementsAre(2, 4, 8));
  options.max = 15;
  EXPECT_THAT(sizes(build_machine_sets(three_groups(32, 32), options)), ElementsAre(2, 4, 8));
}

TEST(MachineSets, DegradedNodesOnlyWhenAskedAndExcludedNever) {
  auto site = three_groups(4, 4);
  site.nodes[1].state = NodeState::degraded;  // b1
  site.nodes[5].state = NodeState::excluded;  // f1
  site.index();
  MachineSetOptions options;
  options.start = 4;
  auto sets = build_machine_sets(site, options);
  EXPECT_THAT(sets[0].nodes, ElementsAre("h1", "b2", "f2", "f3"));
  options.include_degraded = true;
  sets = build_machine_sets(site, options);
  EXPECT_THAT(sets[0].nodes, ElementsAre("h1", "b1", "f2", "f3"));
}

TEST(MachineSets, MarkedSpeedCountsEveryProcessor) {
  SiteTable site;
  site.groups = {{"big", 10, {}}};
  site.nodes = {node("a", "big", 10, NodeState::ok, 4), node("b", "big", 12.5, NodeState::ok, 2)};
  site.index();
  const auto sets = build_machine_sets(site, {});
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_DOUBLE_EQ(sets[0].marked_speed, 4 * 10 + 2 * 12.5);
}

TEST(MachineSets, TiesGoToTheFasterGroupWhateverTheFileOrder) {
  SiteTable site;
  site.groups = {{"slow", 5, {}}, {"fast", 9, {}}};
  for (int i = 1; i <= 4; ++i) {
    site.nodes.push_back(node("s" + std::to_string(i), "slow", 5));
    site.nodes.push_back(node("q" + std::to_string(i), "fast", 9));
  }
  site.index();
  MachineSetOptions options;
  options.start = 1;
  const auto sets = build_machine_sets(site, options);
  // Set 3 would need 2 fast nodes and only 1 is left: stop.
  ASSERT_THAT(sizes(sets), ElementsAre(1, 2, 4));
  EXPECT_THAT(sets[0].nodes, ElementsAre("q1"));
  // From set 1 on both groups share evenly: one new node, tie, to the faster group.
  EXPECT_THAT(sets[1].group_counts, ElementsAre(Pair("slow", 0), Pair("fast", 2)));
  EXPECT_THAT(sets[2].group_counts, ElementsAre(Pair("slow", 1), Pair("fast", 3)));
}

TEST(MachineSets, ClearErrorsWhenNoSetCanBeFormed) {
  MachineSetOptions options;
  options.start = 50;
  EXPECT_THROW(
      {
        try {
          build_machine_sets(three_groups(2, 2), options);
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(),
                       "cannot form the first machine set of 50 nodes: only 5 eligible nodes "
                       "(degraded nodes are left out unless asked)");
          throw;
        }
      },
      Error);
  options.start = 0;
  EXPECT_THROW(build_machine_sets(three_groups(2, 2), options), Error);
  options.start = 4;
  options.max = 2;
  EXPECT_THROW(build_machine_sets(three_groups(2, 2), options), Error);
}

}  // namespace
}  // namespace hetscale
