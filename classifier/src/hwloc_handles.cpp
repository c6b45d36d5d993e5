#include "hetscale/classifier/hwloc_handles.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "hetscale/base/error.hpp"

namespace hetscale {

HwlocBitmap::HwlocBitmap() : bitmap_(hwloc_bitmap_alloc()) {
  if (bitmap_ == nullptr) throw std::bad_alloc();
}

HwlocBitmap::HwlocBitmap(hwloc_const_bitmap_t copy_of) : bitmap_(hwloc_bitmap_dup(copy_of)) {
  if (bitmap_ == nullptr) throw std::bad_alloc();
}

HwlocBitmap::HwlocBitmap(HwlocBitmap&& other) noexcept
    : bitmap_(std::exchange(other.bitmap_, nullptr)) {}

HwlocBitmap& HwlocBitmap::operator=(HwlocBitmap&& other) noexcept {
  std::swap(bitmap_, other.bitmap_);
  return *this;
}

HwlocBitmap::~HwlocBitmap() {
  if (bitmap_ != nullptr) hwloc_bitmap_free(bitmap_);
}

std::vector<unsigned> HwlocBitmap::indices() const {
  std::vector<unsigned> out;
  for (int i = hwloc_bitmap_first(bitmap_); i >= 0; i = hwloc_bitmap_next(bitmap_, i))
    out.push_back(static_cast<unsigned>(i));
  return out;
}

HwlocTopology::HwlocTopology() {
  if (hwloc_topology_init(&topology_) != 0) throw Error("hwloc: cannot initialise a topology");
  // The whole machine, not only the job's CPUs: the fingerprint must not depend on the
  // allocation. The allocation is read separately (allowed cpuset, binding).
  hwloc_topology_set_flags(topology_, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  // PCI devices and their OS devices, to find accelerators.
  hwloc_topology_set_io_types_filter(topology_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
}

HwlocTopology::HwlocTopology(HwlocTopology&& other) noexcept
    : topology_(std::exchange(other.topology_, nullptr)) {}

HwlocTopology& HwlocTopology::operator=(HwlocTopology&& other) noexcept {
  std::swap(topology_, other.topology_);
  return *this;
}

HwlocTopology::~HwlocTopology() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

void HwlocTopology::load(const std::string& what) {
  errno = 0;
  if (hwloc_topology_load(topology_) != 0)
    throw Error(fmt::format("hwloc: cannot load the topology of {}: {}", what,
                            errno != 0 ? std::strerror(errno) : "unknown error"));
}

HwlocTopology HwlocTopology::live() {
  HwlocTopology t;
  t.load("this machine");
  return t;
}

HwlocTopology HwlocTopology::from_xml(const std::string& path) {
  HwlocTopology t;
  errno = 0;
  if (hwloc_topology_set_xml(t.topology_, path.c_str()) != 0)
    throw Error(fmt::format("hwloc: cannot read topology file '{}': {}", path,
                            errno != 0 ? std::strerror(errno) : "not a valid hwloc XML file"));
  t.load(fmt::format("'{}'", path));
  return t;
}

HwlocTopology HwlocTopology::synthetic(const std::string& description) {
  HwlocTopology t;
  if (hwloc_topology_set_synthetic(t.topology_, description.c_str()) != 0)
    throw Error(fmt::format("hwloc: invalid synthetic topology \"{}\"", description));
  t.load(fmt::format("synthetic \"{}\"", description));
  return t;
}

bool HwlocTopology::is_this_system() const {
  return hwloc_topology_is_thissystem(topology_) != 0;
}

}  // namespace hetscale
