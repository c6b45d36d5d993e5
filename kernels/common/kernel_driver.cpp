#include "common/kernel_driver.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string_view>

#include "common/collectives.hpp"
#include "common/kernel_options.hpp"
#include "common/rank_weights.hpp"
#include "common/run_environment.hpp"
#include "hetscale/site/record_after_step.hpp"
#include "hetscale/site/run_record.hpp"
#include "serial/blas.hpp"
#include "serial/elimination.hpp"
#include "serial/work_formula.hpp"

namespace hetscale::kernels {
namespace {

struct RunTimes {
  std::chrono::system_clock::time_point start, end;
  double wall = 0;          // this rank's own time in the timed region
  double slowest_wall = 0;  // T: until the slowest rank finished (the same on every rank)
  PhaseTimer phases;
};

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(length));
}

// Rank 0 receives every rank's timings and host name.
std::vector<RankTiming> gather_rank_timings(const MpiSession& mpi, const RunTimes& times,
                                            const RankWeights& weights) {
  const double mine[3] = {times.phases.compute_seconds(), times.phases.communication_seconds(), times.wall};
  const std::size_t ranks = static_cast<std::size_t>(mpi.size());
  std::vector<double> all(3 * ranks);
  check_mpi(MPI_Gather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, mpi.comm()), "MPI_Gather");
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  const std::string name = processor_name();
  name.copy(host, sizeof host - 1);
  std::vector<char> hosts(ranks * MPI_MAX_PROCESSOR_NAME);
  check_mpi(MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME,
                       MPI_CHAR, 0, mpi.comm()),
            "MPI_Gather");
  std::vector<RankTiming> out;
  if (mpi.rank() != 0) return out;
  for (std::size_t r = 0; r < ranks; ++r) {
    out.push_back({static_cast<int>(r), std::string(hosts.data() + r * MPI_MAX_PROCESSOR_NAME),
                   weights.weights[r], weights.marked_speeds[r], all[3 * r], all[3 * r + 1],
                   all[3 * r + 2]});
  }
  return out;
}

RunRecord build_record(const KernelDefinition& definition, const KernelOptions& options,
                       const RunEnvironment& env, const RankWeights& weights, const RunTimes& times,
                       bool verified, std::vector<RankTiming> ranks) {
  RunRecord record;
  record.experiment = env.experiment;
  record.code = definition.name;
  record.workload = definition.name;
  record.parameters = {{"N", static_cast<double>(options.n)}};
  record.work = builtin_work(definition.name, static_cast<double>(options.n));
  record.wall_seconds = times.slowest_wall;
  record.marked_speed = weights.system_speed;
  record.weights_source = weights.source;
  record.ranks = std::move(ranks);
  record.slurm = env.slurm;
  record.machine_set = env.machine_set;
  record.repetition = env.repetition;
  record.start_time = utc_timestamp(times.start);
  record.end_time = utc_timestamp(times.end);
  record.verified = verified;
  record.fingerprint = fingerprint();
  record.engine = record_engine();
  record.platform_hash = options.platform_hash;
  record.weights_digest = weights.digest;
  record.fingerprint["software"]["timed_until"] = "slowest_rank";
  if (const auto simgrid = simulator_version()) {
    // Times are simulated seconds; the hardware entry is the simulating machine's.
    record.fingerprint["software"]["simgrid"] = *simgrid;
    record.fingerprint["software"]["compute"] = to_string(options.compute);
    record.fingerprint["software"]["compute_efficiency"] = options.compute_efficiency;
  }
  return record;
}

// "hetscale-mm", or "hetscale-twin-mm" in the SimGrid build.
std::string program_name(const KernelDefinition& definition) {
  return (simgrid_build ? "hetscale-twin-" : "hetscale-") + definition.name;
}

void print_summary(const std::string& program, const RunRecord& record, const Verification& check,
                   ComputeMode compute) {
  const char* verdict = compute == ComputeMode::flops ? "unverified"
                        : check.ok                    ? "verified"
                                                      : "WRONG ANSWER";
  std::printf("%s: N=%.0f ranks=%zu weights=%s T=%.6f s%s W=%.6g S=%.2f Mop/s %s (%s)\n",
              program.c_str(), record.parameters.at("N"), record.ranks.size(),
              record.weights_source.c_str(), record.wall_seconds,
              record.engine ? " (simulated)" : "", record.work,
              record.work / record.wall_seconds / 1e6, verdict, check.detail.c_str());
  std::fflush(stdout);
}

// Everything after MPI_Init; throws only on failures that may differ between ranks.
int run(const MpiSession& mpi, int argc, char** argv, const KernelDefinition& definition) {
  const std::string program = program_name(definition);
  std::vector<std::string_view> args(argv + 1, argv + argc);
  KernelOptions options;
  RunEnvironment env;
  if (!all_succeed(mpi, program, [&] {
        options = parse_kernel_options(args);
        env = read_run_environment(options, [](const char* name) { return std::getenv(name); });
      })) {
    return 2;
  }
  if (options.help) {
    if (mpi.rank() == 0) std::fputs(kernel_usage(program).c_str(), stdout);
    return 0;
  }
  prepare_engine(options.compute, options.n);
  set_compute_efficiency(options.compute_efficiency);
  set_message_limits(options.message_limits);
  RankWeights weights;
  const WeightsChoice choice{options.weights, options.weights_file, env.site};
  if (!all_succeed(mpi, program, [&] { weights = resolve_weights(mpi, choice); })) return 2;
  if (mpi.rank() == 0 && !weights.note.empty()) std::fprintf(stderr, "%s: note: %s\n", program.c_str(), weights.note.c_str());

  std::unique_ptr<Kernel> kernel;
  const KernelContext context{mpi,      options.n,       options.seed,          weights.weights,
                              env.wait, options.compute, options.fft_planning, env.fft_wisdom};
  if (!all_succeed(mpi, program, [&] { kernel = definition.prepare(context); })) return 1;

  RunTimes times;
  // --start-at: the run begins that far into the hosts' speed profiles (the twin's runs
  // meet the availability of different moments, as runs on a shared cluster do).
  idle_for(options.start_at);
  // The start line: a rank that polled here would begin the timed region with its CPU
  // quota spent (docs/kernels.md, "Waiting").
  barrier(mpi.comm(), env.wait);
  times.start = std::chrono::system_clock::now();
  const double t0 = MPI_Wtime();
  kernel->run(times.phases);
  times.wall = MPI_Wtime() - t0;
  // Every rank started together at the barrier above, so the longest own time is the
  // time until the slowest rank finished: T, whichever rank that was (docs/kernels.md,
  // "What T measures").
  check_mpi(MPI_Allreduce(&times.wall, &times.slowest_wall, 1, MPI_DOUBLE, MPI_MAX, mpi.comm()),
            "MPI_Allreduce");
  times.end = std::chrono::system_clock::now();
  const Verification check = options.compute == ComputeMode::real
                                 ? kernel->verify()
                                 : Verification{false,
                                                "--compute flops: the operations were charged to "
                                                "the simulated hosts, not computed"};

  std::vector<RankTiming> ranks = gather_rank_timings(mpi, times, weights);
  int status = check.ok || options.compute == ComputeMode::flops ? 0 : 1;
  if (mpi.rank() == 0) {
    RunRecord record = build_record(definition, options, env, weights, times, check.ok, std::move(ranks));
    try {
      record.speed_unit = site_speed_unit(env.site);
    } catch (const std::exception& e) {  // the run itself is fine: record it without a unit
      std::fprintf(stderr, "%s: warning: HETSCALE_SITE: %s\n", program.c_str(), e.what());
    }
    print_summary(program, record, check, options.compute);
    if (env.record_file) {
      // The run is done: a record that cannot be written costs the record, not the
      // run's exit status.
      const RecordAfterStep written = append_record_after_step(*env.record_file, [&] { return std::optional(record); });
      if (written.not_written_because)
        std::fprintf(stderr, "%s: error: the run record was not written: %s\n", program.c_str(),
                     written.not_written_because->c_str());
    }
  }
  check_mpi(MPI_Bcast(&status, 1, MPI_INT, 0, mpi.comm()), "MPI_Bcast");
  return status;
}

}  // namespace

Verification residual_verdict(const MpiSession& mpi, double residual_on_rank0) {
  double residual = residual_on_rank0;
  check_mpi(MPI_Bcast(&residual, 1, MPI_DOUBLE, 0, mpi.comm()), "MPI_Bcast");
  const bool ok = residual < residual_bound;  // NaN fails
  char detail[96];
  std::snprintf(detail, sizeof detail, "scaled residual %.3g %s %.0f", residual, ok ? "<" : ">=", residual_bound);
  return {ok, detail};
}

int kernel_main(int argc, char** argv, const KernelDefinition& definition) {
  begin_engine();
  use_single_threaded_blas();
  try {
    MpiSession mpi(argc, argv);
    try {
      return run(mpi, argc, argv, definition);
    } catch (const std::exception& e) {
      // A failure other ranks may not share: abort the whole job rather than hang it.
      std::fprintf(stderr, "%s: rank %d: error: %s\n", program_name(definition).c_str(), mpi.rank(),
                   e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program_name(definition).c_str(), e.what());
    return 1;
  }
}

}  // namespace hetscale::kernels
