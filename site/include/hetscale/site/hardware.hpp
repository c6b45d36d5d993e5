// What a node is made of, as the classifier's probe reports it, and the hardware
// fingerprint derived from it: nodes with the same hardware share the fingerprint.
// Pure data; the hwloc probe that fills it lives in classifier/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hetscale {

/// The data (or unified) caches of one level: size of one cache and how many there are.
struct CacheLevel {
  int level = 0;                 // 1, 2, 3...
  std::uint64_t size_bytes = 0;  // of one cache of this level
  std::uint32_t count = 0;       // caches of this level in the node

  bool operator==(const CacheLevel&) const = default;
};

struct HardwareParts {
  std::string cpu_vendor;  // "GenuineIntel", "AuthenticAMD"; empty when unknown
  std::string cpu_model;   // "AMD EPYC 7763 64-Core Processor"; empty when unknown
  std::uint32_t packages = 0;
  std::uint32_t cores = 0;
  std::uint32_t pus = 0;  // processing units (hardware threads)
  std::uint32_t numa_nodes = 0;
  std::vector<CacheLevel> caches;         // by level, ascending
  std::uint64_t memory_bytes = 0;         // as the kernel reports it (MemTotal); 0 when unknown
  double clock_mhz = 0;                   // nominal or current clock; 0 when unknown
  std::vector<std::string> accelerators;  // one entry per device, e.g. "GPU NVIDIA A100"

  bool operator==(const HardwareParts&) const = default;
};

/// Memory rounded to the coarse unit the fingerprint uses, in GiB: one eighth of the
/// largest power of two below the total (at least 1 GiB), so 251 GiB of MemTotal on a
/// 256 GiB node gives 256 and kernel reservations do not split twins.
std::uint64_t nominal_memory_gib(std::uint64_t memory_bytes);

/// The normalised text the fingerprint hashes (documented in docs/admin-classify.md):
/// vendor, model (trimmed, inner blanks collapsed), packages, cores, PUs, NUMA nodes,
/// caches, nominal memory, sorted accelerators. The clock is left out: /proc/cpuinfo
/// shows the current frequency, which changes from one read to the next.
std::string fingerprint_text(const HardwareParts& parts);

/// 16 lower-case hex digits: FNV-1a 64 of fingerprint_text (stable across builds,
/// compilers and hosts).
std::string hardware_fingerprint(const HardwareParts& parts);

}  // namespace hetscale
