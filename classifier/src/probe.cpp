// hwloc probe: counts, identity, caches, CPU kinds, accelerators, memory tiers, allowed and
// offline processors; /proc fills what hwloc lacks on the live machine.
#include "hetscale/classifier/probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "hetscale/classifier/cpu_identity.hpp"
#include "hetscale/classifier/proc_files.hpp"

namespace hetscale {
namespace {

std::uint32_t count_of(hwloc_topology_t t, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(t, type);
  return n > 0 ? static_cast<std::uint32_t>(n) : 0;
}

std::uint32_t weight_of(hwloc_const_bitmap_t set) {
  const int n = set != nullptr ? hwloc_bitmap_weight(set) : 0;
  return n > 0 ? static_cast<std::uint32_t>(n) : 0;
}

std::string info_of(hwloc_obj_t obj, const char* name) {
  const char* value = hwloc_obj_get_info_by_name(obj, name);
  return value != nullptr ? value : "";
}

std::string info_in(const hwloc_info_s* infos, unsigned count, std::string_view name) {
  for (unsigned i = 0; i < count; ++i)
    if (infos[i].name != nullptr && infos[i].value != nullptr && name == infos[i].name)
      return infos[i].value;
  return "";
}

std::optional<double> number_of(const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value > 0)) return std::nullopt;
  return value;
}

// The first non-empty info `name`: on the machine (root) object, then the packages, then
// the CPU kinds (hwloc puts CPUVendor, CPUModel, CPUImplementer... at any of these, by
// architecture and version).
std::string identity_info(hwloc_topology_t t, const char* name) {
  if (std::string value = info_of(hwloc_get_root_obj(t), name); !value.empty()) return value;
  for (hwloc_obj_t p = nullptr;
       (p = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, p)) != nullptr;)
    if (std::string value = info_of(p, name); !value.empty()) return value;
  const int kinds = hwloc_cpukinds_get_nr(t, 0);
  for (int k = 0; k < kinds; ++k) {
    unsigned count = 0;
    hwloc_info_s* infos = nullptr;
    if (hwloc_cpukinds_get_info(t, static_cast<unsigned>(k), nullptr, nullptr, &count, &infos, 0) !=
        0)
      continue;
    if (std::string value = info_in(infos, count, name); !value.empty()) return value;
  }
  return "";
}

// Vendor and model from every source hwloc offers: CPUVendor and CPUModel (x86, POWER, the
// Linux /proc/cpuinfo of most architectures), an Arm CPU's implementer and part codes, and
// the vendor of a one-vendor architecture (POWER, s390x).
void read_identity(hwloc_topology_t t, HardwareParts& h) {
  h.architecture = info_of(hwloc_get_root_obj(t), "Architecture");
  const std::string implementer = identity_info(t, "CPUImplementer");
  h.cpu_vendor = identity_info(t, "CPUVendor");
  if (h.cpu_vendor.empty()) h.cpu_vendor = arm_implementer_name(implementer);
  if (h.cpu_vendor.empty()) h.cpu_vendor = architecture_vendor(h.architecture);
  h.cpu_model = identity_info(t, "CPUModel");
  if (h.cpu_model.empty()) h.cpu_model = arm_part_name(implementer, identity_info(t, "CPUPart"));
}

bool is_memory_side(hwloc_obj_t cache) {
  return cache->type == HWLOC_OBJ_MEMCACHE ||
         (cache->subtype != nullptr && std::string_view(cache->subtype) == "MemorySideCache");
}

// Data and unified caches by level; a level with caches of two sizes (hybrid cores)
// gives one entry per size. Memory-side caches follow, by level and size.
std::vector<CacheLevel> caches_of(hwloc_topology_t t) {
  const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                    HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
  std::vector<CacheLevel> out;
  std::map<std::pair<int, std::uint64_t>, std::uint32_t> memory_side;
  for (int level = 1; level <= 5; ++level) {
    std::map<std::uint64_t, std::uint32_t> sizes;
    for (hwloc_obj_t c = nullptr;
         (c = hwloc_get_next_obj_by_type(t, types[level - 1], c)) != nullptr;) {
      if (is_memory_side(c))
        ++memory_side[{level, c->attr->cache.size}];
      else
        ++sizes[c->attr->cache.size];
    }
    for (const auto& [size, count] : sizes) out.push_back({level, size, count, false});
  }
  for (hwloc_obj_t c = nullptr;
       (c = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_MEMCACHE, c)) != nullptr;)
    ++memory_side[{static_cast<int>(c->attr->cache.depth), c->attr->cache.size}];
  for (const auto& [key, count] : memory_side) out.push_back({key.first, key.second, count, true});
  return out;
}

std::vector<CpuKind> cpu_kinds_of(hwloc_topology_t t) {
  std::vector<CpuKind> out;
  const int kinds = hwloc_cpukinds_get_nr(t, 0);
  for (int k = 0; k < kinds; ++k) {
    HwlocBitmap set;
    int efficiency = -1;
    unsigned count = 0;
    hwloc_info_s* infos = nullptr;
    if (hwloc_cpukinds_get_info(t, static_cast<unsigned>(k), set.get(), &efficiency, &count, &infos,
                                0) != 0)
      continue;
    CpuKind kind;
    kind.cpus = set.indices();
    for (hwloc_obj_t core = nullptr;
         (core = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, core)) != nullptr;)
      if (!hwloc_bitmap_iszero(core->cpuset) && hwloc_bitmap_isincluded(core->cpuset, set.get()))
        ++kind.cores;
    if (efficiency >= 0) kind.efficiency = efficiency;
    kind.core_type = info_in(infos, count, "CoreType");
    kind.frequency_max_mhz = number_of(info_in(infos, count, "FrequencyMaxMHz"));
    kind.frequency_base_mhz = number_of(info_in(infos, count, "FrequencyBaseMHz"));
    out.push_back(std::move(kind));
  }
  return out;
}

// The nominal clock: the highest base frequency of a kind, else the highest maximum one.
std::optional<double> clock_of(const std::vector<CpuKind>& kinds) {
  std::optional<double> base, max;
  for (const CpuKind& k : kinds) {
    if (k.frequency_base_mhz) base = std::max(base.value_or(0), *k.frequency_base_mhz);
    if (k.frequency_max_mhz) max = std::max(max.value_or(0), *k.frequency_max_mhz);
  }
  return base ? base : max;
}

// What a NUMA node's memory is, from its subtype (hwloc's memory tiers: DRAM, HBM, NVM,
// SPM, GPUMemory; MCDRAM on KNL; CXL-DRAM, CXL-NVM in newer recordings) and its DAX and
// CXL infos; plain memory, which hwloc leaves unmarked, is DRAM.
std::string memory_kind(hwloc_obj_t node) {
  const std::string subtype = node->subtype != nullptr ? node->subtype : "";
  const std::string dax = info_of(node, "DAXType");
  if (subtype.starts_with("CXL") || !info_of(node, "CXLDevice").empty()) return "CXL";
  if (subtype == "MCDRAM" || subtype == "HBM") return "HBM";
  if (subtype == "GPUMemory") return "GPU";
  if (subtype == "NVM" || dax == "NVM") return "NVM";
  if (subtype == "SPM" || dax == "SPM") return "SPM";
  if (!subtype.empty() && subtype != "DRAM") return subtype;
  if (subtype.empty() && !info_of(node, "DAXDevice").empty()) return "DAX";
  return "DRAM";
}

std::vector<MemoryTier> memory_of(hwloc_topology_t t) {
  std::vector<MemoryTier> out;
  for (hwloc_obj_t n = nullptr;
       (n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n)) != nullptr;) {
    MemoryTier tier;
    tier.numa = n->os_index;
    if (n->attr->numanode.local_memory > 0) tier.bytes = n->attr->numanode.local_memory;
    tier.kind = memory_kind(n);
    out.push_back(std::move(tier));
  }
  std::sort(out.begin(), out.end(),
            [](const MemoryTier& a, const MemoryTier& b) { return a.numa < b.numa; });
  return out;
}

hwloc_obj_t pci_ancestor(hwloc_obj_t obj) {
  for (hwloc_obj_t p = obj->parent; p != nullptr; p = p->parent)
    if (p->type == HWLOC_OBJ_PCI_DEVICE) return p;
  return nullptr;
}

// A GPU OS device that computes (not a mere display: a BMC's VGA has card0 too).
bool is_compute_device(hwloc_obj_t osdev) {
  const hwloc_obj_osdev_type_t type = osdev->attr->osdev.type;
  if (type == HWLOC_OBJ_OSDEV_COPROC) return true;
  if (type != HWLOC_OBJ_OSDEV_GPU) return false;
  const std::string name = osdev->name != nullptr ? osdev->name : "";
  return name.starts_with("renderD") || name.starts_with("nvml") || name.starts_with("rsmi") ||
         hwloc_obj_get_info_by_name(osdev, "GPUModel") != nullptr;
}

// The kind of accelerator a PCI class makes: 3D controllers and other display
// controllers compute; processing accelerators (0x12) and co-processors (0x0b40) too. A
// VGA controller (0x0300) is a GPU only when an OS device shows it computes: a BMC's
// display is VGA too. Empty: not an accelerator by its class.
std::string kind_of_class(unsigned class_id) {
  if (class_id == 0x0302 || class_id == 0x0380) return "gpu";
  if ((class_id >> 8) == 0x12) return "accelerator";
  if (class_id == 0x0b40) return "coprocessor";
  return "";
}

std::string kind_of_osdev(hwloc_obj_t osdev) {
  return osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU ? "gpu" : "coprocessor";
}

// Device memory in bytes as the plugins report it (each in KiB).
std::optional<std::uint64_t> device_memory(hwloc_obj_t osdev) {
  std::optional<std::uint64_t> bytes;
  for (const char* name : {"CUDAGlobalMemorySize", "OpenCLGlobalMemorySize", "RSMIVRAMSize",
                           "LevelZeroHBMSize", "LevelZeroDDRSize", "VectorEngineMemorySize"}) {
    const std::string text = info_of(osdev, name);
    std::uint64_t kib = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), kib);
    if (!text.empty() && error == std::errc() && end == text.data() + text.size() && kib > 0)
      bytes = std::max(bytes.value_or(0), kib * 1024);
  }
  return bytes;
}

// What the OS devices of one device say about it.
struct OsdevFacts {
  bool computes = false;
  std::string kind;                     // of the first computing OS device
  std::set<std::string> models;         // GPUModel of each
  std::optional<std::uint64_t> memory;  // the largest reported
};

std::vector<unsigned> local_numa_nodes(hwloc_topology_t t, hwloc_obj_t obj) {
  hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(t, obj);
  if (ancestor == nullptr || ancestor->nodeset == nullptr) return {};
  return HwlocBitmap(ancestor->nodeset).indices();
}

Accelerator pci_accelerator(hwloc_topology_t t, hwloc_obj_t pci, const std::string& kind,
                            const OsdevFacts& facts) {
  const auto& p = pci->attr->pcidev;
  Accelerator a;
  a.kind = kind;
  a.pci_id = fmt::format("{:04x}:{:04x}", p.vendor_id, p.device_id);
  a.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.{:01x}", p.domain, p.bus, p.dev, p.func);
  a.vendor = pci_vendor_name(p.vendor_id);
  if (a.vendor.empty()) a.vendor = info_of(pci, "PCIVendor");
  // Every GPU plugin (NVML, CUDA, OpenCL, RSMI, Level Zero) names the board alike; the
  // PCI database's name is the fallback.
  a.model = facts.models.empty() ? info_of(pci, "PCIDevice") : *facts.models.begin();
  a.memory_bytes = facts.memory;
  a.numa = local_numa_nodes(t, pci);
  return a;
}

// One entry per device, whichever plugins found it: a PCI device whose class computes, or
// which has a computing OS device (CUDA, OpenCL, NVML, a render node...), however many OS
// devices it has; a computing OS device outside any PCI device, alone.
std::vector<Accelerator> accelerators_of(hwloc_topology_t t) {
  std::map<hwloc_obj_t, OsdevFacts> by_device;  // key: the PCI device, or the OS device
  std::vector<hwloc_obj_t> outside_pci;         // computing OS devices of no PCI device, in order
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(t, o)) != nullptr;) {
    if (!is_compute_device(o)) continue;
    hwloc_obj_t pci = pci_ancestor(o);
    if (pci == nullptr) outside_pci.push_back(o);
    OsdevFacts& facts = by_device[pci != nullptr ? pci : o];
    if (!facts.computes) facts.kind = kind_of_osdev(o);
    facts.computes = true;
    if (std::string model = info_of(o, "GPUModel"); !model.empty()) facts.models.insert(model);
    if (const auto memory = device_memory(o))
      facts.memory = std::max(facts.memory.value_or(0), *memory);
  }
  std::vector<Accelerator> out;
  for (hwloc_obj_t pci = nullptr; (pci = hwloc_get_next_pcidev(t, pci)) != nullptr;) {
    const auto it = by_device.find(pci);
    const OsdevFacts facts = it != by_device.end() ? it->second : OsdevFacts{};
    std::string kind = kind_of_class(pci->attr->pcidev.class_id);
    if (kind.empty() && facts.computes)
      kind = (pci->attr->pcidev.class_id >> 8) == 0x03 ? "gpu" : facts.kind;
    if (!kind.empty()) out.push_back(pci_accelerator(t, pci, kind, facts));
  }
  for (hwloc_obj_t device : outside_pci) {
    const OsdevFacts& facts = by_device.at(device);
    Accelerator a;
    a.kind = facts.kind;
    a.model = facts.models.empty() ? (device->name != nullptr ? device->name : "")
                                   : *facts.models.begin();
    a.vendor = info_of(device, "GPUVendor");
    a.memory_bytes = facts.memory;
    a.numa = local_numa_nodes(t, device);
    out.push_back(std::move(a));
  }
  std::stable_sort(out.begin(), out.end(), [](const Accelerator& a, const Accelerator& b) {
    return std::pair(a.pci_bus_id.empty(), a.pci_bus_id) <
           std::pair(b.pci_bus_id.empty(), b.pci_bus_id);
  });
  return out;
}

// How many of the `online` set `allowed` holds (of the online ones), and how many of the
// `complete` set are not online (of them all).
std::pair<PartOf, PartOf> allowed_and_offline(hwloc_const_bitmap_t allowed,
                                              hwloc_const_bitmap_t online,
                                              hwloc_const_bitmap_t complete) {
  HwlocBitmap allowed_online(allowed);
  hwloc_bitmap_and(allowed_online.get(), allowed_online.get(), online);
  const std::uint32_t online_count = weight_of(online);
  const std::uint32_t all = weight_of(complete);
  return {PartOf{weight_of(allowed_online.get()), online_count},
          PartOf{all - std::min(online_count, all), all}};
}

// Allowed processing units and NUMA nodes (Slurm's cgroup, a recording's allowed sets) out
// of the online ones, and offline ones out of all (hwloc's complete sets).
void read_allocation(hwloc_topology_t t, HardwareParts& h) {
  hwloc_obj_t root = hwloc_get_root_obj(t);
  std::tie(h.allowed_pus, h.offline_pus) =
      allowed_and_offline(hwloc_topology_get_allowed_cpuset(t), root->cpuset,
                          hwloc_topology_get_complete_cpuset(t));
  std::tie(h.allowed_numa_nodes, h.offline_numa_nodes) =
      allowed_and_offline(hwloc_topology_get_allowed_nodeset(t), root->nodeset,
                          hwloc_topology_get_complete_nodeset(t));
}

// Allowed cpuset, and on the live machine also the process binding.
std::vector<unsigned> allowed_cpus(const HwlocTopology& topology) {
  hwloc_topology_t t = topology.get();
  HwlocBitmap allowed(hwloc_topology_get_allowed_cpuset(t));
  if (topology.is_this_system()) {
    HwlocBitmap bound;
    if (hwloc_get_cpubind(t, bound.get(), HWLOC_CPUBIND_PROCESS) == 0)
      hwloc_bitmap_and(allowed.get(), allowed.get(), bound.get());
  }
  return allowed.indices();
}

HwlocTopology load(const TopologySource& source) {
  switch (source.kind) {
    case TopologySource::Kind::xml:
      return HwlocTopology::from_xml(source.value);
    case TopologySource::Kind::synthetic:
      return HwlocTopology::synthetic(source.value);
    case TopologySource::Kind::live:
      break;
  }
  return HwlocTopology::live();
}

// Live machine: /proc/meminfo's total (hwloc's is wrong on some virtual machines), and
// /proc/cpuinfo's clock, vendor and model where hwloc has none (hwloc 2.9 reads no
// /proc/cpuinfo on aarch64).
void fill_from_proc(HardwareParts& h, const ProcFiles& proc) {
  std::ifstream meminfo(proc.meminfo);
  if (const std::uint64_t total = meminfo_total_bytes(meminfo); total > 0) h.memory_bytes = total;
  std::ifstream cpuinfo(proc.cpuinfo);
  const CpuinfoFacts facts = parse_cpuinfo(cpuinfo);
  if (!h.clock_mhz && facts.mhz > 0) h.clock_mhz = facts.mhz;
  if (h.cpu_vendor.empty()) h.cpu_vendor = facts.vendor;
  if (h.cpu_vendor.empty()) h.cpu_vendor = arm_implementer_name(facts.implementer);
  if (h.cpu_model.empty()) h.cpu_model = facts.model;
  if (h.cpu_model.empty()) h.cpu_model = arm_part_name(facts.implementer, facts.part);
}

}  // namespace

std::string TopologySource::describe() const {
  switch (kind) {
    case Kind::xml:
      return "xml:" + value;
    case Kind::synthetic:
      return "synthetic:" + value;
    case Kind::live:
      break;
  }
  return "live";
}

HardwareParts describe_hardware(const HwlocTopology& topology) {
  hwloc_topology_t t = topology.get();
  HardwareParts h;
  read_identity(t, h);
  h.packages = count_of(t, HWLOC_OBJ_PACKAGE);
  h.cores = count_of(t, HWLOC_OBJ_CORE);
  h.pus = count_of(t, HWLOC_OBJ_PU);
  h.numa_nodes = count_of(t, HWLOC_OBJ_NUMANODE);
  h.caches = caches_of(t);
  if (const std::uint64_t total = hwloc_get_root_obj(t)->total_memory; total > 0)
    h.memory_bytes = total;
  h.accelerators = accelerators_of(t);
  h.cpu_kinds = cpu_kinds_of(t);
  h.clock_mhz = clock_of(h.cpu_kinds);
  h.memory = memory_of(t);
  read_allocation(t, h);
  return h;
}

ProbeResult probe_node(const TopologySource& source, const ProcFiles& proc) {
  const HwlocTopology topology = load(source);
  ProbeResult result;
  result.hardware = describe_hardware(topology);
  if (source.kind == TopologySource::Kind::live && topology.is_this_system())
    fill_from_proc(result.hardware, proc);
  result.allowed_cpus = allowed_cpus(topology);
  result.source = source.describe();
  return result;
}

std::vector<unsigned> live_allowed_cpus() {
  return allowed_cpus(HwlocTopology::live());
}

std::string hwloc_version() {
  return HWLOC_VERSION;
}

}  // namespace hetscale
