// Runs the simulations of a simulated round: smpirun processes, a few at a time, each writing
// its record to a temporary file that is renamed into records/ only when it succeeded.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <thread>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "hetscale/twin/simulated_round.hpp"
#include "process_pool.hpp"

namespace hetscale::twin {
namespace fs = std::filesystem;

namespace {

std::string number(double v) { return fmt::format("{}", v); }

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

fs::path partial_record(const fs::path& dir, const TwinRun& run) {
  return dir / fmt::format("records/.run-{}.jsonl.partial", run.task);
}

fs::path kernel_program(const SimulatedRound& simulated, const TwinRunnerOptions& options) {
  return fs::path(options.kernel_dir) /
         fmt::format("hetscale-twin-{}", jobgen::to_string(*simulated.round.spec.code.kernel));
}

// The run's own variables beside the caller's environment.
std::vector<std::string> run_environment(const TwinRun& run) {
  return detail::clean_environment({fmt::format("HETSCALE_MACHINE_SET={}", run.set_index),
                                    fmt::format("HETSCALE_REPETITION={}", run.repetition)});
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

constexpr const char* status_kept = "kept";
constexpr const char* status_done = "done";
constexpr const char* status_failed = "failed";

// One run's line of status.tsv (without its newline).
std::string status_line(const TwinRunOutcome& o) {
  return fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.3f}\t{}", o.run.task, o.run.set_index, number(o.run.value),
                     o.run.repetition, o.run.ranks,
                     o.skipped     ? status_kept
                     : o.succeeded ? status_done
                                   : status_failed,
                     o.exit_status, o.host_seconds, number(o.simulated_seconds));
}

std::string status_text(std::vector<TwinRunOutcome> outcomes, const SimulatedRound& simulated) {
  std::sort(outcomes.begin(), outcomes.end(),
            [](const TwinRunOutcome& a, const TwinRunOutcome& b) { return a.run.task < b.run.task; });
  std::string out = fmt::format("task\tset\t{}\trepetition\tranks\tstatus\texit\thost_seconds\tsimulated_seconds\n",
                                simulated.round.spec.parameter.name);
  for (const TwinRunOutcome& o : outcomes) out += status_line(o) + "\n";
  return out;
}

// The outcome a run's status file says (status_line's fields); none when it cannot be read
// as one, or names another run.
std::optional<TwinRunOutcome> outcome_from_status(const TwinRun& run, const std::string& line) {
  std::vector<std::string> fields;
  for (std::size_t begin = 0;;) {
    const std::size_t tab = line.find('\t', begin);
    fields.push_back(line.substr(begin, tab == std::string::npos ? std::string::npos : tab - begin));
    if (tab == std::string::npos) break;
    begin = tab + 1;
  }
  if (fields.size() != 9 || fields[0] != std::to_string(run.task)) return std::nullopt;
  TwinRunOutcome o{run, fields[5] == status_kept, fields[5] != status_failed, 0, 0, 0};
  try {
    o.exit_status = std::stoi(fields[6]);
    o.host_seconds = std::stod(fields[7]);
    o.simulated_seconds = std::stod(fields[8]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return o;
}

}  // namespace

std::vector<std::string> smpirun_command(const fs::path& dir, const fs::path& hostfile, std::uint32_t ranks,
                                         const TwinRunnerOptions& options) {
  const fs::path root = fs::absolute(dir).lexically_normal();
  return {
      options.smpirun,
      "-no-privatize",
      "-platform", (root / "platform.xml").string(),
      "-hostfile", (root / hostfile).string(),
      "-np", std::to_string(ranks),
      // SMPI's default collectives make a broadcast cost O(ranks^2) simulated messages;
      // Open MPI's selection with a binomial-tree broadcast keeps 1024 ranks cheap.
      "--cfg=smpi/coll-selector:ompi",
      "--cfg=smpi/bcast:binomial_tree",
      // SMPI charges 10 ns and a simulator call for every MPI_Wtime; the kernels time
      // their phases with it (a dozen calls per rank per panel of lu), so none is charged.
      "--cfg=smpi/wtime:0",
      "--log=root.thres:warning"};
}

std::vector<std::string> twin_run_command(const fs::path& dir, const SimulatedRound& simulated, const TwinRun& run,
                                          const TwinRunnerOptions& options) {
  const fs::path root = fs::absolute(dir).lexically_normal();
  const jobgen::RoundSet& set = simulated.round.sets.at(run.set_index);
  std::vector<std::string> argv = smpirun_command(dir, jobgen::host_file_name(set), run.ranks, options);
  argv.insert(argv.end(), {
      kernel_program(simulated, options).string(),
      "-" + simulated.round.spec.parameter.name, number(run.value),
      "--experiment", simulated.round.spec.name,
      "--site", (root / twin_site_file).string(),
      "--platform-hash", simulated.platform_hash,
      "--record", partial_record(root, run).string()});
  if (simulated.compute_efficiency != 1)
    argv.insert(argv.end(), {"--compute-efficiency", number(simulated.compute_efficiency)});
  if (simulated.start_spread > 0)
    argv.insert(argv.end(), {"--start-at", number(twin_run_start(run, simulated.start_spread))});
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
  const auto smpirun = detail::find_program(options.smpirun);
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

  std::vector<TwinRun> pending;
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

  const auto finish = [&](TwinRunOutcome outcome) {
    outcomes.push_back(outcome);
    if (progress) progress(outcomes.back(), outcomes.size(), total);
  };

  const auto prepare = [&](std::size_t i) -> std::optional<detail::Program> {
    const TwinRun& run = pending[i];
    std::error_code ec;
    if (!options.rerun && fs::exists(dir / twin_record_file(run), ec)) {
      TwinRunOutcome kept{run, true, true, 0, 0, 0};
      try {
        const RunRecordFile file = read_run_records(dir / twin_record_file(run), OnInvalid::fail);
        if (!file.records.empty()) kept.simulated_seconds = file.records.front().record.wall_seconds;
      } catch (const Error&) {
      }
      finish(kept);
      return std::nullopt;
    }
    fs::remove(dir / twin_record_file(run), ec);
    fs::remove(partial_record(dir, run), ec);
    // The working directory is the round's directory (smpirun may leave files in it).
    return detail::Program{twin_run_command(dir, simulated, run, resolved), run_environment(run),
                           dir / twin_log_file(run), dir};
  };
  const auto finished = [&](std::size_t i, int exit_status, double host_seconds) {
    const TwinRun& run = pending[i];
    TwinRunOutcome outcome{run, false, false, exit_status, host_seconds, 0};
    std::string problem;
    if (outcome.exit_status == 0) {
      outcome.succeeded = keep_record(dir, run, outcome.simulated_seconds, problem);
      if (!outcome.succeeded) {
        // The run said it succeeded but left no usable record: say so in its log.
        std::FILE* log = std::fopen((dir / twin_log_file(run)).c_str(), "a");
        if (log != nullptr) {
          std::fprintf(log, "hetscale twin: %s\n", problem.c_str());
          std::fclose(log);
        }
      }
    }
    if (!outcome.succeeded) {
      std::error_code ec;
      fs::remove(partial_record(dir, run), ec);
    }
    finish(outcome);
  };
  detail::run_programs(pending.size(), resolved.jobs, prepare, finished);
  if (tasks.empty()) {
    write_file_atomically(dir / twin_status_file, status_text(outcomes, simulated));
  } else {
    for (const TwinRunOutcome& o : outcomes) write_file_atomically(dir / twin_run_status_file(o.run), status_line(o) + "\n");
  }
  return outcomes;
}

std::vector<TwinRunOutcome> gather_run_statuses(const fs::path& dir, const SimulatedRound& simulated) {
  std::vector<TwinRunOutcome> outcomes;
  for (const TwinRun& run : simulated.runs) {
    std::optional<TwinRunOutcome> o;
    std::error_code ec;
    if (fs::exists(dir / twin_run_status_file(run), ec))
      o = outcome_from_status(run, first_line(read_regular_file(dir / twin_run_status_file(run), 4096)));
    outcomes.push_back(o.value_or(TwinRunOutcome{run, false, false, -1, 0, 0}));
  }
  write_file_atomically(dir / twin_status_file, status_text(outcomes, simulated));
  return outcomes;
}

}  // namespace hetscale::twin
