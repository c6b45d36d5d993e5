// What a node is made of, as the classifier's probe reports it, and the hardware
// fingerprint derived from it: nodes with the same hardware share the fingerprint.
// Pure data; the hwloc probe that fills it lives in classifier/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetscale {

/// The data (or unified) caches of one level: size of one cache and how many there are.
/// A memory-side cache (in front of a NUMA node's memory: the DRAM cache of Optane in
/// memory mode, KNL's MCDRAM in cache mode) is listed apart with `memory_side`.
struct CacheLevel {
  int level = 0;                 // 1, 2, 3...
  std::uint64_t size_bytes = 0;  // of one cache of this level
  std::uint32_t count = 0;       // caches of this level in the node
  bool memory_side = false;

  bool operator==(const CacheLevel&) const = default;
};

/// One kind of core of a hybrid processor, as hwloc ranks them (hwloc_cpukinds_*).
struct CpuKind {
  std::vector<unsigned> cpus;     // OS indices of its processing units, ascending
  std::uint32_t cores = 0;        // cores whose processing units are of this kind
  std::optional<int> efficiency;  // hwloc's rank: 0 the most power-efficient kind; none: unranked
  std::string core_type;          // hwloc's CoreType ("IntelAtom", "IntelCore"); empty: not given
  std::optional<double> frequency_max_mhz;   // FrequencyMaxMHz
  std::optional<double> frequency_base_mhz;  // FrequencyBaseMHz

  bool operator==(const CpuKind&) const = default;
};

/// One accelerator (GPU, vector engine, co-processor), one entry per device however many
/// OS devices (CUDA, OpenCL, NVML, render node...) hwloc's plugins gave it. A PCI device is
/// identified by its PCI vendor:device id, whichever plugins found it.
struct Accelerator {
  std::string kind;    // "gpu", "coprocessor", "accelerator" (from the PCI class)
  std::string vendor;  // "NVIDIA", "NEC"...; empty when unknown
  std::string model;   // "Tesla V100-SXM2-32GB"; empty when unknown
  std::optional<std::uint64_t> memory_bytes;  // device memory, when a plugin reports it
  std::string pci_bus_id;                     // "0000:3b:00.0"; empty when not a PCI device
  std::string pci_id;                         // "10de:1db5"; empty when not a PCI device
  std::vector<unsigned> numa;                 // OS indices of the NUMA nodes it is local to

  bool operator==(const Accelerator&) const = default;
};

/// The memory of one NUMA node and what it is made of.
struct MemoryTier {
  unsigned numa = 0;                   // the NUMA node's OS index
  std::optional<std::uint64_t> bytes;  // none when the topology does not say
  /// DRAM, HBM (MCDRAM too), NVM, SPM (specific-purpose memory), CXL, GPU (a GPU's memory as
  /// a NUMA node), DAX (a DAX device of unknown type).
  std::string kind;

  bool operator==(const MemoryTier&) const = default;
};

/// `count` of `of`: how many of the node's processing units (or NUMA nodes) are allowed
/// to this process, or offline.
struct PartOf {
  std::uint32_t count = 0;
  std::uint32_t of = 0;

  bool operator==(const PartOf&) const = default;
};

struct HardwareParts {
  std::string cpu_vendor;    // "GenuineIntel", "AuthenticAMD", "ARM", "IBM"; empty when unknown
  std::string cpu_model;     // "AMD EPYC 7763 64-Core Processor"; empty when unknown
  std::string architecture;  // "x86_64", "aarch64", "ppc64le"; empty when unknown
  std::uint32_t packages = 0;
  std::uint32_t cores = 0;
  std::uint32_t pus = 0;  // processing units (hardware threads) online, allowed or not
  std::uint32_t numa_nodes = 0;
  std::vector<CacheLevel> caches;             // by level, ascending; memory-side ones last
  std::optional<std::uint64_t> memory_bytes;  // as the kernel reports it (MemTotal)
  std::optional<double> clock_mhz;            // nominal (or current) clock
  std::vector<Accelerator> accelerators;      // by PCI bus id
  std::vector<CpuKind> cpu_kinds;             // as hwloc ranks them; empty when it has none
  std::vector<MemoryTier> memory;             // per NUMA node, by OS index
  // Absent in records written before they were added.
  std::optional<PartOf> allowed_pus;         // of `pus`
  std::optional<PartOf> offline_pus;         // of every processing unit, online or not
  std::optional<PartOf> allowed_numa_nodes;  // of `numa_nodes`
  std::optional<PartOf> offline_numa_nodes;  // of every NUMA node, online or not

  bool operator==(const HardwareParts&) const = default;
};

/// Memory rounded to the coarse unit the fingerprint uses, in GiB: one eighth of the
/// largest power of two below the total (at least 1 GiB), so 251 GiB of MemTotal on a
/// 256 GiB node gives 256 and kernel reservations do not split twins.
std::uint64_t nominal_memory_gib(std::uint64_t memory_bytes);

/// How an accelerator enters the fingerprint: its kind and PCI id ("gpu 10de:1db5"), which
/// every plugin set agrees on, or its kind and model when it is no PCI device.
std::string accelerator_identity(const Accelerator& accelerator);

/// The normalised text the fingerprint hashes (documented in docs/admin-classify.md):
/// vendor, model (trimmed, inner blanks collapsed), packages, cores, PUs, NUMA nodes,
/// caches, nominal memory, sorted accelerators; then, only where they tell nodes apart,
/// the kinds of a hybrid processor, memory-side caches and the memory tiers of a node
/// with memory other than DRAM. The clock and frequencies are left out: they change from
/// one read to the next.
std::string fingerprint_text(const HardwareParts& parts);

/// 16 lower-case hex digits: FNV-1a 64 of fingerprint_text (stable across builds,
/// compilers and hosts).
std::string hardware_fingerprint(const HardwareParts& parts);

/// What a node has, in one line for people: "2x64c AMD EPYC 9554, 4x H100 80 GB,
/// 768 GB DRAM" (docs/admin-classify.md, "What a group has").
std::string hardware_summary(const HardwareParts& parts);

}  // namespace hetscale
