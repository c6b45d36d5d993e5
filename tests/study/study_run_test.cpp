// What of the study's controller can be checked without Slurm and a database: the named
// stages a step runs through, in order, each with its row in docs/architecture.md's stage
// table, and the controller job's script.
#include "hetscale/study/study_run.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hetscale/base/text_file.hpp"

namespace hetscale::study {
namespace {

using ::testing::ElementsAre;

TEST(ControllerStages, AStepRunsThroughThemInOrder) {
  EXPECT_THAT(controller_stage_names(), ElementsAre("collect", "refine", "equalize", "re-run", "compare", "analyze",
                                                    "predict", "twin", "report"));
}

TEST(ControllerStages, EachHasItsRowInTheArchitecturesStageTable) {
  const std::string doc = read_text_file(std::filesystem::path(HETSCALE_SOURCE_DIR) / "docs" / "architecture.md",
                                         "architecture");
  for (const std::string_view name : controller_stage_names())
    EXPECT_NE(doc.find("\n| " + std::string(name) + " | "), std::string::npos) << name;
}

TEST(ControllerScript, RunsOneStepOfTheStudyInItsDirectory) {
  StudyState state;
  state.hetscale = "/opt/hetscale/bin/hetscale";
  EXPECT_EQ(controller_script("testbed", state, "/runs/study"),
            "#!/bin/sh\n"
            "# Written by hetscale study: the controller of study 'testbed' (docs/study.md).\n"
            "#SBATCH --job-name=testbed-controller\n"
            "#SBATCH --ntasks=1\n#SBATCH --nodes=1\n#SBATCH --time=00:30:00\n"
            "#SBATCH --output=logs/controller-%j.out\n"
            "exec /opt/hetscale/bin/hetscale study step --dir /runs/study\n");
}

TEST(ControllerScript, QuotesAnyPathSafely) {
  // A ' in a path ended the quotes: the rest ran as shell code.
  StudyState state;
  state.hetscale = "/opt/it's/hetscale";
  const std::string script = controller_script("testbed", state, "/runs/a b'; touch /tmp/x; '\nc");
  EXPECT_TRUE(script.ends_with("exec '/opt/it'\\''s/hetscale' study step --dir "
                               "'/runs/a b'\\''; touch /tmp/x; '\\''\nc'\n"))
      << script;
}

}  // namespace
}  // namespace hetscale::study
