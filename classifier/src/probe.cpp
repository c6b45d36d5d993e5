// hwloc probe: counts, caches, accelerators, allocation; /proc fills what hwloc lacks.
#include "hetscale/classifier/probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "hetscale/classifier/hwloc_handles.hpp"
#include "hetscale/classifier/proc_files.hpp"

namespace hetscale {
namespace {

std::uint32_t count_of(hwloc_topology_t t, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(t, type);
  return n > 0 ? static_cast<std::uint32_t>(n) : 0;
}

// First non-empty info `name` over the packages (all packages of a node are alike).
std::string package_info(hwloc_topology_t t, const char* name) {
  for (hwloc_obj_t p = nullptr;
       (p = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, p)) != nullptr;) {
    if (const char* value = hwloc_obj_get_info_by_name(p, name); value != nullptr && *value != '\0')
      return value;
  }
  return "";
}

// Data and unified caches by level; a level with caches of two sizes (hybrid cores)
// gives one entry per size.
std::vector<CacheLevel> caches_of(hwloc_topology_t t) {
  const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                    HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
  std::vector<CacheLevel> out;
  for (int level = 1; level <= 5; ++level) {
    std::map<std::uint64_t, std::uint32_t> sizes;
    for (hwloc_obj_t c = nullptr;
         (c = hwloc_get_next_obj_by_type(t, types[level - 1], c)) != nullptr;)
      ++sizes[c->attr->cache.size];
    for (const auto& [size, count] : sizes) out.push_back({level, size, count});
  }
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

std::string device_description(hwloc_obj_t osdev, hwloc_obj_t pci) {
  if (const char* model = hwloc_obj_get_info_by_name(osdev, "GPUModel")) return model;
  if (pci != nullptr && pci->name != nullptr) return pci->name;
  if (pci != nullptr)
    return fmt::format("pci {:04x}:{:04x}", pci->attr->pcidev.vendor_id,
                       pci->attr->pcidev.device_id);
  return osdev->name != nullptr ? osdev->name : "unknown";
}

// One entry per device: several OS devices (card0, renderD128, cuda0, opencl0d0) of one
// PCI device are one accelerator.
std::vector<std::string> accelerators_of(hwloc_topology_t t) {
  std::map<const void*, std::pair<bool, std::string>> devices;  // key: PCI device or osdev
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(t, o)) != nullptr;) {
    if (!is_compute_device(o)) continue;
    hwloc_obj_t pci = pci_ancestor(o);
    const void* key = pci != nullptr ? static_cast<const void*>(pci) : static_cast<const void*>(o);
    auto& [coproc_only, description] = devices[key];
    const bool first = description.empty();
    if (first || hwloc_obj_get_info_by_name(o, "GPUModel") != nullptr)
      description = device_description(o, pci);
    coproc_only = (first || coproc_only) && o->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC;
  }
  std::vector<std::string> out;
  for (const auto& [key, device] : devices)
    out.push_back((device.first ? "CoProc " : "GPU ") + device.second);
  std::sort(out.begin(), out.end());
  return out;
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

// Live machine: /proc/meminfo's total and /proc/cpuinfo's clock (hwloc has neither here);
// vendor and model too when hwloc has none.
void fill_from_proc(HardwareParts& h, const ProcFiles& proc) {
  std::ifstream meminfo(proc.meminfo);
  if (const std::uint64_t total = meminfo_total_bytes(meminfo); total > 0) h.memory_bytes = total;
  std::ifstream cpuinfo(proc.cpuinfo);
  const CpuinfoFacts facts = parse_cpuinfo(cpuinfo);
  if (h.clock_mhz == 0) h.clock_mhz = facts.mhz;
  if (h.cpu_vendor.empty()) h.cpu_vendor = facts.vendor;
  if (h.cpu_model.empty()) h.cpu_model = facts.model;
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

ProbeResult probe_node(const TopologySource& source, const ProcFiles& proc) {
  const HwlocTopology topology = load(source);
  hwloc_topology_t t = topology.get();
  ProbeResult result;
  HardwareParts& h = result.hardware;
  h.cpu_vendor = package_info(t, "CPUVendor");
  h.cpu_model = package_info(t, "CPUModel");
  h.packages = count_of(t, HWLOC_OBJ_PACKAGE);
  h.cores = count_of(t, HWLOC_OBJ_CORE);
  h.pus = count_of(t, HWLOC_OBJ_PU);
  h.numa_nodes = count_of(t, HWLOC_OBJ_NUMANODE);
  h.caches = caches_of(t);
  h.memory_bytes = hwloc_get_root_obj(t)->total_memory;
  h.accelerators = accelerators_of(t);
  if (source.kind == TopologySource::Kind::live && topology.is_this_system())
    fill_from_proc(h, proc);
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
