// Batch arrays complete and leave one jobcomp/filetxt line per task.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> completion_lines(const Testbed& tb, const std::string& array_job) {
  std::vector<std::string> lines;
  std::ifstream in(tb.jobcomp_log());
  std::string line;
  while (std::getline(in, line))
    if (line.find(" ArrayJobId=" + array_job + " ") != std::string::npos) lines.push_back(line);
  return lines;
}

TEST(Batch, AnArrayOfEightTasksLeavesEightCompletionLines) {
  const Testbed tb = Testbed::from_env();
  const auto r = run_command({"sbatch", "--parsable", "--array=0-7", "--output=/dev/null",
                              "--chdir=/tmp", "--wrap", "hostname"},
                             30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string job = split_lines(r.out).at(0);
  ASSERT_FALSE(job.empty());
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (completion_lines(tb, job).size() < 8 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(100ms);
  const auto lines = completion_lines(tb, job);
  ASSERT_EQ(lines.size(), 8U) << "array job " << job;
  std::set<std::string> tasks;
  for (const auto& line : lines) {
    EXPECT_NE(line.find(" JobState=COMPLETED "), std::string::npos) << line;
    const auto at = line.find(" ArrayTaskId=");
    ASSERT_NE(at, std::string::npos) << line;
    tasks.insert(line.substr(at + 13, line.find(' ', at + 13) - at - 13));
  }
  EXPECT_EQ(tasks, (std::set<std::string>{"0", "1", "2", "3", "4", "5", "6", "7"}));
}

TEST(Batch, SbatchUidRunsTheJobAsTheUnprivilegedTestUser) {
  const Testbed tb = Testbed::from_env();
  const auto dir = std::filesystem::path(HETSCALE_BINARY_DIR) / "testbed" / "uid-check";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ASSERT_EQ(chmod(dir.c_str(), 01777), 0);  // the job, as hetscale-test, writes here
  const auto out = dir / "out";
  const auto r =
      run_command({"sbatch", "--parsable", "--uid=hetscale-test", "--chdir=" + dir.string(),
                   "--output=" + out.string(), "--wrap", "id -un"},
                  60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string job = split_lines(r.out).at(0);
  // Completion through the jobcomp file (sbatch --wait polls every few seconds only).
  const auto completed = [&] {
    std::ifstream log(tb.jobcomp_log());
    std::string line;
    while (std::getline(log, line))
      if (line.rfind("JobId=" + job + " ", 0) == 0) return true;
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!completed() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(completed()) << "job " << job << " did not complete";
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "hetscale-test\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetscale::test
