// Helpers for integration tests (tests/integration/CMakeLists.txt links them into every
// suite as hetscale::testsupport): run a command with a timeout, read the testbed's
// environment. Plain C++, no GoogleTest dependency.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace hetscale::test {

struct CommandResult {
  int exit_code = -1;      // exit status, or 128 + signal number when killed by a signal
  bool timed_out = false;  // killed (with its whole process group) after the timeout
  std::string out;         // everything written to stdout
  std::string err;         // everything written to stderr

  [[nodiscard]] bool ok() const { return !timed_out && exit_code == 0; }
  /// One line for assertion messages: exit code, timeout flag, stdout and stderr.
  [[nodiscard]] std::string describe() const;
};

/// Runs argv[0] (searched in PATH) with argv, stdin from /dev/null, capturing stdout and
/// stderr. `extra_env` entries ("NAME=value") are added to (or override) the inherited
/// environment. The child gets its own process group, which is SIGKILLed on timeout.
CommandResult run_command(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout = std::chrono::seconds(60),
                          const std::vector<std::string>& extra_env = {});

/// Splits text into lines (without the newlines; no empty last line).
std::vector<std::string> split_lines(const std::string& text);

}  // namespace hetscale::test
