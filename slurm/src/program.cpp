// Running a Slurm client (slurm/include/hetscale/slurm/program.hpp).
#include "hetscale/slurm/program.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace hetscale::slurm {
namespace {

using Output = ProgramOutput;

// Appends what the fds give until both are closed (true) or the timeout passes (false).
bool read_until_closed(int out_fd, std::string& out, int err_fd, std::string& err, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* texts[2] = {&out, &err};
  for (;;) {
    if (fds[0].fd < 0 && fds[1].fd < 0) return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;  // poll ignores negative fds
        continue;
      }
      texts[i]->append(buffer, static_cast<std::size_t>(n));
    }
  }
}

}  // namespace

ProgramOutput run_program(const std::vector<std::string>& argv, bool separate_errors, std::chrono::seconds timeout,
                          const std::string& directory) {
  int out_pipe[2];
  int err_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return {-1, std::strerror(errno), {}};
  if (separate_errors && ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return {-1, std::strerror(errno), {}};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, separate_errors ? err_pipe[1] : out_pipe[1], 2);
  if (!directory.empty()) posix_spawn_file_actions_addchdir_np(&actions, directory.c_str());
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  if (separate_errors) ::close(err_pipe[1]);
  Output out;
  if (spawned != 0) {
    ::close(out_pipe[0]);
    if (separate_errors) ::close(err_pipe[0]);
    return {-1, argv[0] + ": " + std::strerror(spawned), {}};
  }
  const bool answered = read_until_closed(out_pipe[0], out.text, err_pipe[0], out.errors, timeout);
  ::close(out_pipe[0]);
  if (separate_errors) ::close(err_pipe[0]);
  if (!answered) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!answered) return {-1, fmt::format("{} gave no answer within {} s", argv[0], timeout.count()), {}};
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

}  // namespace hetscale::slurm
