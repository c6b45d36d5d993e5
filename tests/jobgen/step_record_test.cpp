// The step timed from outside: its record's values, a failed step, a step that wrote its
// own record, weights off.
#include "hetscale/jobgen/step_record.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/site/run_record_reader.hpp"

namespace hetscale::jobgen {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

StepDescription heat_step(std::string weights = "marked") {
  StepDescription step;
  step.code = "./heat --grid {M}";
  step.workload = "500*M^2";
  step.parameter = "M";
  step.parameter_value = 1000;
  step.weights = std::move(weights);
  step.marked_speed = 3000;
  step.speed_unit = "Mflops";
  step.rank_hosts = rank_hosts_of("n[2-3]", 2);
  return step;
}

RecordEnvironment study_environment(const fs::path& file) {
  const std::map<std::string, std::string> vars = {
      {"HETSCALE_RECORD", file.string()}, {"HETSCALE_EXPERIMENT", "heat-solver"}, {"HETSCALE_MACHINE_SET", "1"},
      {"HETSCALE_REPETITION", "2"},       {"SLURM_JOB_ID", "78"},                 {"SLURM_ARRAY_JOB_ID", "77"},
      {"SLURM_ARRAY_TASK_ID", "1"},       {"SLURM_STEP_ID", "4294967294"}};
  return read_record_environment([&vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

std::string read_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

class StepRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-step-record-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<RunRecord> records() const {
    std::vector<RunRecord> out;
    for (auto& numbered : read_run_records(file(), OnInvalid::fail).records) out.push_back(numbered.record);
    return out;
  }
  fs::path file() const { return dir_ / "set1.jsonl"; }
  fs::path dir_;
};

TEST(RankHosts, EveryNodeItsTasksInOrder) {
  EXPECT_THAT(rank_hosts_of("n[2-3]", 2), ElementsAre("n2", "n2", "n3", "n3"));
  EXPECT_THROW((void)rank_hosts_of("n1", 0), Error);
}

TEST_F(StepRecord, HoldsTheStepsValuesAndReadsBack) {
  const StepRecordResult result = record_step(heat_step(), {{"sh", "-c", "sleep 0.2"}}, study_environment(file()));
  EXPECT_TRUE(result.written);
  EXPECT_EQ(result.outcome.exit_status, 0);
  const auto all = records();
  ASSERT_EQ(all.size(), 1U);
  const RunRecord& r = all[0];
  EXPECT_EQ(r.timed_by, "step");
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_FALSE(run_failed(r));
  EXPECT_EQ(r.experiment, "heat-solver");
  EXPECT_EQ(r.code, "./heat --grid {M}");
  EXPECT_EQ(r.workload, "500*M^2");
  EXPECT_EQ(r.parameters.at("M"), 1000);
  EXPECT_DOUBLE_EQ(r.work, 5e8);  // the formula at M = 1000
  EXPECT_GE(r.wall_seconds, 0.2);
  EXPECT_LT(r.wall_seconds, 5);
  EXPECT_EQ(r.marked_speed, 3000);
  EXPECT_EQ(r.speed_unit, "Mflops");
  EXPECT_EQ(r.weights_source, "marked");
  ASSERT_EQ(r.ranks.size(), 4U);
  EXPECT_EQ(r.ranks[3].rank, 3);
  EXPECT_EQ(r.ranks[3].host, "n3");
  EXPECT_DOUBLE_EQ(r.ranks[3].weight, 0.25);
  EXPECT_EQ(r.ranks[3].wall_seconds, r.wall_seconds);
  EXPECT_EQ(r.ranks_timed_by, "step");  // no SPANK plugin wrote task times here: nominal
  EXPECT_TRUE(r.node_times.empty());
  EXPECT_THAT(result.nominal_because.value_or(""), ::testing::HasSubstr("no task times"));
  EXPECT_EQ(r.machine_set, 1);
  EXPECT_EQ(r.repetition, 2);
  EXPECT_EQ(r.slurm.job_id, 78U);
  EXPECT_EQ(r.slurm.array_job_id, 77U);
  EXPECT_EQ(r.slurm.array_task_id, 1U);
  EXPECT_FALSE(r.slurm.step_id.has_value());  // the batch step's id is not the srun step's
  EXPECT_EQ(r.slurm.node_list, "n[2-3]");
  EXPECT_TRUE(r.verified);
}

// The step writes what the SPANK plugin writes in slurmstepd (task_times.hpp): the record
// takes every rank's own time and each node's start and end from it.
TEST_F(StepRecord, TheTasksOwnTimesComeFromTheTaskTimesDirectory) {
  const std::string plugin_like =
      "printf '0 1000000000 1500000000 0\\n1 1000000000 2000000000 0\\n' > \"$HETSCALE_TASK_TIMES_DIR/n2.tasks\"; "
      "printf '3 1200000000 1450000000 0\\n2 1100000000 3100000000 0\\n' > \"$HETSCALE_TASK_TIMES_DIR/n3.tasks\"; "
      "echo \"$HETSCALE_TASK_TIMES_DIR\" > \"$0\"";
  const fs::path seen = dir_ / "times-dir";
  const StepRecordResult result =
      record_step(heat_step(), {{"sh", "-c", plugin_like, seen.string()}}, study_environment(file()));
  ASSERT_TRUE(result.written);
  EXPECT_FALSE(result.nominal_because) << *result.nominal_because;
  const RunRecord r = records().at(0);
  EXPECT_EQ(r.ranks_timed_by, "spank");
  ASSERT_EQ(r.ranks.size(), 4U);
  EXPECT_DOUBLE_EQ(r.ranks[0].wall_seconds, 0.5);
  EXPECT_DOUBLE_EQ(r.ranks[1].wall_seconds, 1.0);
  EXPECT_DOUBLE_EQ(r.ranks[2].wall_seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.ranks[3].wall_seconds, 0.25);
  ASSERT_EQ(r.node_times.size(), 2U);
  EXPECT_EQ(r.node_times[0].host, "n2");
  EXPECT_EQ(r.node_times[0].tasks, 2);
  EXPECT_EQ(r.node_times[0].start_time, "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(r.node_times[0].end_time, "1970-01-01T00:00:02.000Z");
  EXPECT_DOUBLE_EQ(r.node_times[0].wall_seconds, 1.0);
  EXPECT_EQ(r.node_times[1].host, "n3");
  EXPECT_EQ(r.node_times[1].start_time, "1970-01-01T00:00:01.100Z");
  EXPECT_DOUBLE_EQ(r.node_times[1].wall_seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.wall_seconds, r.wall_seconds);  // T stays the step's own
  // The directory was beside the record file, and is gone.
  const fs::path times_dir = fs::path(read_line(seen));
  EXPECT_EQ(times_dir.parent_path(), dir_);
  EXPECT_FALSE(fs::exists(times_dir));
}

// srun --distribution=cyclic (or slurm.conf's node order) puts ranks 0 and 2 on n2, 1 and 3
// on n3, where the plan's block order says n2, n2, n3, n3: each rank's time and its host
// come from the file of the node that timed it.
TEST_F(StepRecord, TaskTimesOfACyclicLayoutLandOnTheHostsThatTimedThem) {
  const std::string cyclic =
      "printf '0 1000000000 1500000000 0\\n2 1000000000 3000000000 0\\n' > \"$HETSCALE_TASK_TIMES_DIR/n2.tasks\"; "
      "printf '1 1000000000 2000000000 0\\n3 1000000000 1250000000 0\\n' > \"$HETSCALE_TASK_TIMES_DIR/n3.tasks\"";
  const StepRecordResult result = record_step(heat_step(), {{"sh", "-c", cyclic}}, study_environment(file()));
  EXPECT_FALSE(result.nominal_because) << *result.nominal_because;
  const RunRecord r = records().at(0);
  ASSERT_EQ(r.ranks.size(), 4U);
  const std::pair<std::string, double> expected[] = {{"n2", 0.5}, {"n3", 1.0}, {"n2", 2.0}, {"n3", 0.25}};
  for (std::size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE("rank " + std::to_string(i));
    EXPECT_EQ(r.ranks[i].rank, static_cast<int>(i));
    EXPECT_EQ(r.ranks[i].host, expected[i].first);
    EXPECT_DOUBLE_EQ(r.ranks[i].wall_seconds, expected[i].second);
  }
  ASSERT_EQ(r.node_times.size(), 2U);
  EXPECT_EQ(r.node_times[0].host, "n2");
  EXPECT_DOUBLE_EQ(r.node_times[0].wall_seconds, 2.0);
  EXPECT_EQ(r.node_times[1].host, "n3");
  EXPECT_DOUBLE_EQ(r.node_times[1].wall_seconds, 1.0);
  EXPECT_EQ(r.slurm.node_list, "n[2-3]");
}

// Times from nodes the step was not planned on, or another number of tasks on a node, do
// not fit the record's ranks: it stays nominal and says why.
TEST_F(StepRecord, TaskTimesOfAnotherLayoutLeaveTheRecordNominal) {
  RunRecord record = step_run_record(heat_step(), StepOutcome{2.0, 0, {}, {}}, study_environment(file()));
  const TaskTime t0{0, 1, 2, 0}, t1{1, 1, 2, 0}, t2{2, 1, 2, 0}, t3{3, 1, 2, 0};
  EXPECT_EQ(apply_task_times(record, {{"n2", {t0, t1}}, {"n9", {t2, t3}}}),
            "the plugin timed tasks on n9, which is not one of the step's nodes");
  EXPECT_EQ(apply_task_times(record, {{"n2", {t0, t1, t2}}, {"n3", {t3}}}),
            "the plugin timed 3 tasks on n2, where the step's layout has 2");
  EXPECT_EQ(record.ranks_timed_by, "step");
  EXPECT_EQ(record.ranks[2].host, "n3");
  EXPECT_EQ(record.ranks[2].wall_seconds, 2.0);
}

TEST_F(StepRecord, TaskTimesOfSomeRanksOnlyLeaveTheRecordNominal) {
  const std::string one_node = "printf '0 1000000000 1500000000 0\\n' > \"$HETSCALE_TASK_TIMES_DIR/n2.tasks\"";
  const StepRecordResult result = record_step(heat_step(), {{"sh", "-c", one_node}}, study_environment(file()));
  EXPECT_EQ(result.nominal_because, "the plugin timed 1 of the step's 4 tasks");
  const RunRecord r = records().at(0);
  EXPECT_EQ(r.ranks_timed_by, "step");
  EXPECT_TRUE(r.node_times.empty());
  EXPECT_EQ(r.ranks[0].wall_seconds, r.wall_seconds);
}

TEST_F(StepRecord, AMalformedTaskTimesFileLeavesTheRecordNominalAndSaysWhere) {
  const std::string bad = "printf '0 x 1 0\\n' > \"$HETSCALE_TASK_TIMES_DIR/n2.tasks\"";
  const StepRecordResult result = record_step(heat_step(), {{"sh", "-c", bad}}, study_environment(file()));
  EXPECT_THAT(result.nominal_because.value_or(""), ::testing::HasSubstr("n2.tasks:1: the start is not an integer"));
  EXPECT_EQ(records().at(0).ranks_timed_by, "step");
}

// A step that removes the directory (or a file system that loses it) costs the times,
// never the record.
TEST_F(StepRecord, ATaskTimesDirectoryThatIsGoneStillGivesTheRecord) {
  const StepRecordResult result =
      record_step(heat_step(), {{"sh", "-c", "rm -rf \"$HETSCALE_TASK_TIMES_DIR\""}}, study_environment(file()));
  ASSERT_TRUE(result.written);
  EXPECT_THAT(result.nominal_because.value_or(""), ::testing::HasSubstr("No such file or directory"));
  const RunRecord r = records().at(0);
  EXPECT_EQ(r.ranks_timed_by, "step");
  EXPECT_EQ(r.exit_status, 0);
}

TEST_F(StepRecord, AFailedStepIsRecordedAsFailedAndItsStatusPassedOn) {
  const StepRecordResult result = record_step(heat_step(), {{"sh", "-c", "exit 3"}}, study_environment(file()));
  EXPECT_EQ(result.outcome.exit_status, 3);
  const auto all = records();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].exit_status, 3);
  EXPECT_TRUE(run_failed(all[0]));
  EXPECT_FALSE(all[0].verified);
}

TEST_F(StepRecord, AStepKilledByASignalHas128PlusItsNumber) {
  const StepRecordResult result = record_step(heat_step(), {{"sh", "-c", "kill -9 $$"}}, study_environment(file()));
  EXPECT_EQ(result.outcome.exit_status, 137);
  EXPECT_EQ(records().at(0).exit_status, 137);
}

TEST_F(StepRecord, AProgramThatCannotBeStartedIs127) {
  const StepRecordResult result =
      record_step(heat_step(), {{"/nonexistent/heat"}}, study_environment(file()));
  EXPECT_EQ(result.outcome.exit_status, 127);
  EXPECT_TRUE(run_failed(records().at(0)));
}

TEST_F(StepRecord, NothingIsAddedWhenTheStepWroteItsOwnRecord) {
  // An earlier step's record is in the file already: only what this step adds counts.
  ASSERT_TRUE(record_step(heat_step(), {{"true"}}, study_environment(file())).written);
  const std::string own = R"({"schema":1,"code":"heat","workload":"500*M^2","parameters":{"M":1000},)"
                          R"("work":5e8,"wall_seconds":1.5,"ranks":[{"rank":0,"host":"n2","weight":1,)"
                          R"("wall_seconds":1.5}]})";
  const fs::path line = dir_ / "own.jsonl";
  std::ofstream(line) << own << '\n';
  const StepRecordResult result =
      record_step(heat_step(), {{"sh", "-c", "cat \"$0\" >> \"$1\"", line.string(), file().string()}},
                  study_environment(file()));
  EXPECT_FALSE(result.written);
  EXPECT_EQ(result.skipped_because, "the step wrote its own record");
  const auto all = records();
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(run_timed_by(all[1]), "program");
  EXPECT_EQ(all[1].wall_seconds, 1.5);
}

TEST_F(StepRecord, WeightsOffLeaveTheSourceUnknown) {
  ASSERT_TRUE(record_step(heat_step("off"), {{"true"}}, study_environment(file())).written);
  EXPECT_EQ(records().at(0).weights_source, "");
  ASSERT_TRUE(record_step(heat_step("./part.toml"), {{"true"}}, study_environment(file())).written);
  EXPECT_EQ(records().at(1).weights_source, "file");
}

TEST_F(StepRecord, WithoutARecordFileTheStepOnlyRuns) {
  RecordEnvironment outside = study_environment(file());
  outside.record_file.reset();
  const StepRecordResult result = record_step(heat_step(), {{"sh", "-c", "exit 4"}}, outside);
  EXPECT_EQ(result.outcome.exit_status, 4);
  EXPECT_FALSE(result.written);
  EXPECT_FALSE(fs::exists(file()));
}

TEST_F(StepRecord, AFormulaWithoutAValueFailsBeforeTheStepRuns) {
  StepDescription step = heat_step();
  step.workload = "500*M^2 - 1e12";  // negative W at M = 1000
  const fs::path marker = dir_ / "ran";
  EXPECT_THROW((void)record_step(step, {{"touch", marker.string()}}, study_environment(file())), Error);
  EXPECT_FALSE(fs::exists(marker));
  step.workload = "500*K^2";  // not the parameter's name
  EXPECT_THROW((void)record_step(step, {{"touch", marker.string()}}, study_environment(file())), Error);
  EXPECT_FALSE(fs::exists(marker));
}

}  // namespace
}  // namespace hetscale::jobgen
