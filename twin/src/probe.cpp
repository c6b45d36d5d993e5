// The network probe of a simulated round's machine sets (twin_probe.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/jobgen/scripts.hpp"
#include "hetscale/model/network_probe.hpp"
#include "hetscale/twin/twin_probe.hpp"
#include "process_pool.hpp"

namespace hetscale::twin {
namespace fs = std::filesystem;

std::string twin_probe_host_file(std::size_t set_index) { return fmt::format("probes/set{}.hosts", set_index); }
std::string twin_probe_log_file(std::size_t set_index) { return fmt::format("probes/set{}.log", set_index); }

std::vector<std::string> twin_probe_command(const fs::path& dir, const SimulatedRound& simulated,
                                            std::size_t set_index, const TwinRunnerOptions& options,
                                            const std::vector<std::string>& arguments) {
  const fs::path root = fs::absolute(dir).lexically_normal();
  const jobgen::RoundSet& set = simulated.round.sets.at(set_index);
  std::vector<std::string> argv =
      smpirun_command(dir, twin_probe_host_file(set_index), set.total_tasks(), options);
  argv.insert(argv.end(), {(fs::path(options.kernel_dir) / twin_commbench_program).string(),
                           "--site", (root / twin_site_file).string(),
                           "--experiment", simulated.round.spec.name,
                           "--machine-set", std::to_string(set.set.index),
                           "--output", (root / jobgen::probe_file_name(set_index)).string()});
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return argv;
}

std::vector<TwinProbeOutcome> run_twin_probes(const fs::path& dir, const SimulatedRound& simulated,
                                              const TwinRunnerOptions& options,
                                              const std::vector<std::string>& arguments,
                                              const std::function<void(const TwinProbeOutcome&)>& progress) {
  const auto smpirun = detail::find_program(options.smpirun);
  if (!smpirun)
    throw Error(fmt::format("'{}' not found: the twin needs SimGrid's smpirun (Debian: libsimgrid-dev)",
                            options.smpirun));
  const fs::path program = fs::path(options.kernel_dir) / twin_commbench_program;
  if (::access(program.c_str(), X_OK) != 0)
    throw Error(fmt::format("'{}' not found or not executable: build the twin kernels (SimGrid's smpicxx) or give "
                            "their directory",
                            program.string()));
  TwinRunnerOptions resolved = options;
  resolved.smpirun = fs::absolute(*smpirun).string();
  resolved.kernel_dir = fs::absolute(options.kernel_dir).string();
  if (resolved.jobs == 0) resolved.jobs = std::max(1u, std::thread::hardware_concurrency());

  std::vector<std::size_t> sets;
  for (std::size_t i = 0; i < simulated.round.sets.size(); ++i)
    if (simulated.round.sets[i].total_tasks() >= 2) sets.push_back(i);
  fs::create_directories(dir / "probes");
  std::vector<TwinProbeOutcome> outcomes;
  const auto prepare = [&](std::size_t i) -> std::optional<detail::Program> {
    const std::size_t set = sets[i];
    std::error_code ec;
    fs::remove(dir / jobgen::probe_file_name(set), ec);
    write_file_atomically(dir / twin_probe_host_file(set), jobgen::render_host_file(simulated.round.sets[set]));
    return detail::Program{
        twin_probe_command(dir, simulated, set, resolved, arguments),
        detail::clean_environment({fmt::format("HETSCALE_MACHINE_SET={}", simulated.round.sets[set].set.index)}),
        dir / twin_probe_log_file(set), dir};
  };
  const auto finished = [&](std::size_t i, int exit_status, double host_seconds) {
    const std::size_t set = sets[i];
    TwinProbeOutcome o{set, simulated.round.sets[set].total_tasks(), false, exit_status, host_seconds, 0};
    if (exit_status == 0) {
      try {
        const CommbenchOutput output = read_commbench_output((dir / jobgen::probe_file_name(set)).string());
        o.succeeded = output.probe.has_value();
        if (output.probe) o.simulated_seconds = output.probe->elapsed_seconds;
      } catch (const Error& e) {
        std::error_code ec;
        fs::remove(dir / jobgen::probe_file_name(set), ec);
        std::ofstream(dir / twin_probe_log_file(set), std::ios::app) << "hetscale twin: " << e.what() << '\n';
      }
    }
    outcomes.push_back(o);
    if (progress) progress(outcomes.back());
  };
  detail::run_programs(sets.size(), resolved.jobs, prepare, finished);
  return outcomes;
}

}  // namespace hetscale::twin
