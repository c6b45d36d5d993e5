#include "hetscale/jobgen/step_record.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_limits.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/model/workload.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/record_after_step.hpp"

namespace hetscale::jobgen {
namespace {

// The record's weights_source for the weights the step asked for: the plugin's sources by
// name, a partition file as "file", none ("off") as "" (not known).
std::string weights_source(const std::string& weights) {
  if (weights == "off" || weights.empty()) return "";
  if (weights == "marked" || weights == "equalized") return weights;
  return "file";
}

}  // namespace

std::vector<std::string> rank_hosts_of(std::string_view nodes, std::size_t tasks_per_node) {
  std::vector<std::string> out;
  for (const std::string& node : expand_hostlist(nodes))
    for (std::size_t t = 0; t < tasks_per_node; ++t) out.push_back(node);
  if (out.empty()) throw Error(fmt::format("no ranks on nodes '{}' with {} tasks per node", nodes, tasks_per_node));
  return out;
}

std::vector<std::string> rank_hosts_of_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(file.string() + ": cannot read");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  if (out.empty()) throw Error(file.string() + ": names no host");
  return out;
}

namespace {

// W of the step, from the spec's formula at the step's parameter value.
double step_work(const StepDescription& step) {
  const double work = Workload::parse(step.workload).evaluate({{step.parameter, step.parameter_value}});
  if (!std::isfinite(work) || work <= 0 || work > kMaxWork) {
    throw Error(fmt::format("the workload {} at {}={} is W = {}, not a number in (0, {:g}]", step.workload,
                            step.parameter, step.parameter_value, work, kMaxWork));
  }
  return work;
}

}  // namespace

RunRecord step_run_record(const StepDescription& step, const StepOutcome& outcome,
                          const RecordEnvironment& environment) {
  const double work = step_work(step);
  const ParameterValues parameters{{step.parameter, step.parameter_value}};
  if (step.rank_hosts.empty()) throw Error("a step record needs the step's ranks");
  RunRecord record;
  record.experiment = environment.experiment;
  record.code = step.code;
  record.workload = step.workload;
  record.parameters = parameters;
  record.work = work;
  // The record's T is positive: a step shorter than the clock's resolution takes 1 ns.
  record.wall_seconds = std::clamp(outcome.wall_seconds, 1e-9, kMaxSeconds);
  record.marked_speed = step.marked_speed;
  record.speed_unit = step.speed_unit;
  record.weights_source = weights_source(step.weights);
  // From outside, a rank's share and its own times are not known: every rank gets the
  // nominal share 1/p and the step's wall time, no compute or communication time.
  const double share = 1.0 / static_cast<double>(step.rank_hosts.size());
  for (std::size_t i = 0; i < step.rank_hosts.size(); ++i) {
    record.ranks.push_back(RankTiming{static_cast<int>(i), step.rank_hosts[i], share, 0, 0, 0, record.wall_seconds});
  }
  record.slurm = environment.slurm;
  // The wrapper runs in the batch step: the srun step's id is not known to it, the
  // step's nodes are the set's.
  record.slurm.step_id.reset();
  std::vector<std::string> nodes = sort_hostnames(step.rank_hosts);
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  record.slurm.node_list = compress_hostlist(nodes);
  record.machine_set = environment.machine_set;
  record.repetition = environment.repetition;
  record.start_time = utc_timestamp(outcome.start);
  record.end_time = utc_timestamp(outcome.end);
  record.verified = outcome.exit_status == 0;  // the only check known from outside
  record.fingerprint = {{"software", {{"timed_until", "step_exit"}}}, {"hardware", nlohmann::json::object()}};
  record.timed_by = "step";
  record.ranks_timed_by = "step";
  record.exit_status = outcome.exit_status;
  return record;
}

std::size_t count_record_lines(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return 0;
  return static_cast<std::size_t>(
      std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
}

std::optional<std::string> apply_task_times(RunRecord& record,
                                            const std::map<std::string, std::vector<TaskTime>>& by_host) {
  const std::size_t ranks = record.ranks.size();
  // Each node's file names its host and each line its task's global id, which is the rank:
  // a rank's time and its host come from the same file, whatever the placement (block,
  // cyclic, slurm.conf's node order).
  std::vector<const TaskTime*> of_rank(ranks, nullptr);
  std::vector<const std::string*> host_of_rank(ranks, nullptr);
  std::map<std::string, std::size_t> planned;  // the step's hosts and their ranks
  for (const RankTiming& rank : record.ranks) ++planned[rank.host];
  std::size_t tasks = 0;
  for (const auto& [host, times] : by_host) {
    if (!times.empty() && !planned.contains(host)) {
      return fmt::format("the plugin timed tasks on {}, which is not one of the step's nodes", host);
    }
    for (const TaskTime& time : times) {
      ++tasks;
      if (time.task >= ranks) return fmt::format("the plugin timed task {}, but the step has {} ranks", time.task, ranks);
      if (of_rank[time.task]) return fmt::format("the plugin timed task {} on two nodes", time.task);
      of_rank[time.task] = &time;
      host_of_rank[time.task] = &host;
    }
  }
  if (tasks != ranks) {
    return tasks == 0 ? std::string("no task times (is the SPANK plugin hetscale.so loaded on the step's nodes?)")
                      : fmt::format("the plugin timed {} of the step's {} tasks", tasks, ranks);
  }
  for (const auto& [host, count] : planned) {
    const auto timed = by_host.find(host);
    const std::size_t on_host = timed == by_host.end() ? 0 : timed->second.size();
    if (on_host != count) {
      return fmt::format("the plugin timed {} tasks on {}, where the step's layout has {}", on_host, host, count);
    }
  }
  for (std::size_t i = 0; i < ranks; ++i) {
    record.ranks[i].host = *host_of_rank[i];
    record.ranks[i].wall_seconds =
        std::min(static_cast<double>(of_rank[i]->exit_ns - of_rank[i]->start_ns) * 1e-9, kMaxSeconds);
  }
  record.ranks_timed_by = "spank";
  record.node_times.clear();
  std::vector<std::string> hosts;
  for (const auto& [host, times] : by_host)
    if (!times.empty()) hosts.push_back(host);
  for (const std::string& host : sort_hostnames(hosts)) {
    const std::vector<TaskTime>& times = by_host.at(host);
    std::int64_t start = times.front().start_ns;
    std::int64_t end = times.front().exit_ns;
    for (const TaskTime& time : times) {
      start = std::min(start, time.start_ns);
      end = std::max(end, time.exit_ns);
    }
    using std::chrono::nanoseconds;
    using std::chrono::system_clock;
    const auto at = [](std::int64_t ns) {
      return utc_timestamp(system_clock::time_point(std::chrono::duration_cast<system_clock::duration>(nanoseconds(ns))));
    };
    record.node_times.push_back(NodeTime{host, static_cast<int>(times.size()), at(start), at(end),
                                         std::min(static_cast<double>(end - start) * 1e-9, kMaxSeconds)});
  }
  return std::nullopt;
}

std::map<std::string, std::vector<TaskTime>> read_task_times(const std::filesystem::path& dir) {
  std::map<std::string, std::vector<TaskTime>> out;
  for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(dir)) {
    const std::filesystem::path& path = entry.path();
    if (path.extension() != ".tasks") continue;
    const std::string host = path.stem().string();
    (void)task_times_file(dir, host);  // refuses a name no node could have written
    out[host] = parse_task_times(read_regular_file(path, kMaxTaskTimesFileBytes), path.string());
  }
  return out;
}

StepOutcome run_timed_step(std::span<const std::string> argv, const std::filesystem::path& directory,
                           std::span<const std::string> environment) {
  if (argv.empty()) throw Error("no step to run: give it after --");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  StepOutcome outcome;
  outcome.start = std::chrono::system_clock::now();
  const auto begin = std::chrono::steady_clock::now();
  const pid_t child = ::fork();
  if (child < 0) throw Error(std::string("cannot start the step: fork: ") + std::strerror(errno));
  if (child == 0) {
    for (const std::string& assignment : environment) ::putenv(const_cast<char*>(assignment.c_str()));
    if (!directory.empty() && ::chdir(directory.c_str()) != 0) {
      const std::string message =
          fmt::format("hetscale: cannot change to {}: {}\n", directory.string(), std::strerror(errno));
      [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, message.data(), message.size());
      ::_exit(127);
    }
    ::execvp(args[0], args.data());
    const std::string message = fmt::format("hetscale record step: cannot run {}: {}\n", argv[0], std::strerror(errno));
    [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw Error(std::string("cannot wait for the step: ") + std::strerror(errno));
  }
  outcome.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  outcome.end = std::chrono::system_clock::now();
  outcome.exit_status = shell_exit_status(status);
  return outcome;
}

namespace {

// The step's empty directory of task times beside the record file, removed with this.
struct TaskTimesDir {
  std::optional<std::filesystem::path> path;
  std::string error;

  explicit TaskTimesDir(const std::optional<std::string>& record_file) {
    if (!record_file) return;
    std::filesystem::path parent = std::filesystem::absolute(*record_file).parent_path();
    std::string pattern = (parent / ".hetscale-task-times.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      error = fmt::format("cannot make a directory for the task times in {}: {}", parent.string(), std::strerror(errno));
      return;
    }
    path = pattern;
  }
  TaskTimesDir(const TaskTimesDir&) = delete;
  TaskTimesDir& operator=(const TaskTimesDir&) = delete;
  ~TaskTimesDir() {
    std::error_code ignored;
    if (path) std::filesystem::remove_all(*path, ignored);
  }
};

}  // namespace

StepRecordResult record_step(const StepDescription& step, std::span<const std::string> argv,
                             const RecordEnvironment& environment) {
  // Checked before the step runs: a formula that gives no W must not cost a step.
  if (environment.record_file) (void)step_work(step);
  const std::size_t before = environment.record_file ? count_record_lines(*environment.record_file) : 0;
  StepRecordResult result;
  TaskTimesDir times(environment.record_file);
  std::vector<std::string> child_environment;
  if (times.path) child_environment.push_back(std::string(kTaskTimesDirEnv) + "=" + times.path->string());
  result.outcome = run_timed_step(argv, {}, child_environment);
  if (!environment.record_file) {
    result.skipped_because = "HETSCALE_RECORD is not set";
    return result;
  }
  // The step has run: nothing may cost its exit status, which the caller passes on.
  const RecordAfterStep record = append_record_after_step(*environment.record_file, [&]() -> std::optional<RunRecord> {
    if (count_record_lines(*environment.record_file) > before) {
      result.skipped_because = "the step wrote its own record";
      return std::nullopt;
    }
    RunRecord out = step_run_record(step, result.outcome, environment);
    if (!times.path) {
      result.nominal_because = times.error;
    } else {
      // Whatever goes wrong with the times (a bad file, the directory gone: filesystem
      // errors are not hetscale::Error), the step's record is still written.
      try {
        result.nominal_because = apply_task_times(out, read_task_times(*times.path));
      } catch (const std::exception& error) {
        result.nominal_because = error.what();
      }
    }
    return out;
  });
  result.written = record.written;
  result.not_written_because = record.not_written_because;
  return result;
}

}  // namespace hetscale::jobgen
