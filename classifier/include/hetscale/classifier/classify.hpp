// classify: probe + fingerprint + benchmark -> one node record. Never throws for a
// node that cannot be measured: the record says "excluded" and why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetscale/classifier/availability_sampling.hpp"
#include "hetscale/classifier/benchmark.hpp"
#include "hetscale/classifier/probe.hpp"
#include "hetscale/site/node_record.hpp"

namespace hetscale {

struct ClassifyOptions {
  TopologySource topology;
  ProcFiles proc;
  std::string benchmark = "dgemm";
  double seconds = 2;
  std::size_t size = 0;  // benchmark problem size; 0: the benchmark's default
  /// The CPUs this process may use. Empty: the allowed CPUs of the probed topology when it
  /// is the live one, else this machine's (a recorded or synthetic topology only describes).
  std::vector<unsigned> cpus;
  /// Slurm's CPU count for the job on this node (SLURM_CPUS_ON_NODE); 0: not under Slurm.
  std::uint32_t slurm_cpus = 0;
  std::string host;  // empty: this machine's host name
  std::string time;  // empty: now (ISO 8601 UTC)
  AvailabilityOptions availability;  // seconds 0: not measured
};

/// Where the benchmark's workers run.
struct CpuChoice {
  std::vector<unsigned> cpus;  // the CPUs they run on
  std::uint32_t workers = 0;   // how many workers: the record's `processors`
  bool pinned = true;          // one worker pinned to each of `cpus`; else `workers` sharing them
  std::string reason;          // why, in words, for the record
};

/// One pinned worker per allowed CPU, unless Slurm gave the job fewer CPUs here than the
/// process may use: then its task plugin bound nothing (task/none), the allowed CPUs are
/// the whole node's, and pinning to some of them would put concurrent jobs (or two
/// classify steps) on the same CPUs, so `slurm_cpus` workers run unpinned.
/// `slurm_cpus` 0: not under Slurm.
CpuChoice choose_cpus(const std::vector<unsigned>& allowed, std::uint32_t slurm_cpus);

/// On a node of several CPU kinds, each kind is then measured on its own CPUs among those
/// the job may use (the record's kind_speeds; a kind that fails excludes the node).
/// With options.availability.seconds > 0, after the marked speed the node's availability
/// is sampled with `sampler` on the same CPUs, workers and problem size, relative to
/// options.availability.marked_speed when given, else to the marked speed just measured;
/// a sampling that fails excludes the node, saying why.
NodeRecord classify_node(const ClassifyOptions& options, const BenchmarkFunction& benchmark,
                         const SamplingFunction& sampler = {});

/// This machine's host name, up to the first dot (as Slurm names nodes).
std::string short_host_name();

}  // namespace hetscale
