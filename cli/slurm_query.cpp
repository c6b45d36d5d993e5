#include "slurm_query.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "hetscale/error.hpp"

extern char** environ;

namespace hetscale::cli {
namespace {

struct Output {
  int status = -1;   // exit status; -1 when the program could not be started
  std::string text;  // stdout and stderr together
};

// scontrol retries for a minute when slurm.conf is missing or the controller is slow;
// a check that may be skipped must not hold jobgen up that long.
constexpr std::chrono::seconds answer_timeout{10};

// Appends what `fd` gives until it is closed (true) or the timeout passes (false).
bool read_until_closed(int fd, std::string& text) {
  const auto deadline = std::chrono::steady_clock::now() + answer_timeout;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

// Runs argv (searched in PATH) with stdin from /dev/null; no shell, so the partition
// name cannot be taken for anything but an argument.
Output run_program(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return {-1, std::strerror(errno)};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  Output out;
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return {-1, argv[0] + ": " + std::strerror(spawned)};
  }
  const bool answered = read_until_closed(pipe_fds[0], out.text);
  ::close(pipe_fds[0]);
  if (!answered) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!answered)
    return {-1, fmt::format("{} gave no answer within {} s", argv[0], answer_timeout.count())};
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// Why Slurm cannot be asked without trying: Slurm's own wait for a missing configuration
// file is a minute of retries.
std::string missing_configuration() {
  if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && !std::filesystem::exists(conf))
    return fmt::format("SLURM_CONF names no file: {}", conf);
  return {};
}

}  // namespace

PartitionQuery query_partition(const std::string& name) {
  PartitionQuery q;
  q.detail = missing_configuration();
  if (!q.detail.empty()) return q;
  const Output out = run_program({"scontrol", "show", "partition", name, "--oneliner"});
  if (out.status == 0) {
    try {
      q.partition = jobgen::parse_scontrol_partition(out.text);
      q.status = PartitionQuery::Status::found;
    } catch (const Error& e) {
      q.detail = e.what();
    }
    return q;
  }
  // "Partition batch not found" is Slurm's answer; anything else means it was not asked.
  if (out.status > 0 && out.text.find("not found") != std::string::npos &&
      out.text.find("Partition") != std::string::npos) {
    q.status = PartitionQuery::Status::unknown;
    return q;
  }
  q.detail = first_line(out.text);
  return q;
}

NodeStatesQuery query_node_states() {
  NodeStatesQuery q;
  q.detail = missing_configuration();
  if (!q.detail.empty()) return q;
  const Output nodes = run_program({"scontrol", "show", "node", "--oneliner"});
  if (nodes.status != 0) {
    q.detail = first_line(nodes.text);
    return q;
  }
  const Output reservations = run_program({"scontrol", "show", "reservation", "--oneliner"});
  if (reservations.status != 0) {
    q.detail = first_line(reservations.text);
    return q;
  }
  q.states.nodes = jobgen::parse_scontrol_nodes(nodes.text);
  q.states.reservations = jobgen::parse_scontrol_reservations(reservations.text);
  q.reachable = true;
  return q;
}

}  // namespace hetscale::cli
