// run_program: a Slurm client in a process group of its own, stopped (with whatever it
// started) at its timeout or once it has printed more than its bound.
#include "hetscale/slurm/program.hpp"

#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace hetscale::slurm {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr std::size_t mib = std::size_t{1} << 20;

TEST(RunProgram, AnAnswerIsKeptWithItsStatus) {
  const ProgramOutput out = run_program({"sh", "-c", "echo out; echo err >&2; exit 3"}, true, {10s, mib});
  EXPECT_EQ(out.end, ProgramOutput::End::exited);
  EXPECT_EQ(out.status, 3);
  EXPECT_EQ(out.text, "out\n");
  EXPECT_EQ(out.errors, "err\n");
}

// `yes` never ends: it is stopped as soon as it passes the bound, long before its timeout.
TEST(RunProgram, OutputPastItsBoundStopsTheProgramWithinASanityBound) {
  const auto start = std::chrono::steady_clock::now();
  const ProgramOutput out = run_program({"yes"}, false, {60s, mib});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
  EXPECT_EQ(out.end, ProgramOutput::End::too_much_output);
  EXPECT_EQ(out.status, -1);
  EXPECT_EQ(out.text, "yes printed more than 1 MiB, the most hetscale reads of one answer; it was stopped");
}

// Whether process `pid` has ended: gone, or a zombie its new parent has not reaped yet.
bool ended(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return true;
  const std::size_t name_end = text.rfind(')');
  return name_end != std::string::npos && text.compare(name_end + 2, 1, "Z") == 0;
}

// A script that starts a sleeping child and waits for it: at the timeout both are killed,
// not the script alone.
TEST(RunProgram, ATimeoutKillsWhatTheProgramStarted) {
  const fs::path pid_file = fs::temp_directory_path() / ("hetscale-program-" + std::to_string(::getpid()));
  const ProgramOutput out =
      run_program({"sh", "-c", "sleep 300 & echo $! > " + pid_file.string() + "; wait"}, false, {1s, mib});
  EXPECT_EQ(out.end, ProgramOutput::End::timed_out);
  EXPECT_EQ(out.text, "sh gave no answer within 1 s");
  pid_t child = 0;
  std::ifstream(pid_file) >> child;
  fs::remove(pid_file);
  ASSERT_GT(child, 0);
  for (int i = 0; i < 50 && !ended(child); ++i) std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(ended(child)) << "the script's child " << child << " still runs";
  if (!ended(child)) ::kill(child, SIGKILL);
}

// A client that closes its outputs and goes on is killed at its timeout too, with what it
// started, not waited for.
TEST(RunProgram, AProgramThatClosesItsOutputsAndRunsOnIsKilledAtItsTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const ProgramOutput out = run_program({"sh", "-c", "exec >/dev/null 2>&1; sleep 30"}, true, {1s, mib});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
  EXPECT_EQ(out.end, ProgramOutput::End::timed_out);
  EXPECT_EQ(out.status, -1);
  EXPECT_EQ(out.text, "sh gave no answer within 1 s");
}

TEST(RunProgram, AProgramThatDoesNotExistIsNotStarted) {
  const ProgramOutput out = run_program({"hetscale-no-such-program"}, false, {10s, mib});
  EXPECT_EQ(out.end, ProgramOutput::End::not_started);
  EXPECT_EQ(out.text, "hetscale-no-such-program: No such file or directory");
}

}  // namespace
}  // namespace hetscale::slurm
