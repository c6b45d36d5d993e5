#include "hetscale/jobgen/node_availability.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace hetscale::jobgen {
namespace {

const std::string study_token = "0a1b2c3d";  // fixed: the same job names on every run

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NodeAvailability, DecidesFromStateFlagsAndActiveReservations) {
  // Node states as hetscale::slurm reads them from scontrol (tests/slurm/scontrol_test.cpp).
  slurm::NodeStates states;
  states.nodes = {{"n1", "IDLE", "", ""},
                  {"n2", "MIXED", "", ""},
                  {"n3", "IDLE+DRAIN", "maintenance work", ""},
                  {"n4", "ALLOCATED+DRAIN", "disk State=odd", ""},
                  {"n5", "DOWN+NOT_RESPONDING", "broken", ""}};
  states.nodes.push_back({"n6", "IDLE+FAIL", "fan", ""});
  states.nodes.push_back({"n7", "IDLE*", "", ""});  // sinfo's "not responding"
  states.nodes.push_back({"n8", "IDLE+RESERVED", "", ""});
  states.reservations = {{"maint", {"n1", "n8"}, true, "2026-11-24T05:04:05"}, {"later", {"n2"}, false, "x"}};
  const auto why = [&](const std::string& node, const std::string& usable = "") {
    const auto u = unavailability(states, node, usable);
    return u ? u->describe() : std::string("available");
  };
  EXPECT_EQ(why("n1"), "in reservation 'maint' (until 2026-11-24T05:04:05)");
  EXPECT_EQ(why("n1", "maint"), "available");  // the spec's own reservation
  EXPECT_EQ(why("n2"), "available");            // busy, or reserved later: it will run the job
  EXPECT_EQ(why("n3"), "DRAINED (reason \"maintenance work\")");
  EXPECT_EQ(why("n4"), "DRAINING (reason \"disk State=odd\")");
  EXPECT_EQ(why("n5"), "DOWN (reason \"broken\")");
  EXPECT_EQ(why("n6"), "FAIL (reason \"fan\")");
  EXPECT_EQ(why("n7"), "NOT_RESPONDING");
  EXPECT_EQ(why("n8", "maint"), "available");
  EXPECT_EQ(why("n9"), "not a node of this Slurm cluster");
}

// Two groups of 3 nodes, b3 a little slower than its group; sets {a1, b1} and {a1, b1, a2, b2}.
const std::filesystem::path fixtures = std::filesystem::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "availability";

Round small_round() {
  return plan_round(load_experiment_spec(fixtures / "spec.toml"), load_site_table(fixtures / "site.toml"), study_token);
}

slurm::NodeStates all_idle_but(const std::string& node, const std::string& state) {
  slurm::NodeStates states;
  for (const char* n : {"a1", "a2", "a3", "b1", "b2", "b3"})
    states.nodes.push_back({n, n == node ? state : "IDLE", n == node ? "maintenance" : "", ""});
  return states;
}

TEST(NodeAvailability, NamesEachUnavailableMemberOnceAtItsFirstSet) {
  const Round round = small_round();  // {a1, b1}, {a1, b1, a2, b2}
  ASSERT_THAT(round.sets[1].set.nodes, ElementsAre("a1", "b1", "a2", "b2"));
  auto states = all_idle_but("b1", "IDLE+DRAIN");
  states.nodes[4].state = "DOWN";  // b2
  const auto members = unavailable_members(round, states);
  ASSERT_EQ(members.size(), 2U);
  EXPECT_EQ(members[0].describe(), "set 0 member b1 is DRAINED (reason \"maintenance\")");
  EXPECT_EQ(members[1].describe(), "set 1 member b2 is DOWN");
  EXPECT_TRUE(unavailable_members(round, all_idle_but("b3", "DOWN")).empty());  // not a member
}

TEST(NodeAvailability, ReplacesWithinTheGroupInEverySetAndRecomputesC) {
  const Round round = small_round();
  ASSERT_EQ(round.sets[0].set.marked_speed, 150);
  ASSERT_EQ(round.sets[1].set.marked_speed, 300);
  const auto replaced = replace_unavailable(round, all_idle_but("b1", "IDLE+DRAIN"));
  ASSERT_EQ(replaced.replacements.size(), 1U);
  EXPECT_EQ(replaced.replacements[0].describe(),
            "b1 (group b, DRAINED (reason \"maintenance\")) replaced by b3 in sets 0-1");
  const auto& sets = replaced.round.sets;
  EXPECT_THAT(sets[0].set.nodes, ElementsAre("a1", "b3"));
  EXPECT_THAT(sets[1].set.nodes, ElementsAre("a1", "b3", "a2", "b2"));  // still nested
  EXPECT_EQ(sets[0].set.group_counts, round.sets[0].set.group_counts);  // still balanced
  EXPECT_EQ(sets[0].set.marked_speed, 140);                             // 100 + 40
  EXPECT_EQ(replaced.round.study_token, study_token);                   // the study's job names
  EXPECT_EQ(sets[1].set.marked_speed, 290);
  EXPECT_EQ(sets[0].members[1].node, "b3");
  EXPECT_EQ(sets[0].members[1].speed_per_processor, 40);
  // The sizes follow C: set 0 keeps the spec's, set 1 scales with C_1 / C_0 = 290 / 140.
  EXPECT_EQ(sets[0].parameter_values, round.sets[0].parameter_values);
  EXPECT_NE(sets[1].parameter_values, round.sets[1].parameter_values);
}

TEST(NodeAvailability, AGroupWithoutASpareNodeIsNamed) {
  const Round round = small_round();
  auto states = all_idle_but("a2", "DOWN");
  states.nodes[2].state = "IDLE+DRAIN";  // a3, the only spare of group a
  try {
    (void)replace_unavailable(round, states);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "group 'a' has no available node to replace a2 (a2 is DOWN (reason \"maintenance\")): every other "
              "eligible node of the group is in the sets or unavailable");
  }
  // A reservation the spec names makes its nodes usable, also as spares.
  auto reserved = all_idle_but("a2", "DOWN");
  reserved.reservations = {{"ours", {"a3"}, true, ""}};
  EXPECT_THROW((void)replace_unavailable(round, reserved), Error);
  Round with_reservation = round;
  with_reservation.spec.slurm.reservation = "ours";
  const auto replaced = replace_unavailable(with_reservation, reserved);
  EXPECT_THAT(replaced.round.sets[1].set.nodes, ElementsAre("a1", "b1", "a3", "b2"));
}

}  // namespace
}  // namespace hetscale::jobgen
