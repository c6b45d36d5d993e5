// The plugin's task times (task_times_writer.hpp) through a fake Slurm: the file a node
// writes, and every way it declines without touching the step.
#include "task_times_writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "fake_slurm.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/site/task_times.hpp"

namespace hetscale::spank {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class TaskTimesWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-task-times-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    slurm.step("n[1-2]", {"n1", "n2"}, "2(x2)");
    slurm.on_node("n2");
    slurm.items[Item::local_task_count] = 2;
    slurm.env[kTaskTimesDirEnv] = dir_.string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<TaskTime> written(const std::string& host) const {
    const fs::path file = dir_ / (host + ".tasks");
    return parse_task_times(read_regular_file(file, 1 << 20), file.string());
  }
  void start(TaskTimesWriter& writer, std::uint64_t task, std::int64_t at) {
    slurm.items[Item::task_global_id] = task;
    writer.task_started(slurm, at);
  }
  void exit(TaskTimesWriter& writer, std::uint64_t task, std::int64_t at, int status) {
    slurm.items[Item::task_global_id] = task;
    slurm.items[Item::task_exit_status] = static_cast<std::uint32_t>(status);
    writer.task_exited(slurm, at);
  }

  FakeSlurm slurm;
  fs::path dir_;
};

TEST_F(TaskTimesWriterTest, EachTaskOfTheNodeFromItsStartToItsExit) {
  TaskTimesWriter writer;
  writer.open(slurm);
  ASSERT_TRUE(writer.active());
  EXPECT_THAT(slurm.created_files, ElementsAre((dir_ / "n2.tasks").string()));
  start(writer, 2, 1000);
  start(writer, 3, 1100);
  exit(writer, 3, 5000, 0);
  exit(writer, 2, 7000, 256);
  writer.close();
  EXPECT_THAT(written("n2"), ElementsAre(TaskTime{3, 1100, 5000, 0}, TaskTime{2, 1000, 7000, 256}));
  EXPECT_THAT(slurm.infos, IsEmpty());
  EXPECT_THAT(slurm.errors, IsEmpty());
}

TEST_F(TaskTimesWriterTest, AStepThatNamesNoDirectoryIsNotTimed) {
  slurm.env.erase(kTaskTimesDirEnv);
  TaskTimesWriter writer;
  writer.open(slurm);
  EXPECT_FALSE(writer.active());
  start(writer, 2, 1000);
  exit(writer, 2, 2000, 0);
  EXPECT_THAT(slurm.created_files, IsEmpty());
  EXPECT_THAT(slurm.infos, IsEmpty());
}

TEST_F(TaskTimesWriterTest, TheBatchAndExternStepsAreNeverTimed) {
  for (std::uint64_t step : {0xfffffffbULL, 0xfffffffcULL}) {
    slurm.items[Item::step_id] = step;
    TaskTimesWriter writer;
    writer.open(slurm);
    EXPECT_FALSE(writer.active());
  }
  EXPECT_THAT(slurm.created_files, IsEmpty());
}

TEST_F(TaskTimesWriterTest, AnExistingFileIsNeverWrittenAndOnlySlurmdsLogSaysWhy) {
  { std::ofstream(dir_ / "n2.tasks") << "someone else's\n"; }
  TaskTimesWriter writer;
  writer.open(slurm);  // the writer process finds the file taken; the step goes on
  start(writer, 2, 1000);
  start(writer, 3, 1100);
  exit(writer, 3, 5000, 0);
  exit(writer, 2, 7000, 0);
  EXPECT_FALSE(writer.active());
  ASSERT_EQ(slurm.infos.size(), 1U);
  EXPECT_THAT(slurm.infos[0], HasSubstr("File exists"));
  EXPECT_THAT(slurm.infos[0], HasSubstr("the step runs untimed"));
  EXPECT_THAT(slurm.errors, IsEmpty());  // nothing on the user's terminal
  EXPECT_EQ(read_regular_file(dir_ / "n2.tasks", 100), "someone else's\n");
}

// The directory is the job's to name: a line break in it cannot add a line to slurmd's log.
TEST_F(TaskTimesWriterTest, TheDirectoryNeverForgesALogLine) {
  slurm.env[kTaskTimesDirEnv] = dir_.string() + "/none\n[2026-01-01T00:00:00.000] error: forged";
  TaskTimesWriter writer;
  writer.open(slurm);
  start(writer, 2, 1000);
  start(writer, 3, 1100);
  exit(writer, 3, 5000, 0);
  exit(writer, 2, 7000, 0);
  ASSERT_EQ(slurm.infos.size(), 1U);
  EXPECT_EQ(slurm.infos[0].find('\n'), std::string::npos) << slurm.infos[0];
  EXPECT_THAT(slurm.infos[0], HasSubstr("/none\\n[2026-01-01T00:00:00.000] error: forged/n2.tasks: No such file"));
}

TEST_F(TaskTimesWriterTest, ARelativeDirectoryOrABadStepIsDeclined) {
  slurm.env[kTaskTimesDirEnv] = "relative/dir";
  TaskTimesWriter relative;
  relative.open(slurm);
  EXPECT_FALSE(relative.active());
  slurm.env[kTaskTimesDirEnv] = dir_.string();
  slurm.env["SLURM_STEP_NODELIST"] = "n[1-9";  // a node list no step has
  TaskTimesWriter bad_step;
  bad_step.open(slurm);
  EXPECT_FALSE(bad_step.active());
  EXPECT_EQ(slurm.infos.size(), 2U);
  EXPECT_THAT(slurm.created_files, IsEmpty());
}

TEST_F(TaskTimesWriterTest, ATaskNotSeenToStartStopsTheTimesButNotTheStep) {
  TaskTimesWriter writer;
  writer.open(slurm);
  exit(writer, 3, 5000, 0);
  EXPECT_FALSE(writer.active());
  EXPECT_THAT(slurm.infos.at(0), HasSubstr("not seen to start"));
  // No line (the writer is let go, maybe before it made the file): record step finds the
  // rank missing.
  EXPECT_TRUE(!fs::exists(dir_ / "n2.tasks") || written("n2").empty());
}

}  // namespace
}  // namespace hetscale::spank
