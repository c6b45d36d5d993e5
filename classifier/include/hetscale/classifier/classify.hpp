// classify: probe + fingerprint + benchmark -> one node record. Never throws for a
// node that cannot be measured: the record says "excluded" and why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetscale/classifier/benchmark.hpp"
#include "hetscale/classifier/probe.hpp"
#include "hetscale/node_record.hpp"

namespace hetscale {

struct ClassifyOptions {
  TopologySource topology;
  ProcFiles proc;
  std::string benchmark = "dgemm";
  double seconds = 2;
  /// CPUs to benchmark on. Empty: the allowed CPUs of the probed topology when it is the
  /// live one, else this machine's (a recorded or synthetic topology only describes).
  std::vector<unsigned> cpus;
  /// At most this many of them (0: no cap): Slurm's CPU count on this node
  /// (SLURM_CPUS_ON_NODE), for clusters whose task plugin binds nothing (task/none).
  std::uint32_t max_cpus = 0;
  std::string host;  // empty: this machine's host name
  std::string time;  // empty: now (ISO 8601 UTC)
};

NodeRecord classify_node(const ClassifyOptions& options, const BenchmarkFunction& benchmark);

/// This machine's host name, up to the first dot (as Slurm names nodes).
std::string short_host_name();

/// Now, as "2026-11-21T06:10:00Z".
std::string utc_now();

}  // namespace hetscale
