// The network probe on the twin (docs/twin.md, "The probe on the twin"):
// hetscale-twin-commbench under smpirun on each machine set of a simulated round, on the
// round's platform, its output in probes/set<k>.commbench.json of the round's directory,
// where `hetscale collect` finds it beside the round's records. Deterministic: the same
// platform and options give the same figures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "hetscale/twin/simulated_round.hpp"

namespace hetscale::twin {

/// The probe of machine set `set_index` is jobgen::probe_file_name(set_index), relative to
/// the round's directory. Its host file (one line per rank) and its log.
std::string twin_probe_host_file(std::size_t set_index);
std::string twin_probe_log_file(std::size_t set_index);

/// The program the twin probes with, in TwinRunnerOptions::kernel_dir.
inline constexpr const char* twin_commbench_program = "hetscale-twin-commbench";

struct TwinProbeOutcome {
  std::size_t set_index = 0;
  std::uint32_t ranks = 0;
  bool succeeded = false;
  int exit_status = 0;            // smpirun's; -1 not started, 128+n killed by signal n
  double host_seconds = 0;        // how long the simulation took on this machine
  double simulated_seconds = 0;   // the probe's elapsed_seconds
};

/// The smpirun command line of the probe of set `set_index` of the round in `dir`: the
/// round's platform and site table, the set's hosts, its experiment and set named in the
/// output, then `arguments` (hetscale-twin-commbench's options, e.g. --budget-seconds).
std::vector<std::string> twin_probe_command(const std::filesystem::path& dir, const SimulatedRound& simulated,
                                            std::size_t set_index, const TwinRunnerOptions& options,
                                            const std::vector<std::string>& arguments);

/// Probes every machine set of the round in `dir` with at least 2 ranks, `options.jobs` at
/// a time, each a new output (an earlier one removed first); a failed probe leaves no
/// output and its log. `progress` is called as each ends. Throws Error when smpirun or
/// hetscale-twin-commbench cannot be run (before any probe starts).
std::vector<TwinProbeOutcome> run_twin_probes(const std::filesystem::path& dir, const SimulatedRound& simulated,
                                              const TwinRunnerOptions& options,
                                              const std::vector<std::string>& arguments,
                                              const std::function<void(const TwinProbeOutcome&)>& progress);

}  // namespace hetscale::twin
