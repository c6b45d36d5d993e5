#include "hetscale/jobgen/task_status.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/jobgen/scripts.hpp"

namespace hetscale::jobgen {
namespace {

using ::testing::ElementsAre;

// Two sets (2 and 4 nodes), three sizes each, two repetitions, of the study 0a1b2c3d.
Round two_set_round() {
  Round s;
  s.spec.name = "mm-scaling";
  s.study_token = "0a1b2c3d";
  s.spec.repetitions = 2;
  for (std::size_t k = 0; k < 2; ++k) {
    RoundSet set;
    set.set.index = k;
    for (std::size_t n = 0; n < 2 * (k + 1); ++n) {
      set.set.nodes.push_back("n" + std::to_string(n + 1));
      set.members.push_back({"n" + std::to_string(n + 1), "g", 10, 1, 1});
    }
    set.parameter_values = k == 0 ? std::vector<double>{100, 200, 400} : std::vector<double>{200, 400, 800};
    s.sets.push_back(set);
  }
  return s;
}

SlurmJobState task_job(std::uint64_t id, std::string name, std::uint64_t array, std::uint64_t index,
                       std::string state) {
  return {"hetscale", id, std::move(name), array, index, {}, std::move(state)};
}

TEST(ArrayJobName, NamesTheStudyAndTheRoundAfterTheFirst) {
  Round s = two_set_round();
  EXPECT_EQ(array_job_name(s, s.sets[1]), "mm-scaling-0a1b2c3d-set1");
  s.number = 2;
  EXPECT_EQ(array_job_name(s, s.sets[1]), "mm-scaling-0a1b2c3d-r2-set1");
  // A round of a plan without a token (an older jobgen's) has the names its jobs were given.
  s.study_token.clear();
  EXPECT_EQ(array_job_name(s, s.sets[1]), "mm-scaling-r2-set1");
  s.number = 0;
  EXPECT_EQ(array_job_name(s, s.sets[1]), "mm-scaling-set1");
}

TEST(ArrayTasks, OnePerSizeWithEveryRepetition) {
  const auto tasks = array_tasks(two_set_round());
  ASSERT_EQ(tasks.size(), 6U);
  EXPECT_EQ(tasks[4].set_index, 1U);
  EXPECT_EQ(tasks[4].array_index, 1U);
  EXPECT_EQ(tasks[4].parameter, 400);
  EXPECT_EQ(tasks[4].nodes, 4U);
  EXPECT_THAT(tasks[4].repetitions, ElementsAre(0, 1));
  EXPECT_EQ(tasks[4].job_name, "mm-scaling-0a1b2c3d-set1");
}

TEST(TaskStatuses, CollectedRecordsWinOverTheJobAndTheLatestJobCounts) {
  const auto tasks = array_tasks(two_set_round());
  const std::vector<SlurmJobState> jobs = {
      task_job(11, "mm-scaling-0a1b2c3d-set0", 10, 0, "COMPLETED"),
      task_job(12, "mm-scaling-0a1b2c3d-set0", 10, 1, "FAILED"),
      task_job(13, "mm-scaling-0a1b2c3d-set0", 10, 2, "CANCELLED"),
      task_job(30, "mm-scaling-0a1b2c3d-set0", 30, 2, "COMPLETED"),  // submitted again: the latest wins
      task_job(21, "mm-scaling-0a1b2c3d-set1", 20, 0, "RUNNING"),
      {"hetscale", 20, "mm-scaling-0a1b2c3d-set1", 20, std::nullopt, {1, 2}, "PENDING"},
      task_job(99, "other-set1", 98, 0, "FAILED"),  // another experiment's job
  };
  const std::vector<CollectedRun> runs = {{0, 100, 0}, {0, 100, 1}, {0, 400, 0}, {1, 200, 0}};
  const auto status = task_statuses(tasks, jobs, runs);
  ASSERT_EQ(status.size(), 6U);
  EXPECT_EQ(status[0].state, TaskState::collected);
  EXPECT_EQ(status[0].job_id, 11U);
  EXPECT_EQ(status[1].state, TaskState::failed);
  EXPECT_THAT(status[1].missing, ElementsAre(0, 1));
  EXPECT_EQ(status[2].state, TaskState::uncollected);  // job 30 completed, repetition 1 missing
  EXPECT_EQ(status[2].job_id, 30U);
  EXPECT_THAT(status[2].collected, ElementsAre(0));
  EXPECT_THAT(status[2].missing, ElementsAre(1));
  EXPECT_EQ(status[3].state, TaskState::running);
  EXPECT_EQ(status[4].state, TaskState::pending);
  EXPECT_EQ(status[4].job_id, 20U);
  EXPECT_EQ(status[5].state, TaskState::pending);

  const auto sets = set_statuses(status);
  ASSERT_EQ(sets.size(), 2U);
  EXPECT_EQ(sets[0].summary, "round 0 set 0 (2 nodes): 3 tasks: 1 collected, 1 completed but not collected, 1 failed");
  EXPECT_EQ(sets[1].summary, "round 0 set 1 (4 nodes): 3 tasks: 1 running, 2 pending");
}

// With weights = ["marked", "equalized"] a repetition is two steps: one stored run of it
// leaves the repetition missing.
TEST(TaskStatuses, ARepetitionOfSeveralWeightsIsCollectedWithARunPerStep) {
  Round s = two_set_round();
  s.spec.slurm.weights = {"marked", "equalized"};
  const auto tasks = array_tasks(s);
  EXPECT_EQ(tasks[0].runs_per_repetition, 2U);
  const std::vector<CollectedRun> runs = {{0, 100, 0}, {0, 100, 0}, {0, 100, 1}};
  const auto status = task_statuses(tasks, {task_job(11, "mm-scaling-0a1b2c3d-set0", 10, 0, "COMPLETED")}, runs);
  EXPECT_EQ(status[0].state, TaskState::uncollected);
  EXPECT_THAT(status[0].collected, ElementsAre(0));
  EXPECT_THAT(status[0].missing, ElementsAre(1));
}

// Two studies of one experiment by one user: the other study's jobs are none of this one's
// tasks, however new. Its failed task must not make this study's running one look failed
// (a resubmission would run it twice), nor its completed one make a task look run.
TEST(TaskStatuses, JobsOfAnotherStudyOfTheExperimentAreLeftOut) {
  const Round ours = two_set_round();
  Round theirs = two_set_round();
  theirs.study_token = "ffff0000";
  const std::vector<SlurmJobState> jobs = {
      task_job(21, array_job_name(ours, ours.sets[1]), 20, 0, "RUNNING"),
      task_job(41, array_job_name(theirs, theirs.sets[1]), 40, 0, "FAILED"),
      task_job(42, array_job_name(theirs, theirs.sets[1]), 40, 1, "COMPLETED"),
  };
  const auto status = task_statuses(array_tasks(ours), jobs, {});
  ASSERT_EQ(status.size(), 6U);
  EXPECT_EQ(status[3].state, TaskState::running);
  EXPECT_EQ(status[3].job_id, std::optional<std::uint64_t>(21));
  EXPECT_EQ(status[4].state, TaskState::not_submitted);
  EXPECT_FALSE(status[4].job_id.has_value());
  EXPECT_THROW((void)resubmitted_round(ours, status), Error);  // its own task still runs
}

TEST(TaskStatuses, AStepThatRanWithoutARecordOfAProgramThatWritesNoneSaysSo) {
  Round s = two_set_round();
  s.spec.code.command = "./heat {N}";
  s.spec.code.record = RecordWriter::program;
  const std::vector<SlurmJobState> jobs = {
      task_job(11, array_job_name(s, s.sets[0]), 10, 0, "COMPLETED"),
      task_job(12, array_job_name(s, s.sets[0]), 10, 1, "FAILED"),
      task_job(13, array_job_name(s, s.sets[0]), 10, 2, "RUNNING"),
  };
  const std::vector<CollectedRun> runs = {{0, 200, 0}};  // task 1 left one record
  auto status = task_statuses(array_tasks(s), jobs, runs);
  EXPECT_EQ(status[0].state, TaskState::uncollected);
  EXPECT_EQ(status[0].note, "ran, no record: the program does not write one; set [code] record = \"step\"");
  EXPECT_EQ(status[1].note, "");  // a record came: the program writes them
  EXPECT_EQ(status[2].note, "");  // still running
  EXPECT_EQ(set_statuses(status)[0].summary,
            "round 0 set 0 (2 nodes): 3 tasks: 1 running, 1 completed but not collected, 1 failed (1 ran, no record: "
            "the program does not write one; set [code] record = \"step\")");
  // Timed from outside, a step always leaves a record: no such note.
  s.spec.code.record = RecordWriter::step;
  status = task_statuses(array_tasks(s), jobs, runs);
  EXPECT_EQ(status[0].note, "");
}

TEST(TaskStatuses, NoJobIsNotSubmitted) {
  const auto status = task_statuses(array_tasks(two_set_round()), {}, {});
  for (const TaskStatus& t : status) EXPECT_EQ(t.state, TaskState::not_submitted);
  EXPECT_EQ(set_statuses(status)[1].summary, "round 0 set 1 (4 nodes): 3 tasks: 3 not submitted");
}

TEST(ResubmittedRound, RunsOnlyTheMissingRepetitionsAsTheNextRound) {
  const Round first = two_set_round();
  const std::vector<SlurmJobState> jobs = {
      task_job(11, "mm-scaling-0a1b2c3d-set0", 10, 0, "COMPLETED"),
      task_job(12, "mm-scaling-0a1b2c3d-set0", 10, 1, "FAILED"),
      task_job(13, "mm-scaling-0a1b2c3d-set0", 10, 2, "CANCELLED"),
      task_job(21, "mm-scaling-0a1b2c3d-set1", 20, 0, "COMPLETED"),
      task_job(22, "mm-scaling-0a1b2c3d-set1", 20, 1, "COMPLETED"),
      task_job(23, "mm-scaling-0a1b2c3d-set1", 20, 2, "COMPLETED")};
  const std::vector<CollectedRun> runs = {{0, 100, 0}, {0, 100, 1}, {0, 400, 0}, {1, 200, 0}, {1, 200, 1},
                                          {1, 400, 0}, {1, 400, 1}, {1, 800, 0}, {1, 800, 1}};
  const Round next = resubmitted_round(first, task_statuses(array_tasks(first), jobs, runs));
  EXPECT_EQ(next.number, 1U);
  EXPECT_THAT(next.sets[0].parameter_values, ElementsAre(200, 400));
  ASSERT_EQ(next.sets[0].repetitions.size(), 2U);
  EXPECT_THAT(next.sets[0].repetitions[0], ElementsAre(0, 1));
  EXPECT_THAT(next.sets[0].repetitions[1], ElementsAre(1));
  EXPECT_TRUE(next.sets[1].parameter_values.empty());
  EXPECT_EQ(array_job_name(next, next.sets[0]), "mm-scaling-0a1b2c3d-r1-set0");

  // The round's tasks carry their own repetitions.
  const auto tasks = array_tasks(next);
  ASSERT_EQ(tasks.size(), 2U);
  EXPECT_THAT(tasks[1].repetitions, ElementsAre(1));
  // Its script selects them per task.
  const std::string script = render_set_script(next, next.sets[0], {});
  EXPECT_NE(script.find("  1) N=400 repetitions=\"1\" ;;\n"), std::string::npos) << script;
  EXPECT_NE(script.find("for repetition in $repetitions; do"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --job-name=mm-scaling-0a1b2c3d-r1-set0"), std::string::npos) << script;
}

TEST(ResubmittedRound, RefusesWhileAJobIsPendingOrRunning) {
  const Round first = two_set_round();
  const std::vector<SlurmJobState> jobs = {task_job(21, "mm-scaling-0a1b2c3d-set1", 20, 0, "RUNNING")};
  try {
    resubmitted_round(first, task_statuses(array_tasks(first), jobs, {}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "round 0 set 1 array task 0 (N=200) is RUNNING (job 21): resubmit once the study's jobs have "
                 "ended (hetscale status shows them)");
  }
}

}  // namespace
}  // namespace hetscale::jobgen
