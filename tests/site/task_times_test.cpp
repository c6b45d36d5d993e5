// The task times file the SPANK plugin writes and `hetscale record step` reads
// (hetscale/site/task_times.hpp).
#include "hetscale/site/task_times.hpp"

#include <sys/wait.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string error_of(std::string_view text) {
  try {
    (void)parse_task_times(text, "n1.tasks");
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(TaskTimes, LinesReadBackAsWritten) {
  const TaskTime a{3, 1764000000123456789, 1764000002123456789, 0};
  const TaskTime b{0, 1764000000000000001, 1764000000000000001, 9};  // killed at once
  EXPECT_EQ(task_time_line(a), "3 1764000000123456789 1764000002123456789 0\n");
  EXPECT_THAT(parse_task_times(task_time_line(a) + task_time_line(b), "n1.tasks"), ElementsAre(a, b));
}

TEST(TaskTimes, AnIncompleteLastLineIsLeftOut) {
  EXPECT_THAT(parse_task_times("1 10 20 0\n2 10 2", "n1.tasks"), ElementsAre(TaskTime{1, 10, 20, 0}));
  EXPECT_TRUE(parse_task_times("", "n1.tasks").empty());
}

TEST(TaskTimes, RefusesWhatNoPluginWrites) {
  EXPECT_EQ(error_of("1 10 20\n"), "n1.tasks:1: no wait status");
  EXPECT_EQ(error_of("1 10 20 0 5\n"), "n1.tasks:1: more than four fields");
  EXPECT_EQ(error_of("1 1e9 20 0\n"), "n1.tasks:1: the start is not an integer");
  EXPECT_EQ(error_of("-1 10 20 0\n"), "n1.tasks:1: the task id is not an integer");
  EXPECT_EQ(error_of("1 30 20 0\n"), "n1.tasks:1: task 1 exits at 20 ns, before its start at 30 ns");
  EXPECT_EQ(error_of("1 0 20 0\n"), "n1.tasks:1: task 1 exits at 20 ns, before its start at 0 ns");
  EXPECT_EQ(error_of("1 10 20 0\n1 10 20 0\n"), "n1.tasks:2: task 1 a second time");
  std::string many;
  for (std::size_t i = 0; i <= kMaxTaskTimesPerNode; ++i) many += std::to_string(i) + " 1 2 0\n";
  EXPECT_THAT(error_of(many), HasSubstr("more than 65536 tasks"));
}

TEST(TaskTimes, FileNamesAreHostNamesThatCannotLeaveTheDirectory) {
  EXPECT_EQ(task_times_file("/d", "n1"), "/d/n1.tasks");
  EXPECT_THROW((void)task_times_file("/d", "../n1"), Error);
  EXPECT_THROW((void)task_times_file("/d", "a/b"), Error);
  EXPECT_THROW((void)task_times_file("/d", ""), Error);
}

TEST(TaskTimes, ShellExitStatusOfAWaitStatus) {
  EXPECT_EQ(shell_exit_status(0), 0);
  EXPECT_EQ(shell_exit_status(3 << 8), 3);
  EXPECT_EQ(shell_exit_status(SIGKILL), 137);
}

}  // namespace
}  // namespace hetscale
