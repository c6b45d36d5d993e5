// Move-only owners of hwloc's C handles, so that no path,
// exceptions included, leaks a topology or a bitmap.
#pragma once

#include <hwloc.h>

#include <string>
#include <vector>

namespace hetscale {

class HwlocBitmap {
 public:
  HwlocBitmap();  // an empty set; throws std::bad_alloc when hwloc cannot allocate
  explicit HwlocBitmap(hwloc_const_bitmap_t copy_of);
  HwlocBitmap(HwlocBitmap&& other) noexcept;
  HwlocBitmap& operator=(HwlocBitmap&& other) noexcept;
  HwlocBitmap(const HwlocBitmap&) = delete;
  HwlocBitmap& operator=(const HwlocBitmap&) = delete;
  ~HwlocBitmap();

  [[nodiscard]] hwloc_bitmap_t get() const noexcept { return bitmap_; }
  /// The indices in the set, ascending.
  [[nodiscard]] std::vector<unsigned> indices() const;

 private:
  hwloc_bitmap_t bitmap_;
};

class HwlocTopology {
 public:
  /// The live machine, the whole of it (also the CPUs this process may not use).
  static HwlocTopology live();
  /// A recorded topology (lstopo --of xml).
  static HwlocTopology from_xml(const std::string& path);
  /// A synthetic description such as "pack:2 core:8 pu:2".
  static HwlocTopology synthetic(const std::string& description);

  HwlocTopology(HwlocTopology&& other) noexcept;
  HwlocTopology& operator=(HwlocTopology&& other) noexcept;
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  ~HwlocTopology();

  [[nodiscard]] hwloc_topology_t get() const noexcept { return topology_; }
  /// True when the topology describes the machine this process runs on.
  [[nodiscard]] bool is_this_system() const;

 private:
  HwlocTopology();  // initialised, not loaded; throws Error on failure
  void load(const std::string& what);
  hwloc_topology_t topology_ = nullptr;
};

}  // namespace hetscale
