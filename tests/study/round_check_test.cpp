#include "hetscale/study/round_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale::study {
namespace {

const std::string study_token = "0a1b2c3d";  // fixed: the same job names on every run

using ::testing::ElementsAre;

// Two groups of 3 nodes, b3 a little slower than its group; partition "batch".
const std::filesystem::path fixtures = std::filesystem::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "availability";
const std::string spec_path = (fixtures / "spec.toml").string();

jobgen::Round small_round() {  // sets {a1, b1} and {a1, b1, a2, b2}
  return jobgen::plan_round(jobgen::load_experiment_spec(spec_path), load_site_table(fixtures / "site.toml"), study_token);
}

slurm::NodeStatesQuery all_idle_but(const std::string& node, const std::string& state) {
  slurm::NodeStatesQuery q;
  q.reachable = true;
  for (const char* n : {"a1", "a2", "a3", "b1", "b2", "b3"})
    q.states.nodes.push_back({n, n == node ? state : "IDLE", n == node ? "maintenance" : "", ""});
  return q;
}

slurm::PartitionQuery batch_of(std::vector<std::string> nodes) {
  slurm::PartitionQuery q;
  q.status = slurm::PartitionQuery::Status::found;
  q.partition = {"batch", std::move(nodes), std::nullopt};
  return q;
}

const std::vector<std::string> every_node = {"a1", "a2", "a3", "b1", "b2", "b3"};

// What a check says: results (`out`) and notes apart, each in order.
struct Said {
  std::string out;
  std::string notes;
  [[nodiscard]] Say say() {
    return [this](LineKind kind, const std::string& line) { (kind == LineKind::result ? out : notes) += line; };
  }
};

RoundCheck refusing() {
  RoundCheck check;
  check.partition_named_at = spec_path + ":16:13";
  check.refusal = "nothing done";
  return check;
}

TEST(RoundCheck, AnUnavailableMemberRefusesTheRoundByName) {
  Said said;
  try {
    (void)check_round(small_round(), refusing(), all_idle_but("b1", "IDLE+DRAIN"), batch_of(every_node), said.say());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "set 0 member b1 is DRAINED (reason \"maintenance\"); nothing done");
  }
  EXPECT_EQ(said.out, "");
  // A node outside the sets does not matter.
  const auto checked =
      check_round(small_round(), refusing(), all_idle_but("b3", "DOWN"), batch_of(every_node), said.say());
  EXPECT_TRUE(checked.unreachable.empty());
  EXPECT_THAT(checked.round.sets[1].set.nodes, ElementsAre("a1", "b1", "a2", "b2"));
  EXPECT_EQ(said.out + said.notes, "");
}

TEST(RoundCheck, ReplacesUnavailableMembersWhenAskedAndSaysEachSwap) {
  RoundCheck check = refusing();
  check.replace_unavailable = true;
  Said said;
  const auto checked =
      check_round(small_round(), check, all_idle_but("b1", "IDLE+DRAIN"), batch_of(every_node), said.say());
  EXPECT_THAT(checked.round.sets[0].set.nodes, ElementsAre("a1", "b3"));
  EXPECT_THAT(checked.round.sets[1].set.nodes, ElementsAre("a1", "b3", "a2", "b2"));
  EXPECT_EQ(said.out, "b1 (group b, DRAINED (reason \"maintenance\")) replaced by b3 in sets 0-1 (C0 = 140, C1 = 290 "
                       "Mflops)\n");
  EXPECT_EQ(said.notes, "");
  // The replacement must be in the partition too.
  EXPECT_THROW((void)check_round(small_round(), check, all_idle_but("b1", "IDLE+DRAIN"),
                                 batch_of({"a1", "a2", "a3", "b1", "b2"}), said.say()),
               ConfigError);
}

TEST(RoundCheck, APartitionSlurmDoesNotHaveIsAFaultOfWhereItIsNamed) {
  slurm::PartitionQuery unknown;
  unknown.status = slurm::PartitionQuery::Status::unknown;
  Said said;
  try {
    (void)check_round(small_round(), refusing(), all_idle_but("", ""), unknown, said.say());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), spec_path + ":16:13: partition 'batch' does not exist in this Slurm cluster");
  }
  RoundCheck by_option = refusing();
  by_option.partition_named_at = "--partition";
  by_option.partition_by_option = true;
  EXPECT_THROW((void)check_round(small_round(), by_option, all_idle_but("", ""), unknown, said.say()),
               OptionValueError);
  // A set with a node the partition lacks.
  EXPECT_THROW((void)check_round(small_round(), refusing(), all_idle_but("", ""), batch_of({"a1", "b1"}), said.say()),
               ConfigError);
}

TEST(RoundCheck, WhatSlurmCouldNotBeAskedAboutIsSaid) {
  slurm::PartitionQuery unreachable;
  unreachable.detail = "scontrol timed out";
  RoundCheck check = refusing();
  check.note_prefix = "prog: note: ";
  Said said;
  const auto checked = check_round(small_round(), check, all_idle_but("", ""), unreachable, said.say());
  EXPECT_TRUE(checked.unreachable.empty());
  EXPECT_EQ(said.notes, "prog: note: Slurm not reachable (scontrol timed out); machine sets not checked against "
                         "partition 'batch'\n");
  slurm::NodeStatesQuery no_slurm;
  no_slurm.detail = "no scontrol in PATH";
  said.notes.clear();
  const auto unchecked = check_round(small_round(), check, no_slurm, unreachable, said.say());
  EXPECT_EQ(unchecked.unreachable, "no scontrol in PATH");
  EXPECT_EQ(unchecked.round.sets.size(), small_round().sets.size());
  EXPECT_EQ(said.notes, "prog: note: Slurm not reachable (no scontrol in PATH); machine sets not checked against its "
                        "node states and partition 'batch', scripts not tested with sbatch --test-only\n");
  // Where Slurm must answer, a Slurm that cannot be asked refuses the round.
  check.require_slurm = true;
  try {
    (void)check_round(small_round(), check, no_slurm, unreachable, said.say());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "Slurm not reachable (no scontrol in PATH): the machine sets cannot be checked against its node states");
  }
}

TEST(RoundCheck, JobgenGoesOnWithoutSlurmAndNamesItsOptions) {
  jobgen::Round round = small_round();
  const RoundCheck by_spec = jobgen_round_check(round, "", true);
  EXPECT_EQ(by_spec.partition_named_at, spec_path + ":16:13");
  EXPECT_FALSE(by_spec.partition_by_option);
  EXPECT_TRUE(by_spec.replace_unavailable);
  EXPECT_FALSE(by_spec.require_slurm);
  EXPECT_EQ(by_spec.note_prefix, "hetscale jobgen: note: ");
  EXPECT_EQ(by_spec.refusal,
            "nothing written (--replace-unavailable swaps them for available nodes of their groups)");
  const RoundCheck by_option = jobgen_round_check(round, "--partition", false);
  EXPECT_EQ(by_option.partition_named_at, "--partition");
  EXPECT_TRUE(by_option.partition_by_option);
  round.number = 1;
  EXPECT_EQ(jobgen_round_check(round, "", false).refusal,
            "nothing written (resume the nodes: a round runs on the sets measured before)");
}

TEST(RoundCheck, TheStudyNeedsSlurmAndSaysHowToGoOn) {
  jobgen::Round round = small_round();
  const RoundCheck first = study_round_check(round, true);
  EXPECT_EQ(first.partition_named_at, spec_path + ":16:13");
  EXPECT_TRUE(first.replace_unavailable);
  EXPECT_TRUE(first.require_slurm);
  EXPECT_EQ(first.refusal, "nothing submitted (replace_unavailable = true in the study spec's [study] swaps them for "
                           "available nodes of their groups)");
  round.number = 2;
  EXPECT_EQ(study_round_check(round, false).refusal,
            "round not submitted (resume the nodes, then hetscale study resume: a round runs on the sets measured "
            "before)");
  // The refusal follows the unavailable members.
  Said said;
  try {
    (void)check_round(round, study_round_check(round, false), all_idle_but("b1", "IDLE+DRAIN"), batch_of(every_node),
                      said.say());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "set 0 member b1 is DRAINED (reason \"maintenance\"); round not submitted "
                                     "(resume the nodes, then hetscale study resume: a round runs on the sets "
                                     "measured before)");
  }
}

}  // namespace
}  // namespace hetscale::study
