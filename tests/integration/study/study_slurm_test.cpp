// What the study asks of Slurm around sbatch and its lock (study/study_submission.hpp), on
// the fixture's cluster: a job whose sbatch was killed after Slurm took it is found by its
// comment and taken as submitted (one job in squeue, not two); one that never reached
// Slurm is dropped; a lock held in a Slurm job on another host is respected until that
// job ends, then taken over.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/base/executable_search.hpp"
#include "hetscale/site/study_token.hpp"
#include "hetscale/slurm/queries.hpp"
#include "hetscale/study/study_submission.hpp"
#include "support/process.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class StudySlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hetscale-study-slurm-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "bin");
    state_.study_token = new_study_token();
    name_ = "hetscale-test-" + state_.study_token;
    std::ofstream(dir_ / "job.sbatch") << "#!/bin/sh\n#SBATCH --job-name=" << name_
                                       << "\n#SBATCH --hold\n#SBATCH --output=/dev/null\ntrue\n";
    save_state(dir_, state_);
    const char* path = std::getenv("PATH");
    path_ = path == nullptr ? "" : path;
  }
  void TearDown() override {
    ::setenv("PATH", path_.c_str(), 1);
    (void)run_command({"scancel", "--name", name_});
    fs::remove_all(dir_);
  }

  // `sbatch` first on PATH: a script that runs `before`, then (unless `submits` is false)
  // the real sbatch, then kills itself: sbatch's answer is lost.
  void lose_sbatchs_answer(bool submits) {
    const auto sbatch = find_on_path("sbatch", path_, fs::current_path());
    ASSERT_TRUE(sbatch.has_value());
    std::ofstream(dir_ / "bin/sbatch") << "#!/bin/sh\n"
                                       << (submits ? "'" + sbatch->string() + "' \"$@\" >/dev/null\n" : "")
                                       << "kill -KILL $$\n";
    fs::permissions(dir_ / "bin/sbatch", fs::perms::owner_all);
    ::setenv("PATH", ((dir_ / "bin").string() + ":" + path_).c_str(), 1);
  }

  study::PendingSubmission array_job() const {
    study::PendingSubmission job;
    job.kind = study::PendingSubmission::Kind::array;
    job.job_name = name_;
    job.experiment = "mm";
    job.set_index = 1;
    job.directory = dir_.string();
    return job;
  }

  std::vector<std::string> queued() const {
    const CommandResult r = run_command({"squeue", "--noheader", "--name", name_, "--format=%i"});
    EXPECT_TRUE(r.ok()) << r.describe();
    return split_lines(r.out);
  }

  fs::path dir_;
  std::string path_;
  std::string name_;
  study::StudyState state_;
  std::vector<std::string> said_;
  Say say_ = [this](LineKind, const std::string& line) { said_.push_back(line); };
};

TEST_F(StudySlurm, AJobWhoseSbatchAnswerWasLostIsFoundAndNotSubmittedAgain) {
  lose_sbatchs_answer(true);
  EXPECT_THROW((void)study::submit_study_job(state_, dir_, array_job(), "job.sbatch", {}),
               slurm::SubmissionOutcomeUnknown);
  ::setenv("PATH", path_.c_str(), 1);
  study::StudyState state = study::load_state(dir_);  // as the next step or resume reads it
  ASSERT_TRUE(state.pending.has_value());
  EXPECT_EQ(state.pending->comment, "hetscale-" + state_.study_token + "-1");
  EXPECT_TRUE(state.arrays.empty());
  const std::vector<std::string> jobs = queued();
  ASSERT_EQ(jobs.size(), 1U);  // Slurm took it
  study::settle_pending_submission(state, dir_, say_);
  EXPECT_FALSE(state.pending.has_value());
  ASSERT_EQ(state.arrays.size(), 1U);
  EXPECT_EQ(std::to_string(state.arrays[0].job_id), jobs[0]);
  EXPECT_EQ(state.arrays[0].set_index, 1U);
  EXPECT_EQ(queued().size(), 1U);  // not submitted again
  ASSERT_EQ(said_.size(), 1U);
  EXPECT_EQ(said_[0], "job " + jobs[0] + " of mm set 1 (" + name_ + ") found in Slurm by its comment hetscale-" +
                          state_.study_token + "-1: taken as submitted, not submitted again\n");
  EXPECT_EQ(study::state_json(study::load_state(dir_)), study::state_json(state));  // saved
}

TEST_F(StudySlurm, ASubmissionThatNeverReachedSlurmIsDropped) {
  lose_sbatchs_answer(false);
  EXPECT_THROW((void)study::submit_study_job(state_, dir_, array_job(), "job.sbatch", {}),
               slurm::SubmissionOutcomeUnknown);
  ::setenv("PATH", path_.c_str(), 1);
  study::StudyState state = study::load_state(dir_);
  ASSERT_TRUE(state.pending.has_value());
  study::settle_pending_submission(state, dir_, say_);
  EXPECT_FALSE(state.pending.has_value());
  EXPECT_TRUE(state.arrays.empty());
  EXPECT_TRUE(queued().empty());
  ASSERT_EQ(said_.size(), 1U);
  EXPECT_EQ(said_[0], "no job of mm set 1 (" + name_ + ") with comment hetscale-" + state_.study_token +
                          "-1 in Slurm: its submission did not reach Slurm\n");
}

TEST_F(StudySlurm, ALockHeldInAJobOnAnotherHostIsRespectedUntilTheJobEnds) {
  const CommandResult submitted =
      run_command({"sbatch", "--parsable", "--hold", "--job-name=" + name_, "--output=/dev/null", "--wrap", "true"});
  ASSERT_TRUE(submitted.ok()) << submitted.describe();
  const std::string job = std::to_string(*slurm::parsable_job_id(submitted.out));
  std::ofstream(dir_ / "study.lock") << "4242\nhost elsewhere-node\njob " << job << "\n";
  try {
    const ExclusiveFileLock lock = study::lock_study(dir_, say_);
    FAIL() << "the lock of a running job was taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "a hetscale study run, step or resume of the study in " + dir_.string() +
                                         " is already running (process 4242 on host elsewhere-node, Slurm job " +
                                         job + ", lock " + (dir_ / "study.lock").string() + ")");
  }
  ASSERT_TRUE(run_command({"scancel", job}).ok());
  for (int i = 0; i < 40 && !queued().empty(); ++i) std::this_thread::sleep_for(250ms);
  {
    const ExclusiveFileLock lock = study::lock_study(dir_, say_);
    ASSERT_EQ(said_.size(), 1U);
    EXPECT_EQ(said_[0], "note: took over the lock " + (dir_ / "study.lock").string() +
                            " of process 4242 on host elsewhere-node, Slurm job " + job + ", which has ended\n");
  }
  EXPECT_FALSE(fs::exists(dir_ / "study.lock"));
}

}  // namespace
}  // namespace hetscale::test
