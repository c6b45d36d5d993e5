// scontrol's one-line records of Slurm 22.05, 24.11 and 26.05, as recorded from the real
// releases (tests/fixtures/slurm/<release>/README.md): n1 runs a job, n3 is drained with a
// reason, a comment and Extra=, n5 is in an active maintenance reservation, n4 in one that
// starts tomorrow.
#include "hetscale/slurm/scontrol.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "recorded.hpp"

namespace hetscale::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::recorded;
using test::releases;

TEST(ScontrolNodes, EveryReleasesNodeLinesWithTheReasonExactly) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const auto nodes = parse_scontrol_nodes(recorded(release, "scontrol-show-node.txt"));
    ASSERT_EQ(nodes.size(), 5U);
    EXPECT_EQ(nodes[0].name, "n1");
    EXPECT_EQ(nodes[0].state, "ALLOCATED");
    EXPECT_EQ(nodes[0].reason, "");
    // Reason= then Comment= and Extra= (and ReservationName= since 23.02) on the same
    // line: the reason is the administrator's text, without "[root@time]".
    EXPECT_EQ(nodes[2].name, "n3");
    EXPECT_EQ(nodes[2].state, "IDLE+DRAIN");
    EXPECT_EQ(nodes[2].reason, "disk swap planned");
    EXPECT_EQ(nodes[2].comment, "ticket 42");
    EXPECT_EQ(nodes[4].state, "IDLE+MAINTENANCE+RESERVED");
    EXPECT_EQ(nodes[4].reason, "");
  }
  EXPECT_TRUE(parse_scontrol_nodes("No nodes in the system\n").empty());
}

TEST(ScontrolNodes, AReasonHoldingFieldLikeWordsEndsOnlyAtAFieldSlurmPrintsAfterIt) {
  // The recorded line of n3 with its reason rewritten by the test: the parts Slurm wrote
  // around it are kept as recorded.
  const std::string recorded_line = [] {
    const std::string all = recorded("24.11", "scontrol-show-node.txt");
    const auto at = all.find("NodeName=n3 ");
    return all.substr(at, all.find('\n', at) - at);
  }();
  std::string line = recorded_line;
  const std::string reason = "disk swap planned";
  line.replace(line.find(reason), reason.size(), "fan State=odd Partitions=x [ticket] dead");
  const auto nodes = parse_scontrol_nodes(line);
  ASSERT_EQ(nodes.size(), 1U);
  EXPECT_EQ(nodes[0].state, "IDLE+DRAIN");
  EXPECT_EQ(nodes[0].reason, "fan State=odd Partitions=x [ticket] dead");
  EXPECT_EQ(nodes[0].comment, "ticket 42");
}

TEST(ScontrolNodes, RefusesOutputThatIsNoNodeRecord) {
  try {
    (void)parse_scontrol_nodes("NodeName=n1 State=IDLE\nslurm_load_node error: Unable to contact slurm controller\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read `scontrol show node --oneliner`: line 2 is not a node record: "
              "'slurm_load_node error: Unable to contact slurm controller'");
  }
  EXPECT_THROW((void)parse_scontrol_nodes("NodeName=n1 Arch=x86_64\n"), Error);  // no State
  EXPECT_THROW((void)parse_scontrol_nodes(recorded("24.11", "scontrol-json-show-nodes.json")), Error);
}

TEST(ScontrolReservations, EveryReleasesReservations) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    EXPECT_TRUE(parse_scontrol_reservations(recorded(release, "scontrol-show-reservation-none.txt")).empty());
    const auto r = parse_scontrol_reservations(recorded(release, "scontrol-show-reservation.txt"));
    ASSERT_EQ(r.size(), 2U);
    EXPECT_EQ(r[0].name, "maint-n5");
    EXPECT_THAT(r[0].nodes, ElementsAre("n5"));
    EXPECT_TRUE(r[0].active);
    EXPECT_EQ(r[0].end_time.size(), 19U);  // YYYY-MM-DDTHH:MM:SS
    EXPECT_EQ(r[1].name, "later-n4");
    EXPECT_THAT(r[1].nodes, ElementsAre("n4"));
    EXPECT_FALSE(r[1].active);
  }
  EXPECT_THROW((void)parse_scontrol_reservations("Reservation r1 not found\n"), Error);
}

TEST(ScontrolPartition, EveryReleasesPartition) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const Partition p = parse_scontrol_partition(recorded(release, "scontrol-show-partition-testbed.txt"));
    EXPECT_EQ(p.name, "testbed");
    EXPECT_THAT(p.nodes, ElementsAre("n1", "n2", "n3", "n4", "n5"));
    EXPECT_FALSE(p.max_time_seconds.has_value());  // MaxTime=UNLIMITED
    EXPECT_THROW((void)parse_scontrol_partition(recorded(release, "scontrol-show-partition-unknown.txt")), Error);
  }
  // The recorded line with its MaxTime rewritten by the test.
  const std::string line = recorded("24.11", "scontrol-show-partition-testbed.txt");
  const auto with_max_time = [&](const std::string& max_time) {
    std::string out = line;
    out.replace(out.find("MaxTime=UNLIMITED"), 17, "MaxTime=" + max_time);
    return out;
  };
  EXPECT_EQ(parse_scontrol_partition(with_max_time("1-12:00:00")).max_time_seconds, 129600U);
  EXPECT_EQ(parse_scontrol_partition(with_max_time("30:00")).max_time_seconds, 1800U);
  EXPECT_THROW((void)parse_scontrol_partition(with_max_time("soon")), Error);
}

TEST(ScontrolConfig, EveryReleasesClusterName) {
  for (std::string_view release : releases)
    EXPECT_EQ(cluster_name_of_config(recorded(release, "scontrol-show-config.txt")), "hetscale") << release;
  EXPECT_FALSE(cluster_name_of_config("SlurmctldPort = 6817\n").has_value());
}

TEST(SlurmTime, EveryFormSlurmTakes) {
  EXPECT_EQ(parse_slurm_time("30"), 1800U);                              // M
  EXPECT_EQ(parse_slurm_time("5:30"), 330U);                             // M:S
  EXPECT_EQ(parse_slurm_time("01:00:00"), 3600U);                        // H:M:S
  EXPECT_EQ(parse_slurm_time("2-12"), 2 * 86400U + 12 * 3600U);          // D-H
  EXPECT_EQ(parse_slurm_time("1-2:30"), 86400U + 2 * 3600U + 30 * 60U);  // D-H:M
  EXPECT_EQ(parse_slurm_time("1-00:00:01"), 86401U);                     // D-H:M:S
  for (const char* bad : {"", "a", "1-", "-1", "1:2:3:4", "1-1:2:3:4", "1::2", "1h", "UNLIMITED", "1234567890"})
    EXPECT_FALSE(parse_slurm_time(bad).has_value()) << bad;
  EXPECT_EQ(format_slurm_time(59), "00:00:59");
  EXPECT_EQ(format_slurm_time(17 * 60), "00:17:00");
  EXPECT_EQ(format_slurm_time(90061), "1-01:01:01");
}

}  // namespace
}  // namespace hetscale::slurm
