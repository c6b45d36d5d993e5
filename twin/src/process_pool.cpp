#include "process_pool.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/executable_search.hpp"

extern char** environ;

namespace hetscale::twin::detail {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Starts `program` with its output in its log. Returns the pid, or -1 with `error`.
pid_t spawn(Program& program, std::string& error) {
  const std::string log = program.log.string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addchdir_np(&actions, program.directory.c_str());
  pid_t pid = -1;
  auto args = pointers(program.argv);
  auto envp = pointers(program.env);
  const int failed = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) {
    error = fmt::format("{}: {}", program.argv[0], std::strerror(failed));
    return -1;
  }
  return pid;
}

struct Running {
  std::size_t index = 0;
  pid_t pid = -1;
  Clock::time_point started;
};

}  // namespace

std::optional<std::filesystem::path> find_program(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return ::access(name.c_str(), X_OK) == 0 ? std::optional<std::filesystem::path>(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  return find_on_path(name, path != nullptr ? path : "/usr/bin:/bin", {});
}

std::vector<std::string> clean_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "HETSCALE_", 9) != 0) env.emplace_back(*e);
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

void run_programs(std::size_t count, unsigned jobs, const std::function<std::optional<Program>(std::size_t)>& prepare,
                  const std::function<void(std::size_t, int, double)>& finished) {
  std::size_t next = 0;
  std::vector<Running> running;
  while (next < count || !running.empty()) {
    while (next < count && running.size() < std::max(1u, jobs)) {
      const std::size_t index = next++;
      std::optional<Program> program = prepare(index);
      if (!program) continue;
      std::string error;
      const pid_t pid = spawn(*program, error);
      if (pid < 0) {
        write_file_atomically(program->log, error + "\n");
        finished(index, -1, 0);
        continue;
      }
      running.push_back({index, pid, Clock::now()});
    }
    bool reaped = false;
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      const pid_t done = ::waitpid(it->pid, &status, WNOHANG);
      if (done == 0 || (done < 0 && errno == EINTR)) {
        ++it;
        continue;
      }
      reaped = true;
      const double seconds = std::chrono::duration<double>(Clock::now() - it->started).count();
      const int exit_status = done < 0               ? -1
                              : WIFEXITED(status)    ? WEXITSTATUS(status)
                              : WIFSIGNALED(status)  ? 128 + WTERMSIG(status)
                                                     : -1;
      const std::size_t index = it->index;
      it = running.erase(it);
      finished(index, exit_status, seconds);
    }
    if (!reaped && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace hetscale::twin::detail
