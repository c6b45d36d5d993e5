#include "hetscale/twin/conduct.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <utility>

#include "hetscale/base/error.hpp"
#include "hetscale/base/input_files.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/base/utc_time.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/jobgen/scripts.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/twin/site_growth.hpp"
#include "hetscale/twin/twin_probe.hpp"

namespace hetscale::twin {
namespace fs = std::filesystem;

namespace {

// Site tables are read whole through base's regular-file reader (the same cap as
// load_site_table), since the study keeps a copy of the text.
constexpr std::size_t site_table_max_bytes = std::size_t{256} << 20;

// Every run record in the files and directories given (*.jsonl, recursively).
std::vector<RunRecord> read_record_files(const std::vector<fs::path>& paths) {
  std::vector<RunRecord> records;
  for (const fs::path& path : paths)
    for (const auto& file : input_files(path, {".jsonl"}))
      for (auto& numbered : read_run_records(file, OnInvalid::fail).records) records.push_back(std::move(numbered.record));
  return records;
}

// The note of one finished run, `done` of `total`.
std::string run_line(const fs::path& dir, const SimulatedRound& simulated, const TwinRunOutcome& o, std::size_t done,
                     std::size_t total) {
  const std::string what =
      o.skipped     ? fmt::format("kept ({:.6g} s simulated)", o.simulated_seconds)
      : o.succeeded ? fmt::format("{:.6g} s simulated in {:.1f} s", o.simulated_seconds, o.host_seconds)
                    : fmt::format("FAILED (exit {}; see {})", o.exit_status, (dir / twin_log_file(o.run)).string());
  return fmt::format("hetscale twin: [{}/{}] set {} ({} ranks) {}={} repetition {}: {}\n", done, total,
                     o.run.set_index, o.run.ranks, simulated.round.spec.parameter.name, o.run.value, o.run.repetition,
                     what);
}

}  // namespace

std::string to_string(const TwinRunCounts& counts) {
  return fmt::format("runs: {} simulated, {} kept, {} failed ({})", counts.simulated, counts.kept, counts.failed,
                     counts.array_job ? fmt::format("array job {}", *counts.array_job)
                                      : fmt::format("{} at a time", counts.jobs));
}

namespace {

void count(TwinRunCounts& counts, const TwinRunOutcome& o) {
  (o.skipped ? counts.kept : o.succeeded ? counts.simulated : counts.failed) += 1;
}

}  // namespace

void require_no_failed_runs(const TwinRunCounts& counts, const fs::path& dir) {
  if (counts.failed > 0)
    throw Error(fmt::format("{} of {} runs failed; their logs are in {} ({} lists every run)", counts.failed,
                            counts.simulated + counts.kept + counts.failed, (dir / "logs").string(),
                            twin_status_file));
}

void require_no_failed_runs(const SimulatedRoundOutcome& outcome) {
  if (outcome.counts) require_no_failed_runs(*outcome.counts, outcome.dir);
}

TwinRunCounts simulate_twin_runs(const fs::path& dir, const SimulatedRound& simulated,
                                 const std::vector<std::size_t>& tasks, const TwinRunnerOptions& runner,
                                 const Say& say) {
  const TwinRunnerOptions resolved = resolve_twin_tools(simulated, runner);
  const auto progress = [&](const TwinRunOutcome& o, std::size_t done, std::size_t total) {
    say(LineKind::note, run_line(dir, simulated, o, done, total));
  };
  TwinRunCounts counts;
  counts.jobs = resolved.jobs;
  for (const auto& o : run_simulated_round(dir, simulated, tasks, resolved, progress)) count(counts, o);
  say(LineKind::result, to_string(counts) + '\n');
  return counts;
}

TwinRunCounts count_array_runs(const fs::path& dir, const SimulatedRound& simulated, std::uint64_t array_job,
                               const Say& say) {
  TwinRunCounts counts;
  counts.array_job = array_job;
  const std::vector<TwinRunOutcome> outcomes = gather_run_statuses(dir, simulated);
  std::size_t done = 0;
  for (const TwinRunOutcome& o : outcomes) {
    say(LineKind::note, run_line(dir, simulated, o, ++done, outcomes.size()));
    count(counts, o);
  }
  say(LineKind::result, to_string(counts) + '\n');
  return counts;
}

std::string to_string(const TwinProbeCounts& counts) {
  return fmt::format("probes: {} written, {} failed", counts.written, counts.failed);
}

TwinProbeCounts probe_twin_sets(const fs::path& dir, const SimulatedRound& simulated, const TwinRunnerOptions& runner,
                                const std::vector<std::string>& arguments, const Say& say) {
  TwinProbeCounts counts;
  const auto progress = [&](const TwinProbeOutcome& o) {
    (o.succeeded ? counts.written : counts.failed) += 1;
    say(LineKind::note,
        o.succeeded ? fmt::format("hetscale twin: probe of set {} ({} ranks): {:.6g} s simulated in {:.1f} s: {}\n",
                                  o.set_index, o.ranks, o.simulated_seconds, o.host_seconds,
                                  (dir / jobgen::probe_file_name(o.set_index)).string())
                    : fmt::format("hetscale twin: probe of set {} ({} ranks): FAILED (exit {}; see {})\n", o.set_index,
                                  o.ranks, o.exit_status, (dir / twin_probe_log_file(o.set_index)).string()));
  };
  run_twin_probes(dir, simulated, runner, arguments, progress);
  say(LineKind::result, to_string(counts) + '\n');
  return counts;
}

void require_no_failed_probes(const TwinProbeCounts& counts, const fs::path& dir) {
  if (counts.failed > 0)
    throw Error(fmt::format("{} of {} probes failed; their logs are in {}", counts.failed,
                            counts.written + counts.failed, (dir / "probes").string()));
}

SimulatedRoundOutcome write_and_run_simulated_round(const fs::path& dir, const SimulatedRound& simulated,
                                                    const SimulatedRoundOptions& options,
                                                    const std::vector<jobgen::GeneratedFile>& files,
                                                    const std::string& summary, const TwinRunnerOptions& runner,
                                                    const Say& say) {
  if (!options.sbatch) resolve_twin_tools(simulated, runner);
  jobgen::write_round_directory(dir, files);
  say(LineKind::result, summary);
  SimulatedRoundOutcome outcome{dir, simulated.round.spec.name, simulated.runs.size(), std::nullopt, std::nullopt};
  if (options.sbatch)
    say(LineKind::result, fmt::format("submit: cd {} && sbatch {}\n", dir.string(), twin_sbatch_file));
  else
    outcome.counts = simulate_twin_runs(dir, simulated, {}, runner, say);
  return outcome;
}

std::optional<SimulatedRound> next_simulated_round(const SimulatedRound& previous, jobgen::Round next,
                                                   const Say& say) {
  next.spec.repetitions = previous.round.spec.repetitions;
  SimulatedRound simulated = simulated_round_of(std::move(next), previous);
  if (!simulated.runs.empty()) return simulated;
  say(LineKind::result, "nothing to refine: no files written\n");
  return std::nullopt;
}

SimulatedRoundOutcome write_and_run_later_round(const fs::path& dir, const SimulatedRound& next,
                                                const fs::path& previous_dir, const SimulatedRoundOptions& options,
                                                const TwinRunnerOptions& runner, const Say& say) {
  return write_and_run_simulated_round(
      dir, next, options, later_round_files(next, previous_dir, options, utc_time_now()),
      fmt::format("twin study: {} (experiment {}, round {}, {} runs, platform {})\n", dir.string(),
                  next.round.spec.name, next.round.number, next.runs.size(), next.platform_hash.substr(0, 12)),
      runner, say);
}

SimulatedRoundOutcome conduct_twin_study(const TwinStudyRequest& request, const Say& say) {
  const fs::path commbench = fs::path(request.runner.kernel_dir) / twin_commbench_program;
  if (request.probe && !request.options.sbatch && ::access(commbench.c_str(), X_OK) != 0)
    throw Error(fmt::format("'{}' not found or not executable: the probes need it (build the twin kernels, "
                            "SimGrid's smpicxx, or give their directory)",
                            commbench.string()));
  const jobgen::ExperimentSpec spec = jobgen::load_experiment_spec(request.spec);
  std::string site_text = read_regular_file(request.site, site_table_max_bytes);
  SiteTable site = parse_site_table(site_text, request.site.string());
  if (request.nodes) {
    site = grow_site_table(site, *request.nodes);
    site_text = format_site_table(site);
  }
  const TwinPlatform platform =
      make_twin_platform(site, {request.options.flops_per_unit, request.availability});
  SimulatedRoundOptions options = request.options;
  if (!request.calibrate_from.empty()) {
    if (options.compute_efficiency)
      throw Error("a compute efficiency and records to calibrate it from were both given");
    const ComputeCalibration c = measured_compute_efficiency(read_record_files(request.calibrate_from),
                                                             spec.code_label(), platform.flops_per_unit);
    options.compute_efficiency = c.efficiency;
    say(LineKind::note,
           fmt::format("hetscale twin study: compute efficiency {:.4g} of the marked speed, the median of {} ranks "
                       "in {} measured runs at each set's largest size\n",
                       c.efficiency, c.ranks, c.runs));
  }
  const SimulatedRound simulated = plan_simulated_round(spec, site, platform, options);
  std::size_t sets = 0;
  for (const auto& s : simulated.round.sets) sets += s.parameter_values.empty() ? 0 : 1;
  if (platform.default_network)
    say(LineKind::note, fmt::format("hetscale twin study: {} has no [network]; the twin uses the default network\n",
                                       request.site.string()));
  const fs::path& dir = request.output_dir;
  SimulatedRoundOutcome outcome = write_and_run_simulated_round(
      dir, simulated, options, simulated_round_files(simulated, platform, site_text, options, utc_time_now()),
      fmt::format("twin study: {} (experiment {}, {} sets, {} runs, platform {})\n", dir.string(),
                  simulated.round.spec.name, sets, simulated.runs.size(), simulated.platform_hash.substr(0, 12)),
      request.runner, say);
  if (request.probe && !options.sbatch)
    outcome.probes = probe_twin_sets(dir, simulated, request.runner, request.probe_arguments, say);
  return outcome;
}

}  // namespace hetscale::twin
