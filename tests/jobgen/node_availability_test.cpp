#include "hetscale/jobgen/node_availability.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace hetscale::jobgen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What Slurm 22.05 writes (the testbed's nodes, shortened; n3 drained, n5 down).
constexpr const char* node_lines =
    "NodeName=n1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUTot=1 AvailableFeatures=head State=IDLE "
    "ThreadsPerCore=1 Partitions=testbed  BootTime=2026-11-23T18:40:55\n"
    "NodeName=n2 Arch=x86_64 CPUTot=1 State=MIXED ThreadsPerCore=1 Partitions=testbed\n"
    "NodeName=n3 Arch=x86_64 CPUTot=1 State=IDLE+DRAIN ThreadsPerCore=1 Partitions=testbed  "
    "ExtSensorsTemp=n/s Reason=maintenance work [root@2026-11-24T04:04:05]\n"
    "NodeName=n4 Arch=x86_64 CPUTot=1 State=ALLOCATED+DRAIN Partitions=testbed Reason=disk State=odd "
    "[slurm@2026-11-24T04:04:05]\n"
    "NodeName=n5 Arch=x86_64 CPUTot=1 State=DOWN+NOT_RESPONDING Partitions=testbed Reason=broken "
    "[root@2026-11-24T04:04:05]\n";

TEST(NodeAvailability, ReadsScontrolsNodeLines) {
  const auto nodes = parse_scontrol_nodes(node_lines);
  ASSERT_EQ(nodes.size(), 5U);
  EXPECT_EQ(nodes[0].name, "n1");
  EXPECT_EQ(nodes[0].state, "IDLE");
  EXPECT_EQ(nodes[0].reason, "");
  EXPECT_EQ(nodes[2].state, "IDLE+DRAIN");
  EXPECT_EQ(nodes[2].reason, "maintenance work");  // blanks kept, "[user@time]" dropped
  // A reason is free text: a "State=" inside it is not the node's state.
  EXPECT_EQ(nodes[3].state, "ALLOCATED+DRAIN");
  EXPECT_EQ(nodes[3].reason, "disk State=odd");
  EXPECT_TRUE(parse_scontrol_nodes("No nodes in the system\n").empty());
}

TEST(NodeAvailability, RefusesOutputItCannotRead) {
  try {
    (void)parse_scontrol_nodes("NodeName=n1 State=IDLE\nslurm_load_node error: Unable to contact slurm controller\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read `scontrol show node --oneliner`: line 2 is not what Slurm 22.05 writes: "
              "'slurm_load_node error: Unable to contact slurm controller'");
  }
  EXPECT_THROW((void)parse_scontrol_nodes("NodeName=n1 Arch=x86_64\n"), Error);  // no State
  EXPECT_THROW((void)parse_scontrol_nodes("{\"nodes\": []}"), Error);            // not --oneliner
  EXPECT_THROW((void)parse_scontrol_reservations("ReservationName=r Nodes=n[1-\n"), Error);
  EXPECT_THROW((void)parse_scontrol_reservations("Reservation r1 not found\n"), Error);
}

TEST(NodeAvailability, ReadsScontrolsReservationLines) {
  EXPECT_TRUE(parse_scontrol_reservations("No reservations in the system\n").empty());
  const auto r = parse_scontrol_reservations(
      "ReservationName=maint StartTime=2026-11-24T04:04:05 EndTime=2026-11-24T05:04:05 Duration=01:00:00 "
      "Nodes=n[1-2] NodeCnt=2 CoreCnt=2 Flags=MAINT,SPEC_NODES Users=root State=ACTIVE BurstBuffer=(null)\n"
      "ReservationName=later StartTime=2026-11-24T05:04:05 EndTime=2026-11-24T06:04:05 Nodes=n4 State=INACTIVE\n"
      "ReservationName=lic Nodes=(null) NodeCnt=0 State=ACTIVE\n");
  ASSERT_EQ(r.size(), 3U);
  EXPECT_EQ(r[0].name, "maint");
  EXPECT_THAT(r[0].nodes, ElementsAre("n1", "n2"));
  EXPECT_TRUE(r[0].active);
  EXPECT_EQ(r[0].end_time, "2026-11-24T05:04:05");
  EXPECT_FALSE(r[1].active);
  EXPECT_TRUE(r[2].nodes.empty());
}

TEST(NodeAvailability, DecidesFromStateFlagsAndActiveReservations) {
  SlurmNodeStates states{parse_scontrol_nodes(node_lines), {}};
  states.nodes.push_back({"n6", "IDLE+FAIL", "fan"});
  states.nodes.push_back({"n7", "IDLE*", ""});  // sinfo's "not responding"
  states.nodes.push_back({"n8", "IDLE+RESERVED", ""});
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
  return plan_round(load_experiment_spec(fixtures / "spec.toml"), load_site_table(fixtures / "site.toml"));
}

SlurmNodeStates all_idle_but(const std::string& node, const std::string& state) {
  SlurmNodeStates states;
  for (const char* n : {"a1", "a2", "a3", "b1", "b2", "b3"})
    states.nodes.push_back({n, n == node ? state : "IDLE", n == node ? "maintenance" : ""});
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
