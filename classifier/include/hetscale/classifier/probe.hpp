// The hwloc probe of one node: what it is made of and which CPUs this process may use.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "hetscale/classifier/hwloc_handles.hpp"
#include "hetscale/site/hardware.hpp"

namespace hetscale {

/// Where the topology comes from: the live machine, a recorded XML file or a synthetic
/// description (for tests and for planning nodes not yet bought).
struct TopologySource {
  enum class Kind { live, xml, synthetic };
  Kind kind = Kind::live;
  std::string value;  // the XML path or the synthetic description

  /// "live", "xml:FILE" or "synthetic:SPEC", as recorded in the node record.
  [[nodiscard]] std::string describe() const;
};

/// The /proc files read for the live machine only; tests point them at fixtures.
struct ProcFiles {
  std::filesystem::path meminfo = "/proc/meminfo";
  std::filesystem::path cpuinfo = "/proc/cpuinfo";
};

struct ProbeResult {
  HardwareParts hardware;
  /// OS indices of the PUs this process may use: the allowed cpuset (Slurm's cgroup)
  /// and, on the live machine, the process binding (Slurm's task affinity).
  std::vector<unsigned> allowed_cpus;
  std::string source;  // TopologySource::describe()
};

/// The hardware hwloc describes in a loaded topology (docs/admin-classify.md, "Where the
/// hardware parts come from"); nothing is read from /proc.
HardwareParts describe_hardware(const HwlocTopology& topology);

/// Probes the node. Throws Error (message starting "hwloc:") when the topology cannot be
/// loaded.
ProbeResult probe_node(const TopologySource& source, const ProcFiles& proc = {});

/// The CPUs this process may use on the live machine (as ProbeResult::allowed_cpus).
std::vector<unsigned> live_allowed_cpus();

/// The hwloc release hetscale was built with, "2.9.0".
std::string hwloc_version();

}  // namespace hetscale
