#include "hetscale/jobgen/partition_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hetscale::jobgen {
namespace {

const std::string study_token = "0a1b2c3d";  // fixed: the same job names on every run

using ::testing::ElementsAre;

const std::string mm_spec = std::string(HETSCALE_SOURCE_DIR) + "/examples/experiments/mm.toml";

Round mm_round() {
  return plan_round(
      load_experiment_spec(mm_spec),
      load_site_table(std::string(HETSCALE_FIXTURES_DIR) + "/jobgen/site-example.toml"), study_token);
}

std::string failure(const Round& round, const slurm::Partition& partition) {
  try {
    check_partition(round, partition, "mm.toml:24:13");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PartitionCheck, TheLargestSetMustFitAtTheSpecsMaxKey) {
  const Round round = mm_round();  // sets of 2, 4 and 8 nodes
  ASSERT_EQ(round.sets.back().members.size(), 8U);
  // `max = 16` is line 20, column 7 of mm.toml.
  EXPECT_EQ(failure(round, {"small", {"fat1", "blade01", "fat2", "blade02", "fat3"}, std::nullopt}),
            mm_spec +
                ":20:7: machine set 2 has 8 nodes, more than the 5 nodes of partition 'small' "
                "(mm.toml:24:13)");
  slurm::Partition without_fat4{
      "most", {"fat1", "fat2", "fat3", "blade01", "blade02", "blade03", "blade04", "blade05"}, std::nullopt};
  EXPECT_EQ(
      failure(round, without_fat4),
      mm_spec + ":20:7: node 'fat4' of machine set 2 is not in partition 'most' (mm.toml:24:13)");
  slurm::Partition all{"all",
                     {"fat1", "fat2", "fat3", "fat4", "blade01", "blade02", "blade03", "blade04"}, std::nullopt};
  EXPECT_EQ(failure(round, all), "no error");
}

TEST(PartitionCheck, TheSpecRemembersWhereThePartitionIsNamed) {
  const auto spec = load_experiment_spec(mm_spec);
  EXPECT_EQ(spec.slurm.partition, "batch");
  EXPECT_EQ(spec.slurm.partition_where.str(), mm_spec + ":24:13");
}

TEST(RefusedSlurmKey, NamesTheSpecKeyOfSlurmsRefusal) {
  // sbatch --test-only's words on the testbed (Slurm 22.05, accounting enforced).
  EXPECT_EQ(refused_slurm_key("allocation failure: Invalid qos specification"), "qos");
  EXPECT_EQ(refused_slurm_key("allocation failure: Invalid partition name specified"), "partition");
  EXPECT_EQ(refused_slurm_key("allocation failure: Invalid account or account/partition combination specified"),
            "account");
  EXPECT_EQ(refused_slurm_key("allocation failure: Requested reservation is invalid"), "reservation");
  EXPECT_EQ(refused_slurm_key("allocation failure: Invalid feature specification"), "constraint");
  EXPECT_EQ(refused_slurm_key("sbatch: unrecognized option '--hetscale-weights=marked'"), "weights");
  EXPECT_EQ(refused_slurm_key("allocation failure: Requested node configuration is not available"), "");
}

TEST(RefusedAt, TheKeyThenTheSlurmTableThenTheFile) {
  const auto spec = load_experiment_spec(mm_spec);
  EXPECT_EQ(refused_at(spec, "partition").str(), mm_spec + ":24:13");
  EXPECT_EQ(refused_at(spec, "qos").str(), mm_spec + ":23:1");  // not given: the [slurm] table
  ExperimentSpec bare;
  bare.source = "bare.toml";
  EXPECT_EQ(refused_at(bare, "qos").str(), "bare.toml");
}

}  // namespace
}  // namespace hetscale::jobgen
