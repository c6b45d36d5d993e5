// What of the study's controller can be checked without Slurm and a database: the named
// stages a step runs through, in order, each with its row in docs/architecture.md's stage
// table, the controller job's script and the study's lock.
#include "hetscale/study/study_run.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/base/file_lock.hpp"
#include "hetscale/base/text_file.hpp"

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

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
  StudySpec spec;
  spec.name = "testbed";
  spec.controller_time_limit = "3:30:00";  // the spec's, not a fixed half hour
  EXPECT_EQ(controller_script(spec, state, "/runs/study"),
            "#!/bin/sh\n"
            "# Written by hetscale study: the controller of study 'testbed' (docs/study.md).\n"
            "#SBATCH --job-name=testbed-controller\n"
            "#SBATCH --ntasks=1\n#SBATCH --nodes=1\n#SBATCH --time=3:30:00\n"
            "#SBATCH --output=logs/controller-%j.out\n"
            "exec /opt/hetscale/bin/hetscale study step --dir /runs/study\n");
}

TEST(ControllerScript, QuotesAnyPathSafely) {
  // A ' in a path ended the quotes: the rest ran as shell code.
  StudyState state;
  state.hetscale = "/opt/it's/hetscale";
  StudySpec spec;
  spec.name = "testbed";
  const std::string script = controller_script(spec, state, "/runs/a b'; touch /tmp/x; '\nc");
  EXPECT_TRUE(script.ends_with("exec '/opt/it'\\''s/hetscale' study step --dir "
                               "'/runs/a b'\\''; touch /tmp/x; '\\''\nc'\n"))
      << script;
}

// The message of a step, a resume or a start refused because the study's lock is held.
std::string lock_held(const fs::path& dir) {
  return "a hetscale study run, step or resume of the study in " + dir.string() + " is already running (process " +
         std::to_string(::getpid()) + ", lock " + (dir / "study.lock").string() + ")";
}

TEST(StudyStep, ASecondStepOfTheStudyIsRefusedWhileOneRuns) {
  const fs::path dir = fs::temp_directory_path() / ("study-lock-" + std::to_string(::getpid()));
  StudyState state;
  state.phase = Phase::measure;
  save_state(dir, state);
  const ExclusiveFileLock running(dir / "study.lock", "a controller's step");  // as a step holds it
  std::ostringstream out;
  try {
    step_study(dir, out);
    FAIL() << "a second step ran";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), lock_held(dir));
  }
  EXPECT_TRUE(out.str().empty()) << out.str();
  EXPECT_EQ(state_json(load_state(dir)), state_json(state));  // untouched
  fs::remove_all(dir);
}

// `study run` holds the lock a step takes while it checks, writes and submits: with the lock
// held (as by `study run` itself, or a step), a start is refused naming the holder, and the
// other way round a step started while the study is being submitted is refused.
TEST(StudyRun, IsRefusedWhileTheStudysLockIsHeld) {
  const fs::path dir = fs::temp_directory_path() / ("study-run-lock-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const ExclusiveFileLock running(dir / "study.lock", "a step");
  RunOptions options;
  options.spec = dir / "no-such-study.toml";  // never read: the lock comes first
  options.dir = dir;
  std::ostringstream out;
  try {
    (void)run_study(options, out);
    FAIL() << "the study was started";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), lock_held(dir));
  }
  EXPECT_TRUE(out.str().empty()) << out.str();
  EXPECT_FALSE(fs::exists(state_path(dir)));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetscale::study
