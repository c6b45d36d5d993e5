#include "hetscale/twin/simulated_round.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/jobgen/scripts.hpp"
#include "hetscale/model/availability.hpp"
#include "hetscale/model/isospeed.hpp"
#include "hetscale/model/sample_statistics.hpp"
#include "hetscale/site/round_plan.hpp"

namespace hetscale::twin {
namespace fs = std::filesystem;

namespace {

// --start-at and the start spread are simulated seconds; a profile repeats every horizon.
constexpr double max_start_spread = 1e6;

bool is_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

SourceLocation or_file(const SourceLocation& where, const fs::path& spec_file) {
  return where.line > 0 ? where : SourceLocation{spec_file.string(), 0, 0};
}

// What the twin can run: a bundled kernel, with weights it can give every simulated rank.
void check_twin_spec(const jobgen::ExperimentSpec& spec) {
  if (!spec.code.kernel)
    throw ConfigError(or_file(spec.code.command_where, spec.source),
                      "the twin runs the bundled kernels (kernel = \"mm\", \"ge\", \"conv2d\" or \"lu\"): a "
                      "command is not an SMPI program it can simulate");
  if (spec.slurm.weights.size() != 1)
    throw ConfigError(or_file(spec.slurm.weights_where, spec.source),
                      "the twin simulates each run with one weights: give 'weights' one value, not a list");
  if (spec.slurm.weights.front() == "equalized")
    throw ConfigError(or_file(spec.slurm.weights_where, spec.source),
                      "weights = \"equalized\" reads the plugin's partition files, which the twin does "
                      "not have: give the partition file itself (weights = \"FILE\"), \"marked\" or "
                      "\"off\"");
}

std::vector<TwinRun> enumerate_runs(const jobgen::Round& round) {
  std::vector<TwinRun> runs;
  for (const jobgen::RoundSet& set : round.sets)
    for (std::size_t v = 0; v < set.parameter_values.size(); ++v)
      for (std::uint32_t r : jobgen::task_repetitions(round, set, v))
        runs.push_back({runs.size(), set.set.index, v, set.parameter_values[v], r, set.total_tasks()});
  return runs;
}

std::string first_word(const std::string& text) {
  const auto end = text.find_first_of(" \t\n");
  return text.substr(0, end);
}

// The number `file` holds (its first word), none when there is no such file; Error
// "FILE: not WHAT" when it holds no number that `ok` accepts.
template <typename Accept>
std::optional<double> number_in_file(const fs::path& file, std::string_view what, Accept ok) {
  if (std::error_code ec; !fs::exists(file, ec)) return std::nullopt;
  const std::optional<double> v = finite_number(first_word(read_regular_file(file, 4096)));
  if (!v || !ok(*v)) throw Error(fmt::format("{}: not {}", file.string(), what));
  return v;
}

}  // namespace

std::string default_twin_experiment(const std::string& spec_name) { return spec_name + "-twin"; }

SimulatedRound plan_simulated_round(jobgen::ExperimentSpec spec, const SiteTable& site, const TwinPlatform& platform,
                                    const SimulatedRoundOptions& options) {
  check_twin_spec(spec);
  spec.name = options.experiment.empty() ? default_twin_experiment(spec.name) : options.experiment;
  if (options.max_set_nodes) spec.machine_sets.options.max = *options.max_set_nodes;
  if (options.repetitions) spec.repetitions = *options.repetitions;
  if (options.compute_efficiency && !(*options.compute_efficiency > 0 && *options.compute_efficiency <= 2))
    throw Error(fmt::format("compute efficiency must be in (0, 2], not {}", *options.compute_efficiency));
  if (options.psi_floor) {
    if (!(*options.psi_floor > 0 && *options.psi_floor <= 1))
      throw Error(fmt::format("psi floor must be in (0, 1], not {}", *options.psi_floor));
    spec.parameter.psi_floor = *options.psi_floor;
  }
  if (!is_name(spec.name))
    throw Error(fmt::format("experiment name '{}' may hold only letters, digits, '.', '_' and '-'", spec.name));
  if (options.start_spread && !(*options.start_spread >= 0 && *options.start_spread <= max_start_spread))
    throw Error(fmt::format("start spread must be in [0, {}] seconds, not {}", max_start_spread, *options.start_spread));
  // No study token: the twin's array runs simulations, no set's array (array_job_name).
  SimulatedRound out{jobgen::plan_round(spec, site, std::string()), platform.sha256,
                     options.compute_efficiency.value_or(1), options.start_spread.value_or(0), {}};
  if (options.first_round_nodes)  // the larger sets begin later (begin_next_set)
    for (jobgen::RoundSet& set : out.round.sets)
      if (set.set.nodes.size() > *options.first_round_nodes) set.parameter_values.clear();
  std::set<std::string> hosts;
  for (std::size_t begin = 0; begin < platform.hostfile.size();) {
    const auto end = platform.hostfile.find('\n', begin);
    hosts.insert(platform.hostfile.substr(begin, end - begin));
    begin = end == std::string::npos ? platform.hostfile.size() : end + 1;
  }
  for (const jobgen::RoundSet& set : out.round.sets)
    for (const jobgen::SetMember& m : set.members)
      if (hosts.count(m.node) == 0)
        throw Error(fmt::format("machine set {} uses node '{}', which the twin platform has no host for",
                                set.set.index, m.node));
  out.runs = enumerate_runs(out.round);
  return out;
}

std::vector<jobgen::GeneratedFile> simulated_round_files(const SimulatedRound& simulated,
                                                         const TwinPlatform& platform, const std::string& site_text,
                                                         const SimulatedRoundOptions& options,
                                                         const std::string& created) {
  std::vector<jobgen::GeneratedFile> files;
  files.push_back(jobgen::spec_copy(twin_spec_file, simulated.round.spec.text));
  files.push_back({twin_site_file, site_text, false});
  files.push_back({twin_plan_file, to_json(jobgen::plan_of_round(simulated.round, created)).dump(2) + "\n", false});
  for (auto& [name, text] : twin_platform_file_texts(platform)) files.push_back({name, text, false});
  for (const jobgen::RoundSet& set : simulated.round.sets)
    if (!set.parameter_values.empty())
      files.push_back({jobgen::host_file_name(set), jobgen::render_host_file(set), false});
  if (simulated.compute_efficiency != 1)
    files.push_back({twin_compute_efficiency_file, fmt::format("{}\n", simulated.compute_efficiency), false});
  if (simulated.start_spread > 0)
    files.push_back({twin_start_spread_file, fmt::format("{}\n", simulated.start_spread), false});
  const jobgen::ExperimentSpec& spec = simulated.round.spec;
  if (spec.repetitions != jobgen::parse_experiment_spec(spec.text, twin_spec_file).repetitions)
    files.push_back({twin_repetitions_file, fmt::format("{}\n", spec.repetitions), false});
  if (options.sbatch) {
    jobgen::Round placed = simulated.round;
    if (options.partition) {  // the measured nodes' reservation and constraint are not the twin's
      placed.spec.slurm.partition = *options.partition;
      placed.spec.slurm.reservation.clear();
      placed.spec.slurm.constraint.clear();
    }
    files.push_back({twin_sbatch_file,
                     jobgen::render_twin_array_script(placed, simulated.runs.size(), {options.bin_dir}), true});
  }
  return files;
}

SimulatedRound simulated_round_of(jobgen::Round round, const SimulatedRound& previous) {
  SimulatedRound out{std::move(round), previous.platform_hash, previous.compute_efficiency, previous.start_spread, {}};
  out.runs = enumerate_runs(out.round);
  return out;
}

void twin_refinement_spec(jobgen::Round& latest, const SimulatedRound& previous) {
  if (previous.start_spread <= 0) latest.spec.refine.precision.reset();
}

double twin_run_start(const TwinRun& run, double start_spread) {
  if (start_spread <= 0) return 0;
  RandomStream random(std::bit_cast<std::uint64_t>(run.value), (static_cast<std::uint64_t>(run.set_index) << 32) | run.repetition);
  return start_spread * random.uniform();
}

std::vector<jobgen::GeneratedFile> later_round_files(const SimulatedRound& next, const fs::path& previous_dir,
                                                     const SimulatedRoundOptions& options, const std::string& created) {
  constexpr std::size_t max_bytes = std::size_t{256} << 20;
  TwinPlatform platform;
  platform.xml = read_regular_file(previous_dir / "platform.xml", max_bytes);
  platform.hostfile = read_regular_file(previous_dir / "hostfile", max_bytes);
  platform.sha256 = next.platform_hash;
  return simulated_round_files(next, platform, read_regular_file(previous_dir / twin_site_file, max_bytes), options,
                               created);
}

SimulatedRound load_simulated_round(const fs::path& dir) {
  jobgen::ExperimentSpec spec = jobgen::load_experiment_spec(dir / twin_spec_file);
  check_twin_spec(spec);
  const RoundPlan plan = load_round_plan(dir / twin_plan_file);
  spec.name = plan.experiment.name;
  SimulatedRound out{jobgen::round_from_plan(spec, plan), {}, 1, 0, {}};
  // The settings a round keeps beside its plan, each one number in a file of its own.
  if (const auto e = number_in_file(dir / twin_compute_efficiency_file, "a compute efficiency in (0, 2]",
                                    [](double v) { return v > 0 && v <= 2; }))
    out.compute_efficiency = *e;
  if (const auto spread = number_in_file(dir / twin_start_spread_file,
                                         fmt::format("a start spread in [0, {}] seconds", max_start_spread),
                                         [](double v) { return v >= 0 && v <= max_start_spread; }))
    out.start_spread = *spread;
  if (const auto repetitions = number_in_file(dir / twin_repetitions_file, "a count of repetitions in [1, 1000]",
                                              [](double v) { return v >= 1 && v <= 1000 && std::floor(v) == v; }))
    out.round.spec.repetitions = static_cast<std::uint32_t>(*repetitions);
  const fs::path hash_file = dir / "platform.sha256";
  out.platform_hash = first_word(read_regular_file(hash_file, 4096));
  if (out.platform_hash.size() != 64 ||
      out.platform_hash.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw Error(fmt::format("{}: not a SHA-256 line", hash_file.string()));
  out.runs = enumerate_runs(out.round);
  return out;
}

ComputeCalibration measured_compute_efficiency(const std::vector<RunRecord>& records, const std::string& code,
                                               double flops_per_unit) {
  // The largest size of each machine set among the usable runs.
  const auto usable = [&](const RunRecord& r) {
    return r.code == code && run_engine(r) != "simgrid" && r.machine_set && r.work > 0;
  };
  std::map<int, double> largest;
  for (const RunRecord& r : records)
    if (usable(r) && !r.parameters.empty()) {
      const double v = r.parameters.begin()->second;
      auto [it, fresh] = largest.emplace(*r.machine_set, v);
      if (!fresh) it->second = std::max(it->second, v);
    }
  std::vector<double> efficiencies;
  ComputeCalibration out;
  for (const RunRecord& r : records) {
    if (!usable(r) || r.parameters.empty() || r.parameters.begin()->second != largest.at(*r.machine_set)) continue;
    bool used = false;
    for (const RankTiming& t : r.ranks) {
      if (!(t.marked_speed > 0 && t.compute_seconds > 0 && t.weight > 0)) continue;
      // The rank's E_s on its share of the work.
      efficiencies.push_back(
          isospeed::speed_efficiency(t.weight * r.work, t.compute_seconds, t.marked_speed * flops_per_unit));
      used = true;
    }
    out.runs += used ? 1 : 0;
  }
  if (efficiencies.empty())
    throw Error(fmt::format("no measured run of '{}' has rank timings with marked speeds to calibrate from", code));
  out.ranks = efficiencies.size();
  out.efficiency = median(efficiencies);
  return out;
}

std::string twin_record_file(const TwinRun& run) { return fmt::format("records/run-{}.jsonl", run.task); }

std::string twin_log_file(const TwinRun& run) { return fmt::format("logs/run-{}.log", run.task); }

std::string twin_run_status_file(const TwinRun& run) { return fmt::format("logs/run-{}.status", run.task); }

}  // namespace hetscale::twin
