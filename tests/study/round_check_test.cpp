#include "hetscale/study/round_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale::study {
namespace {

using ::testing::ElementsAre;

// Two groups of 3 nodes, b3 a little slower than its group; partition "batch".
const std::filesystem::path fixtures = std::filesystem::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "availability";
const std::string spec_path = (fixtures / "spec.toml").string();

jobgen::Round small_round() {  // sets {a1, b1} and {a1, b1, a2, b2}
  return jobgen::plan_round(jobgen::load_experiment_spec(spec_path), load_site_table(fixtures / "site.toml"));
}

NodeStatesQuery all_idle_but(const std::string& node, const std::string& state) {
  NodeStatesQuery q;
  q.reachable = true;
  for (const char* n : {"a1", "a2", "a3", "b1", "b2", "b3"})
    q.states.nodes.push_back({n, n == node ? state : "IDLE", n == node ? "maintenance" : ""});
  return q;
}

PartitionQuery batch_of(std::vector<std::string> nodes) {
  PartitionQuery q;
  q.status = PartitionQuery::Status::found;
  q.partition = {"batch", std::move(nodes), std::nullopt};
  return q;
}

const std::vector<std::string> every_node = {"a1", "a2", "a3", "b1", "b2", "b3"};

RoundCheck refusing() {
  RoundCheck check;
  check.partition_named_at = spec_path + ":16:13";
  check.refusal = "nothing done";
  return check;
}

TEST(RoundCheck, AnUnavailableMemberRefusesTheRoundByName) {
  std::ostringstream out;
  std::ostringstream notes;
  try {
    (void)check_round(small_round(), refusing(), all_idle_but("b1", "IDLE+DRAIN"), batch_of(every_node), out, notes);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "set 0 member b1 is DRAINED (reason \"maintenance\"); nothing done");
  }
  EXPECT_EQ(out.str(), "");
  // A node outside the sets does not matter.
  const auto checked = check_round(small_round(), refusing(), all_idle_but("b3", "DOWN"), batch_of(every_node), out,
                                   notes);
  EXPECT_TRUE(checked.unreachable.empty());
  EXPECT_THAT(checked.round.sets[1].set.nodes, ElementsAre("a1", "b1", "a2", "b2"));
  EXPECT_EQ(out.str() + notes.str(), "");
}

TEST(RoundCheck, ReplacesUnavailableMembersWhenAskedAndSaysEachSwap) {
  RoundCheck check = refusing();
  check.replace_unavailable = true;
  std::ostringstream out;
  std::ostringstream notes;
  const auto checked =
      check_round(small_round(), check, all_idle_but("b1", "IDLE+DRAIN"), batch_of(every_node), out, notes);
  EXPECT_THAT(checked.round.sets[0].set.nodes, ElementsAre("a1", "b3"));
  EXPECT_THAT(checked.round.sets[1].set.nodes, ElementsAre("a1", "b3", "a2", "b2"));
  EXPECT_EQ(out.str(), "b1 (group b, DRAINED (reason \"maintenance\")) replaced by b3 in sets 0-1 (C0 = 140, C1 = 290 "
                       "Mflops)\n");
  EXPECT_EQ(notes.str(), "");
  // The replacement must be in the partition too.
  EXPECT_THROW((void)check_round(small_round(), check, all_idle_but("b1", "IDLE+DRAIN"),
                                 batch_of({"a1", "a2", "a3", "b1", "b2"}), out, notes),
               ConfigError);
}

TEST(RoundCheck, APartitionSlurmDoesNotHaveIsAFaultOfWhereItIsNamed) {
  PartitionQuery unknown;
  unknown.status = PartitionQuery::Status::unknown;
  std::ostringstream out;
  std::ostringstream notes;
  try {
    (void)check_round(small_round(), refusing(), all_idle_but("", ""), unknown, out, notes);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), spec_path + ":16:13: partition 'batch' does not exist in this Slurm cluster");
  }
  RoundCheck by_option = refusing();
  by_option.partition_named_at = "--partition";
  by_option.partition_by_option = true;
  EXPECT_THROW((void)check_round(small_round(), by_option, all_idle_but("", ""), unknown, out, notes),
               OptionValueError);
  // A set with a node the partition lacks.
  EXPECT_THROW((void)check_round(small_round(), refusing(), all_idle_but("", ""), batch_of({"a1", "b1"}), out, notes),
               ConfigError);
}

TEST(RoundCheck, WhatSlurmCouldNotBeAskedAboutIsSaid) {
  PartitionQuery unreachable;
  unreachable.detail = "scontrol timed out";
  RoundCheck check = refusing();
  check.note_prefix = "prog: note: ";
  std::ostringstream out;
  std::ostringstream notes;
  const auto checked = check_round(small_round(), check, all_idle_but("", ""), unreachable, out, notes);
  EXPECT_TRUE(checked.unreachable.empty());
  EXPECT_EQ(notes.str(), "prog: note: Slurm not reachable (scontrol timed out); machine sets not checked against "
                         "partition 'batch'\n");
  NodeStatesQuery no_slurm;
  no_slurm.detail = "no scontrol in PATH";
  const auto unchecked = check_round(small_round(), check, no_slurm, unreachable, out, notes);
  EXPECT_EQ(unchecked.unreachable, "no scontrol in PATH");
  EXPECT_EQ(unchecked.round.sets.size(), small_round().sets.size());
}

}  // namespace
}  // namespace hetscale::study
