// Programs run a few at a time, each with its output (stdout and stderr) in a log file and
// its working directory: the simulations of a round (runner.cpp) and the probes of its
// machine sets (probe.cpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hetscale::twin::detail {

struct Program {
  std::vector<std::string> argv;  // argv[0] an absolute path
  std::vector<std::string> env;   // NAME=VALUE, the whole environment
  std::filesystem::path log;
  std::filesystem::path directory;
};

/// An executable file, as the shell would find it: `name` itself when it has a '/', else
/// the first match in PATH.
std::optional<std::filesystem::path> find_program(const std::string& name);

/// The caller's environment without any HETSCALE_* (a plugin's weights or a record file of
/// the caller's own step must not leak into a simulation), plus `extra`.
std::vector<std::string> clean_environment(const std::vector<std::string>& extra);

/// Runs the programs 0 .. count - 1, `jobs` at a time: `prepare(i)` gives program i (none:
/// it is not run, and `finished` is not called for it), `finished(i, exit_status,
/// host_seconds)` is called as each ends, in the order they end. The exit status is
/// the program's, 128 + n when signal n killed it, -1 when it could not be started (the
/// reason then in its log).
void run_programs(std::size_t count, unsigned jobs, const std::function<std::optional<Program>(std::size_t)>& prepare,
                  const std::function<void(std::size_t, int, double)>& finished);

}  // namespace hetscale::twin::detail
