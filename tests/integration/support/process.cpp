#include "support/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace hetscale::test {
namespace {

using Clock = std::chrono::steady_clock;

// The inherited environment with `extra` entries added or overriding.
std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    vars[entry.substr(0, entry.find('='))] = entry;
  }
  for (const auto& entry : extra) {
    if (entry.find('=') == std::string::npos)
      throw std::invalid_argument("run_command: env entry without '=': " + entry);
    vars[entry.substr(0, entry.find('='))] = entry;
  }
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (auto& [name, entry] : vars) out.push_back(std::move(entry));
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct Pipe {
  std::array<int, 2> fd{-1, -1};
  Pipe() {
    if (pipe2(fd.data(), O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void close_end(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
};

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::string CommandResult::describe() const {
  return "exit " + std::to_string(exit_code) + (timed_out ? " (timed out)" : "") +
         "\n--- stdout\n" + out + "--- stderr\n" + err;
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::vector<std::string>& extra_env) {
  if (argv.empty()) throw std::invalid_argument("run_command: empty argv");
  std::vector<std::string> args = argv;
  std::vector<std::string> env = merged_environment(extra_env);
  std::vector<char*> c_args = c_strings(args);
  std::vector<char*> c_env = c_strings(env);
  Pipe out_pipe;
  Pipe err_pipe;

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_pipe.fd[1], 1) < 0 ||
        dup2(err_pipe.fd[1], 2) < 0)
      _exit(126);
    execvpe(c_args[0], c_args.data(), c_env.data());
    const std::string msg =
        "run_command: cannot execute " + args[0] + ": " + std::strerror(errno) + "\n";
    [[maybe_unused]] auto n = write(2, msg.data(), msg.size());
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  out_pipe.close_end(1);
  err_pipe.close_end(1);

  CommandResult result;
  const auto deadline = Clock::now() + timeout;
  std::array<pollfd, 2> fds{pollfd{out_pipe.fd[0], POLLIN, 0}, pollfd{err_pipe.fd[0], POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_fds = 2;
  int status = 0;
  bool reaped = false;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    if (open_fds > 0) {
      const int ready =
          poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count(), 100)));
      if (ready < 0 && errno != EINTR)
        throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        std::array<char, 4096> buffer{};
        const ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
        if (n > 0) {
          sinks[i]->append(buffer.data(), static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          fds[i].fd = -1;
          --open_fds;
        }
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (open_fds == 0 || !reaped) {
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) reaped = true;
    }
    if (reaped && open_fds == 0) break;
  }
  if (result.timed_out) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    if (!reaped) waitpid(pid, &status, 0);
    result.exit_code = decode_status(status);
    return result;
  }
  result.exit_code = decode_status(status);
  return result;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace hetscale::test
