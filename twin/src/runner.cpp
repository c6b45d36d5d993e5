// Runs the simulations of a simulated round: smpirun processes, a few at a time, each writing
// its record to a temporary file that is renamed into records/ only when it succeeded.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <sstream>
#include <thread>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/executable_search.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "hetscale/twin/simulated_round.hpp"

extern char** environ;

namespace hetscale::twin {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::string number(double v) { return fmt::format("{}", v); }

fs::path partial_record(const fs::path& dir, const TwinRun& run) {
  return dir / fmt::format("records/.run-{}.jsonl.partial", run.task);
}

// An executable file, as the shell would find it: `name` itself when it has a '/', else
// the first match in PATH.
std::optional<fs::path> find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return ::access(name.c_str(), X_OK) == 0 ? std::optional<fs::path>(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  return find_on_path(name, path != nullptr ? path : "/usr/bin:/bin", {});
}

fs::path kernel_program(const SimulatedRound& simulated, const TwinRunnerOptions& options) {
  return fs::path(options.kernel_dir) /
         fmt::format("hetscale-twin-{}", jobgen::to_string(*simulated.round.spec.code.kernel));
}

// The caller's environment without any HETSCALE_* (a plugin's weights or a record file
// of the caller's own step must not leak into the simulation), plus the run's own.
std::vector<std::string> run_environment(const TwinRun& run) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "HETSCALE_", 9) != 0) env.emplace_back(*e);
  env.push_back(fmt::format("HETSCALE_MACHINE_SET={}", run.set_index));
  env.push_back(fmt::format("HETSCALE_REPETITION={}", run.repetition));
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct Running {
  TwinRun run;
  pid_t pid = -1;
  Clock::time_point started;
};

// Starts smpirun for `run` with its output in the run's log; the working directory is
// the round's directory (smpirun may leave files in it). Returns the pid, or -1 with `error`.
pid_t spawn_run(const fs::path& dir, const SimulatedRound& simulated, const TwinRun& run,
                const TwinRunnerOptions& options, std::string& error) {
  std::vector<std::string> argv = twin_run_command(dir, simulated, run, options);
  std::vector<std::string> env = run_environment(run);
  const std::string log = (dir / twin_log_file(run)).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  pid_t pid = -1;
  auto args = pointers(argv);
  auto envp = pointers(env);
  const int failed = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) {
    error = fmt::format("{}: {}", argv[0], std::strerror(failed));
    return -1;
  }
  return pid;
}

// The record a finished run left, moved into records/; its simulated time.
bool keep_record(const fs::path& dir, const TwinRun& run, double& simulated_seconds, std::string& problem) {
  const fs::path partial = partial_record(dir, run);
  std::error_code ec;
  if (!fs::exists(partial, ec)) {
    problem = "the kernel wrote no record";
    return false;
  }
  try {
    const RunRecordFile file = read_run_records(partial, OnInvalid::fail);
    if (file.records.size() != 1 || file.held_back_line != 0) {
      problem = fmt::format("the kernel wrote {} records, not one", file.records.size());
      return false;
    }
    simulated_seconds = file.records.front().record.wall_seconds;
  } catch (const Error& e) {
    problem = e.what();
    return false;
  }
  try {
    move_file_into_place(partial, dir / twin_record_file(run));
  } catch (const Error& e) {
    problem = e.what();
    return false;
  }
  return true;
}

std::string status_text(std::vector<TwinRunOutcome> outcomes, const SimulatedRound& simulated) {
  std::sort(outcomes.begin(), outcomes.end(),
            [](const TwinRunOutcome& a, const TwinRunOutcome& b) { return a.run.task < b.run.task; });
  std::string out = fmt::format("task\tset\t{}\trepetition\tranks\tstatus\texit\thost_seconds\tsimulated_seconds\n",
                                simulated.round.spec.parameter.name);
  for (const TwinRunOutcome& o : outcomes)
    out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.3f}\t{}\n", o.run.task, o.run.set_index, number(o.run.value),
                       o.run.repetition, o.run.ranks, o.skipped ? "kept" : o.succeeded ? "done" : "failed",
                       o.exit_status, o.host_seconds, number(o.simulated_seconds));
  return out;
}

}  // namespace

std::vector<std::string> twin_run_command(const fs::path& dir, const SimulatedRound& simulated, const TwinRun& run,
                                          const TwinRunnerOptions& options) {
  const fs::path root = fs::absolute(dir).lexically_normal();
  const jobgen::RoundSet& set = simulated.round.sets.at(run.set_index);
  std::vector<std::string> argv = {
      options.smpirun,
      "-no-privatize",
      "-platform", (root / "platform.xml").string(),
      "-hostfile", (root / jobgen::host_file_name(set)).string(),
      "-np", std::to_string(run.ranks),
      // SMPI's default collectives make a broadcast cost O(ranks^2) simulated messages;
      // Open MPI's selection with a binomial-tree broadcast keeps 1024 ranks cheap.
      "--cfg=smpi/coll-selector:ompi",
      "--cfg=smpi/bcast:binomial_tree",
      // SMPI charges 10 ns and a simulator call for every MPI_Wtime; the kernels time
      // their phases with it (a dozen calls per rank per panel of lu), so none is charged.
      "--cfg=smpi/wtime:0",
      "--log=root.thres:warning",
      kernel_program(simulated, options).string(),
      "-" + simulated.round.spec.parameter.name, number(run.value),
      "--experiment", simulated.round.spec.name,
      "--site", (root / twin_site_file).string(),
      "--platform-hash", simulated.platform_hash,
      "--record", partial_record(root, run).string()};
  if (simulated.compute_efficiency != 1)
    argv.insert(argv.end(), {"--compute-efficiency", number(simulated.compute_efficiency)});
  const std::string& weights = simulated.round.spec.slurm.weights.front();  // the twin's one (check_twin_spec)
  if (weights == "marked" || weights == "off") {
    argv.insert(argv.end(), {"--weights", weights == "off" ? "equal" : "marked"});
  } else {
    const fs::path file(weights);
    argv.insert(argv.end(), {"--weights-file", (file.is_absolute() ? file : root / file).string()});
  }
  return argv;
}

TwinRunnerOptions resolve_twin_tools(const SimulatedRound& simulated, const TwinRunnerOptions& options) {
  const auto smpirun = find_executable(options.smpirun);
  if (!smpirun)
    throw Error(fmt::format("'{}' not found: the twin needs SimGrid's smpirun (Debian: libsimgrid-dev)",
                            options.smpirun));
  const fs::path kernel = kernel_program(simulated, options);
  if (::access(kernel.c_str(), X_OK) != 0)
    throw Error(fmt::format("'{}' not found or not executable: build the twin kernels (SimGrid's smpicxx) "
                            "or give their directory",
                            kernel.string()));
  // Absolute: the simulations run in the round's directory.
  TwinRunnerOptions resolved = options;
  resolved.smpirun = fs::absolute(*smpirun).string();
  resolved.kernel_dir = fs::absolute(options.kernel_dir).string();
  if (resolved.jobs == 0) resolved.jobs = std::max(1u, std::thread::hardware_concurrency());
  return resolved;
}

std::vector<TwinRunOutcome> run_simulated_round(
    const fs::path& dir, const SimulatedRound& simulated, const std::vector<std::size_t>& tasks,
    const TwinRunnerOptions& options,
    const std::function<void(const TwinRunOutcome&, std::size_t, std::size_t)>& progress) {
  const TwinRunnerOptions resolved = resolve_twin_tools(simulated, options);

  std::deque<TwinRun> pending;
  if (tasks.empty()) {
    pending.assign(simulated.runs.begin(), simulated.runs.end());
  } else {
    for (std::size_t t : tasks) {
      if (t >= simulated.runs.size())
        throw Error(fmt::format("task {} does not exist: the study has runs 0 to {}", t,
                                simulated.runs.size() == 0 ? 0 : simulated.runs.size() - 1));
      pending.push_back(simulated.runs[t]);
    }
  }
  fs::create_directories(dir / "records");
  fs::create_directories(dir / "logs");
  const std::size_t total = pending.size();
  std::vector<TwinRunOutcome> outcomes;
  std::vector<Running> running;

  const auto finish = [&](TwinRunOutcome outcome) {
    outcomes.push_back(outcome);
    if (progress) progress(outcomes.back(), outcomes.size(), total);
  };

  while (!pending.empty() || !running.empty()) {
    while (!pending.empty() && running.size() < resolved.jobs) {
      const TwinRun run = pending.front();
      pending.pop_front();
      std::error_code ec;
      if (!options.rerun && fs::exists(dir / twin_record_file(run), ec)) {
        TwinRunOutcome kept{run, true, true, 0, 0, 0};
        try {
          const RunRecordFile file = read_run_records(dir / twin_record_file(run), OnInvalid::fail);
          if (!file.records.empty()) kept.simulated_seconds = file.records.front().record.wall_seconds;
        } catch (const Error&) {
        }
        finish(kept);
        continue;
      }
      fs::remove(dir / twin_record_file(run), ec);
      fs::remove(partial_record(dir, run), ec);
      std::string error;
      const pid_t pid = spawn_run(dir, simulated, run, resolved, error);
      if (pid < 0) {
        write_file_atomically(dir / twin_log_file(run), error + "\n");
        finish({run, false, false, -1, 0, 0});
        continue;
      }
      running.push_back({run, pid, Clock::now()});
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
      TwinRunOutcome outcome{it->run, false, false, 0, 0, 0};
      outcome.host_seconds = std::chrono::duration<double>(Clock::now() - it->started).count();
      outcome.exit_status = done < 0                ? -1
                            : WIFEXITED(status)     ? WEXITSTATUS(status)
                            : WIFSIGNALED(status)   ? 128 + WTERMSIG(status)
                                                    : -1;
      std::string problem;
      if (outcome.exit_status == 0) {
        outcome.succeeded = keep_record(dir, it->run, outcome.simulated_seconds, problem);
        if (!outcome.succeeded) {
          // The run said it succeeded but left no usable record: say so in its log.
          std::FILE* log = std::fopen((dir / twin_log_file(it->run)).c_str(), "a");
          if (log != nullptr) {
            std::fprintf(log, "hetscale twin: %s\n", problem.c_str());
            std::fclose(log);
          }
        }
      }
      if (!outcome.succeeded) {
        std::error_code ec;
        fs::remove(partial_record(dir, it->run), ec);
      }
      it = running.erase(it);
      finish(outcome);
    }
    if (!reaped && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (tasks.empty()) write_file_atomically(dir / twin_status_file, status_text(outcomes, simulated));
  return outcomes;
}

}  // namespace hetscale::twin
