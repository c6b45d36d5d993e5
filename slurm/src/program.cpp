// Running a Slurm client (slurm/include/hetscale/slurm/program.hpp).
#include "hetscale/slurm/program.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace hetscale::slurm {
namespace {

using Output = ProgramOutput;

// Why reading stopped before both fds were closed.
enum class Cut { none, timed_out, too_much_output };

using Clock = std::chrono::steady_clock;

// Appends what the fds give until both are closed, the deadline passes or more than
// `max_bytes` have come.
Cut read_until_closed(int out_fd, std::string& out, int err_fd, std::string& err, Clock::time_point deadline,
                      std::size_t max_bytes) {
  char buffer[65536];
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* texts[2] = {&out, &err};
  for (;;) {
    if (fds[0].fd < 0 && fds[1].fd < 0) return Cut::none;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Cut::timed_out;
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return Cut::timed_out;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;  // poll ignores negative fds
        continue;
      }
      texts[i]->append(buffer, static_cast<std::size_t>(n));
      if (out.size() + err.size() > max_bytes) return Cut::too_much_output;
    }
  }
}

// Reaps `pid` into `status` unless it is still running at the deadline (false): a program
// may close its outputs and go on.
bool reaped_by(pid_t pid, Clock::time_point deadline, int& status) {
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // not our child: nothing left to wait for
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, left));
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

std::string size_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

}  // namespace

ProgramOutput run_program(const std::vector<std::string>& argv, bool separate_errors, const ProgramLimits& limits,
                          const std::string& directory) {
  Output out;
  int out_pipe[2];
  int err_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    out.text = std::strerror(errno);
    return out;
  }
  if (separate_errors && ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    out.text = std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, separate_errors ? err_pipe[1] : out_pipe[1], 2);
  if (!directory.empty()) posix_spawn_file_actions_addchdir_np(&actions, directory.c_str());
  // A process group of its own (its id is the child's pid): a kill reaches whatever the
  // program started (a script's sbatch, a client's helpers) too.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  if (separate_errors) ::close(err_pipe[1]);
  if (spawned != 0) {
    ::close(out_pipe[0]);
    if (separate_errors) ::close(err_pipe[0]);
    out.text = argv[0] + ": " + std::strerror(spawned);
    return out;
  }
  const auto deadline = Clock::now() + limits.timeout;
  Cut cut = read_until_closed(out_pipe[0], out.text, err_pipe[0], out.errors, deadline, limits.max_output_bytes);
  ::close(out_pipe[0]);
  if (separate_errors) ::close(err_pipe[0]);
  int status = 0;
  if (cut == Cut::none && !reaped_by(pid, deadline, status)) cut = Cut::timed_out;
  if (cut != Cut::none) {
    // The child is not reaped yet, so its pid still names its group.
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  switch (cut) {
    case Cut::timed_out:
      return {Output::End::timed_out, -1, fmt::format("{} gave no answer within {} s", argv[0], limits.timeout.count()),
              {}};
    case Cut::too_much_output:
      return {Output::End::too_much_output, -1,
              fmt::format("{} printed more than {}, the most hetscale reads of one answer; it was stopped", argv[0],
                          size_text(limits.max_output_bytes)),
              {}};
    case Cut::none:
      break;
  }
  out.end = Output::End::exited;
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

}  // namespace hetscale::slurm
