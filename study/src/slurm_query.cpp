#include "hetscale/study/slurm_query.hpp"

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
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <vector>

#include "hetscale/base/error.hpp"

extern char** environ;

namespace hetscale::study {
namespace {

using Output = ProgramOutput;

// scontrol retries for a minute when slurm.conf is missing or the controller is slow;
// a check that may be skipped must not hold jobgen up that long.
constexpr std::chrono::seconds answer_timeout{10};
// sacct over a long window at a large site takes longer than a quick check may.
constexpr std::chrono::seconds accounting_timeout{120};

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

namespace {

// Where Slurm cannot be asked because SLURM_CONF names no file: Slurm's own wait for a
// missing configuration file is a minute of retries. Empty when it may be asked.
std::string missing_slurm_conf() {
  if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && !std::filesystem::exists(conf))
    return fmt::format("SLURM_CONF names no file: {}", conf);
  return {};
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

PartitionQuery query_partition(const std::string& name) {
  PartitionQuery q;
  q.detail = missing_slurm_conf();
  if (!q.detail.empty()) return q;
  const Output out = run_program({"scontrol", "show", "partition", name, "--oneliner"}, false, answer_timeout);
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

std::optional<std::string> query_cluster_name() {
  if (!missing_slurm_conf().empty()) return std::nullopt;
  const Output out = run_program({"scontrol", "show", "config"}, false, answer_timeout);
  if (out.status != 0) return std::nullopt;
  std::istringstream lines(out.text);
  std::string line;
  while (std::getline(lines, line)) {
    // "ClusterName             = hetscale"
    if (line.rfind("ClusterName", 0) != 0) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) return std::nullopt;
    const auto begin = line.find_first_not_of(' ', eq + 1);
    if (begin == std::string::npos) return std::nullopt;
    const auto end = line.find_last_not_of(" \r");
    return line.substr(begin, end - begin + 1);
  }
  return std::nullopt;
}

SubmissionTest test_submission(const std::string& script) {
  SubmissionTest t;
  t.detail = missing_slurm_conf();
  if (!t.detail.empty()) return t;
  const Output out = run_program({"sbatch", "--test-only", script}, false, answer_timeout);
  if (out.status == 0) {
    t.status = SubmissionTest::Status::accepted;
    return t;
  }
  // Slurm's refusals: "allocation failure: Invalid qos specification", "sbatch: error:
  // invalid partition specified: x", "sbatch: unrecognized option '--x'". Not being able
  // to talk to the controller is no refusal.
  const std::string& text = out.text;
  const bool unreachable = out.status < 0 || text.find("Unable to contact") != std::string::npos ||
                           text.find("Socket timed out") != std::string::npos ||
                           text.find("fetch config") != std::string::npos;
  if (!unreachable) t.status = SubmissionTest::Status::refused;
  // The most telling line: Slurm's last.
  std::string last;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) last = line;
  t.detail = last.empty() ? first_line(text) : last;
  return t;
}

std::string submit_round(const std::string& directory) {
  // sbatch waits for a busy controller; a study of many sets takes a while to submit.
  const Output out = run_program({(std::filesystem::path(directory) / "submit.sh").string()}, false,
                                 std::chrono::seconds(600));
  if (out.status != 0) throw Error(fmt::format("submitting {} failed: {}", directory, out.text));
  return out.text;
}

std::uint64_t submit_job(const std::string& script, const std::string& directory,
                         const std::vector<std::uint64_t>& after_any) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  if (!after_any.empty()) {
    std::string ids;
    for (const auto id : after_any) ids += fmt::format(":{}", id);
    argv.push_back("--dependency=afterany" + ids);
  }
  argv.push_back(script);
  const Output out = run_program(argv, true, std::chrono::seconds(120), directory);
  if (out.status != 0)
    throw Error(fmt::format("sbatch {} (in {}) failed: {}", script, directory,
                            first_line(out.errors.empty() ? out.text : out.errors)));
  // --parsable prints "id" or "id;cluster".
  try {
    return std::stoull(out.text.substr(0, out.text.find_first_of(";\n")));
  } catch (const std::exception&) {
    throw Error(fmt::format("sbatch {} printed no job id: {}", script, first_line(out.text)));
  }
}

std::vector<std::uint64_t> active_jobs(const std::vector<std::uint64_t>& job_ids) {
  if (job_ids.empty()) return {};
  if (const std::string missing = missing_slurm_conf(); !missing.empty()) throw Error(missing);
  std::string ids;
  for (const auto id : job_ids) ids += fmt::format("{}{}", ids.empty() ? "" : ",", id);
  // %F: the array's job id for each of its tasks (a single job's own id).
  const Output out = run_program({"squeue", "--noheader", "--format=%F", "--jobs", ids}, true, answer_timeout);
  std::vector<std::uint64_t> active;
  if (out.status != 0) {
    // Jobs that have left slurmctld's memory: nothing of them is active.
    if (out.errors.find("Invalid job id") != std::string::npos) return active;
    throw Error(fmt::format("squeue failed: {}", first_line(out.errors.empty() ? out.text : out.errors)));
  }
  std::istringstream lines(out.text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const std::uint64_t id = std::stoull(line);
    if (std::find(active.begin(), active.end(), id) == active.end()) active.push_back(id);
  }
  return active;
}

AccountingQuery query_accounting(const std::vector<std::string>& sacct_arguments) {
  AccountingQuery q;
  q.detail = missing_slurm_conf();
  if (!q.detail.empty()) return q;
  std::vector<std::string> argv = {"sacct", "--json"};
  argv.insert(argv.end(), sacct_arguments.begin(), sacct_arguments.end());
  const Output out = run_program(argv, true, accounting_timeout);
  if (out.status == 0) {
    q.status = AccountingQuery::Status::answered;
    q.json = out.text;
    return q;
  }
  const std::string said = out.errors.empty() ? out.text : out.errors;
  // sacct's words where slurm.conf has AccountingStorageType=accounting_storage/none.
  if (said.find("accounting storage is disabled") != std::string::npos) {
    q.status = AccountingQuery::Status::disabled;
  }
  q.detail = first_line(said);
  return q;
}

NodeStatesQuery query_node_states() {
  NodeStatesQuery q;
  q.detail = missing_slurm_conf();
  if (!q.detail.empty()) return q;
  const Output nodes = run_program({"scontrol", "show", "node", "--oneliner"}, true, answer_timeout);
  if (nodes.status != 0) {
    q.detail = first_line(nodes.errors.empty() ? nodes.text : nodes.errors);
    return q;
  }
  const Output reservations = run_program({"scontrol", "show", "reservation", "--oneliner"}, true, answer_timeout);
  if (reservations.status != 0) {
    q.detail = first_line(reservations.errors.empty() ? reservations.text : reservations.errors);
    return q;
  }
  q.states.nodes = jobgen::parse_scontrol_nodes(nodes.text);
  q.states.reservations = jobgen::parse_scontrol_reservations(reservations.text);
  q.reachable = true;
  return q;
}

}  // namespace hetscale::study
