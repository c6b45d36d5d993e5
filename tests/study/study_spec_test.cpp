#include "hetscale/study/study_spec.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

const fs::path examples = fs::path(HETSCALE_SOURCE_DIR) / "examples";

// The message a study spec fails with, or "" when it parses; experiment paths from examples/studies.
std::string error_of(const std::string& text) {
  try {
    (void)parse_study_spec(text, "study.toml", examples / "studies");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const std::string head = R"([study]
name = "s"
max_rounds = 1

[[experiment]]
spec = "../experiments/study-mm-quick.toml"
)";

TEST(StudySpec, ReadsEveryKey) {
  const auto spec = parse_study_spec(head + R"(
[[experiment]]
spec = "../experiments/study-ge-quick.toml"
twin_rounds = 0
twin_nodes = 8

[equalize]
experiment = "study-mm-quick"
repetitions = 3

[predict]
doublings = 2

[[predict.what_if]]
nodes = 4
speed_of_fastest = 1.5

[twin]
nodes = 32
rounds = 3
partition = "twin"
start = "beside"
)", "study.toml", examples / "studies");
  EXPECT_EQ(spec.name, "s");
  EXPECT_EQ(spec.title, "hetscale study s");
  EXPECT_EQ(spec.max_rounds, 1u);
  ASSERT_EQ(spec.experiments.size(), 2u);
  EXPECT_EQ(spec.experiments[0].spec.name, "study-mm-quick");
  EXPECT_EQ(spec.experiments[1].spec.name, "study-ge-quick");
  EXPECT_EQ(spec.experiments[1].where.line, 9u);
  EXPECT_TRUE(spec.equalize.enabled);
  EXPECT_EQ(spec.equalize.repetitions, 3u);
  EXPECT_EQ(spec.predict.doublings, 2u);
  ASSERT_EQ(spec.predict.what_if.size(), 1u);
  EXPECT_EQ(spec.predict.what_if[0].nodes, 4u);
  EXPECT_DOUBLE_EQ(spec.predict.what_if[0].speed_of_fastest, 1.5);
  EXPECT_EQ(spec.twin_nodes, 32u);
  EXPECT_EQ(spec.twin_rounds, 3u);
  EXPECT_EQ(spec.twin_partition, "twin");
  EXPECT_EQ(spec.twin_start, TwinStart::beside);
  EXPECT_FALSE(spec.experiments[0].twin_rounds);
  EXPECT_EQ(spec.experiments[1].twin_rounds, 0u);
  EXPECT_FALSE(spec.experiments[0].twin_nodes);
  EXPECT_EQ(spec.experiments[1].twin_nodes, 8u);
  EXPECT_EQ(&spec.experiment("study-ge-quick"), &spec.experiments[1]);
}

TEST(StudySpec, DefaultsWithoutOptionalTables) {
  const auto spec = parse_study_spec(head, "study.toml", examples / "studies");
  EXPECT_FALSE(spec.equalize.enabled);
  EXPECT_EQ(spec.twin_nodes, 0u);
  EXPECT_EQ(spec.twin_rounds, 0u);
  EXPECT_TRUE(spec.predict.what_if.empty());
  EXPECT_FALSE(spec.replace_unavailable);
}

TEST(StudySpec, TheTwinsRoundsDefaultToNoneAndAreBounded) {
  EXPECT_EQ(parse_study_spec(head + "[twin]\nnodes = 64\n", "study.toml", examples / "studies").twin_rounds, 0u);
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\nrounds = 9\n"),
            "study.toml:9:10: 'rounds' must be between 0 and 8, got 9");
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\nround = 2\n"),
            "study.toml:9:1: unknown key 'round' in [twin] (expected nodes, rounds, psi_floor, partition, start or "
            "first_round_nodes)");
  EXPECT_EQ(error_of(head + "twin_rounds = -1\n"), "study.toml:7:15: 'twin_rounds' must be between 0 and 8, got -1");
}

TEST(StudySpec, TheTwinsPsiFloorDefaultsToSevenTenthsAndIsAFraction) {
  EXPECT_EQ(parse_study_spec(head + "[twin]\nnodes = 64\n", "study.toml", examples / "studies").twin_psi_floor, 0.7);
  EXPECT_EQ(parse_study_spec(head + "[twin]\nnodes = 64\npsi_floor = 0.35\n", "study.toml", examples / "studies")
                .twin_psi_floor,
            0.35);
  EXPECT_EQ(parse_study_spec(head + "[twin]\nnodes = 64\npsi_floor = 1\n", "study.toml", examples / "studies")
                .twin_psi_floor,
            1.0);
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\npsi_floor = 0\n"),
            "study.toml:9:13: 'psi_floor' must be positive and finite, not 0");
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\npsi_floor = 1.5\n"),
            "study.toml:9:13: 'psi_floor' must be at most 1, not 1.5");
}

// The twin's arrays go to the experiments' own partition and start after the measured
// rounds unless the spec says otherwise.
TEST(StudySpec, TheTwinsPartitionAndStart) {
  const auto defaults = parse_study_spec(head + "[twin]\nnodes = 64\n", "study.toml", examples / "studies");
  EXPECT_EQ(defaults.twin_partition, "");
  EXPECT_EQ(defaults.twin_start, TwinStart::after);
  EXPECT_EQ(parse_study_spec(head + "[twin]\nnodes = 64\nstart = \"after\"\n", "study.toml", examples / "studies")
                .twin_start,
            TwinStart::after);
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\nstart = \"soon\"\n"),
            "study.toml:9:9: 'start' must be \"after\" (the measured rounds) or \"beside\" (them, from round 0's "
            "records on), got 'soon'");
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\npartition = \"a b\"\n"),
            "study.toml:9:13: 'partition' must be a Slurm partition's name (letters, digits, '.', '_' or '-'), got "
            "'a b'");
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\npartition = \"\"\n"), "study.toml:9:13: 'partition' must not be empty");
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\npartition = 2\n"),
            "study.toml:9:13: 'partition' must be a string, not an integer");
  // Every set in the first round unless the spec bounds it.
  EXPECT_EQ(defaults.twin_first_round_nodes, 0u);
  EXPECT_EQ(parse_study_spec(head + "[twin]\nnodes = 64\nfirst_round_nodes = 16\n", "study.toml", examples / "studies")
                .twin_first_round_nodes,
            16u);
  EXPECT_EQ(error_of(head + "[twin]\nnodes = 64\nfirst_round_nodes = 0\n"),
            "study.toml:9:21: 'first_round_nodes' must be between 1 and 1048576, got 0");
}

TEST(StudySpec, AnExperimentsTwinNodesAreWithinTheStudysTwin) {
  EXPECT_EQ(parse_study_spec(head + "twin_nodes = 64\n[twin]\nnodes = 64\n", "study.toml", examples / "studies")
                .experiments[0]
                .twin_nodes,
            64u);
  EXPECT_EQ(error_of(head + "twin_nodes = 128\n[twin]\nnodes = 64\n"),
            "study.toml:7:14: 'twin_nodes' must be at most [twin] nodes (64), got 128");
  EXPECT_EQ(error_of(head + "twin_nodes = 8\n"), "study.toml:7:14: 'twin_nodes' needs a [twin] table (the study's twin)");
  EXPECT_EQ(error_of(head + "twin_nodes = 0\n[twin]\nnodes = 64\n"),
            "study.toml:7:14: 'twin_nodes' must be between 1 and 1048576, got 0");
}

TEST(StudySpec, ReadsReplaceUnavailable) {
  const auto spec = parse_study_spec("[study]\nname = \"s\"\nreplace_unavailable = true\n[[experiment]]\n"
                                     "spec = \"../experiments/study-mm-quick.toml\"\n",
                                     "study.toml", examples / "studies");
  EXPECT_TRUE(spec.replace_unavailable);
  EXPECT_EQ(error_of("[study]\nname = \"s\"\nreplace_unavailable = \"yes\"\n[[experiment]]\nspec = \"x\"\n"),
            "study.toml:3:23: 'replace_unavailable' must be a boolean, not a string");
}

TEST(StudySpec, ReadsTheControllersTimeLimit) {
  EXPECT_EQ(parse_study_spec(head, "study.toml", examples / "studies").controller_time_limit, "02:00:00");
  const std::string limited = "[study]\nname = \"s\"\ncontroller_time_limit = \"1-06:00:00\"\n[[experiment]]\n"
                              "spec = \"../experiments/study-mm-quick.toml\"\n";
  EXPECT_EQ(parse_study_spec(limited, "study.toml", examples / "studies").controller_time_limit, "1-06:00:00");
  std::string bad = limited;
  bad.replace(bad.find("1-06:00:00"), 10, "soon");
  EXPECT_EQ(error_of(bad), "study.toml:3:25: 'controller_time_limit' must be a Slurm time (minutes, HH:MM:SS or "
                           "D-HH:MM:SS), got 'soon'");
}

TEST(StudySpec, ExamplesParse) {
  // The main job measures mm, ge and lu; the quick study mm and ge.
  for (const auto& [name, experiments] : {std::pair{"testbed.toml", 3u}, std::pair{"testbed-quick.toml", 2u}}) {
    const auto spec = load_study_spec(examples / "studies" / name);
    EXPECT_EQ(spec.experiments.size(), experiments) << name;
    EXPECT_TRUE(spec.equalize.enabled) << name;
  }
}

TEST(StudySpec, ErrorsNameLineAndColumn) {
  EXPECT_EQ(error_of(head + "[study2]\nx = 1\n"),
            "study.toml:7:2: unknown key 'study2' at top level (expected study, experiment, equalize, predict or twin)");
  EXPECT_EQ(error_of("[study]\nname = \"s\"\nmax_rounds = \"two\"\n[[experiment]]\nspec = \"x\"\n"),
            "study.toml:3:14: 'max_rounds' must be an integer, not a string");
  EXPECT_EQ(error_of(head + "[equalize]\nexperiment = \"lu\"\n"),
            "study.toml:8:14: 'lu' is not an experiment of the study");
  EXPECT_EQ(error_of("[study]\nname = \"s\"\n"), "study.toml:1:1: missing [[experiment]]: a study runs at least one experiment spec");
  EXPECT_EQ(error_of("[study]\nname = \"a b\"\n[[experiment]]\nspec = \"x\"\n"),
            "study.toml:2:8: 'name' must be letters, digits, '.', '_' or '-' (it names the study's controller jobs)");
  EXPECT_NE(error_of("[study]\nname = \"s\"\n[[experiment]]\nspec = \"nowhere.toml\"\n").find("study.toml:4:8: no experiment spec at"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[experiment]]\nspec = \"../experiments/study-mm-quick.toml\"\n")
                .find("study.toml:8:8: experiment 'study-mm-quick' is already in the study"),
            std::string::npos);
  EXPECT_EQ(error_of(head + "[[predict.what_if]]\nspeed_of_fastest = -1\n"),
            "study.toml:8:20: 'speed_of_fastest' must be positive and finite, not -1");
}

}  // namespace
}  // namespace hetscale::study
