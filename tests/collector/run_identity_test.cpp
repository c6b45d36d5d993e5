#include <gtest/gtest.h>

#include "hetscale/collector/run_loader.hpp"

namespace hetscale::collector {
namespace {

RunRecord record() {
  RunRecord r;
  r.experiment = "e";
  r.code = "mm";
  r.workload = "2*N^3";
  r.parameters = {{"N", 1200}, {"B", 2}};
  r.work = 1;
  r.wall_seconds = 1;
  r.ranks = {{0, "n1", 0.5, 1, 0.5, 0.1, 1}, {1, "n2", 0.5, 1, 0.5, 0.1, 1}};
  r.slurm.job_id = 7;
  r.machine_set = 1;
  r.repetition = 2;
  r.start_time = "2026-11-21T06:00:00Z";
  return r;
}

TEST(RunIdentity, IsTheIdentifyingFieldsInAFixedOrder) {
  EXPECT_EQ(run_identity(record()),
            R"(["e","mm","2*N^3",{"B":2.0,"N":1200.0},1,2,7,null,null,null,"",)"
            R"("2026-11-21T06:00:00Z","",["n1","n2"]])");
}

TEST(RunIdentity, IgnoresMeasurements) {
  RunRecord other = record();
  other.wall_seconds = 9;
  other.ranks[1].compute_seconds = 0.9;
  other.verified = true;
  EXPECT_EQ(run_identity(other), run_identity(record()));
}

TEST(RunIdentity, TellsRepetitionsApart) {
  RunRecord other = record();
  other.repetition = 3;
  EXPECT_NE(run_identity(other), run_identity(record()));
}

// `[slurm] weights = ["marked", "equalized"]`: two steps of one repetition, one array task.
TEST(RunIdentity, TellsTheStepsOfOneRepetitionApart) {
  RunRecord marked = record();
  marked.slurm.step_id = 0;
  marked.weights_source = "marked";
  RunRecord equalized = marked;
  equalized.slurm.step_id = 1;
  equalized.start_time = "2026-11-21T06:00:05Z";
  equalized.weights_source = "equalized";
  EXPECT_NE(run_identity(equalized), run_identity(marked));
}

TEST(RunIdentity, OfAnotherEngineEndsWithTheEngineAndThePlatformHash) {
  RunRecord twin = record();
  twin.engine = "simgrid";
  twin.platform_hash = "9f86d081";
  EXPECT_EQ(run_identity(twin), R"(["e","mm","2*N^3",{"B":2.0,"N":1200.0},1,2,7,null,null,null,"",)"
                                R"("2026-11-21T06:00:00Z","",["n1","n2"],"simgrid","9f86d081"])");
  twin.platform_hash.reset();
  EXPECT_EQ(run_identity(twin), R"(["e","mm","2*N^3",{"B":2.0,"N":1200.0},1,2,7,null,null,null,"",)"
                                R"("2026-11-21T06:00:00Z","",["n1","n2"],"simgrid",null])");
}

TEST(RunIdentity, TellsATwinRunFromTheRealRun) {
  RunRecord twin = record();
  twin.engine = "simgrid";
  EXPECT_NE(run_identity(twin), run_identity(record()));
  RunRecord launched = record();
  launched.engine = "mpirun";
  EXPECT_NE(run_identity(launched), run_identity(twin));
  EXPECT_NE(run_identity(launched), run_identity(record()));
  RunRecord hashed = twin;
  hashed.platform_hash = "00ff";
  EXPECT_NE(run_identity(hashed), run_identity(twin));
  RunRecord other_platform = twin;
  other_platform.platform_hash = "11ff";
  EXPECT_NE(run_identity(other_platform), run_identity(hashed));
}

TEST(RunIdentity, OfASlurmRunIsTheSameWhetherTheRecordNamesTheEngineOrNot) {
  RunRecord named = record();
  named.engine = "slurm";
  EXPECT_EQ(run_identity(named), run_identity(record()));
  named.platform_hash = "00ff";  // a hash makes it another run, whatever the engine
  EXPECT_NE(run_identity(named), run_identity(record()));
}

}  // namespace
}  // namespace hetscale::collector
