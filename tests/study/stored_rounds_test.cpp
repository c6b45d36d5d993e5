// Whose jobs tell a study's task states: the invoking user's only.
#include "hetscale/study/stored_rounds.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hetscale/jobgen/task_status.hpp"
#include "hetscale/slurm/queries.hpp"

namespace hetscale::study {
namespace {

slurm::JobRecord job(std::uint64_t id, const std::string& user, const std::string& state) {
  slurm::JobRecord j;
  j.cluster = "c";
  j.job_id = id;
  j.job_name = "mm-set0";
  j.array_job_id = id;
  j.array_task_id = 0;
  j.user_name = user;
  j.state = state;
  return j;
}

TEST(OwnJobStates, LeavesOutEveryOtherUsersJobsOfTheSameName) {
  // alice's task completed; bob's newer job of the same name runs.
  const std::vector<slurm::JobRecord> jobs = {job(10, "alice", "COMPLETED"), job(12, "bob", "RUNNING")};
  const auto own = own_job_states(jobs, "alice");
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].job_id, 10u);
  EXPECT_EQ(own[0].state, "COMPLETED");
  EXPECT_TRUE(own_job_states(jobs, "carol").empty());

  // The task's state is alice's job's, not the newest job of the name.
  jobgen::ArrayTask task;
  task.round = 0;
  task.set_index = 0;
  task.array_index = 0;
  task.parameter = 100;
  task.repetitions = {0};
  task.runs_per_repetition = 1;
  task.job_name = "mm-set0";
  const auto statuses = jobgen::task_statuses({task}, own, {});
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(statuses[0].job_id, std::optional<std::uint64_t>(10));
  EXPECT_EQ(statuses[0].slurm_state, "COMPLETED");
}

TEST(InvokingUserName, NamesTheUserThisProcessRunsAs) {
  EXPECT_FALSE(slurm::invoking_user_name().empty());
}

}  // namespace
}  // namespace hetscale::study
