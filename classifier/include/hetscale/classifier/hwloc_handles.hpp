// Move-only owners of hwloc's C handles, so that no path,
// exceptions included, leaks a topology or a bitmap.
#pragma once

#include <hwloc.h>

#include <string>
#include <string_view>
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

/// What a topology keeps of the I/O tree: PCI devices and their OS devices (GPUs,
/// co-processors...) by default. hwloc's type filters apply when a recorded topology is
/// read too, so a recording can be read as a host with fewer plugins would have seen it.
struct HwlocFilters {
  hwloc_type_filter_e os_devices = HWLOC_TYPE_FILTER_KEEP_IMPORTANT;
};

class HwlocTopology {
 public:
  /// The live machine, the whole of it (also the CPUs this process may not use).
  static HwlocTopology live();
  /// A recorded topology (lstopo --of xml). A file hwloc cannot read throws Error with
  /// hwloc's own explanation ("...: cannot import XML version 3.0 > 2"). hwloc reads the
  /// file in a child process, so that a file on which hwloc's reader crashes, hangs or
  /// leaks gives an Error too.
  static HwlocTopology from_xml(const std::string& path, const HwlocFilters& filters = {});
  /// A recorded topology held in memory; `name` names it in messages.
  static HwlocTopology from_xml_text(std::string_view text, const std::string& name,
                                     const HwlocFilters& filters = {});
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
  explicit HwlocTopology(
      const HwlocFilters& filters = {});  // initialised, not loaded; throws Error
  void load(const std::string& what);
  // The XML of a file (`path`) or a text, read in a child process; `what` names it.
  static HwlocTopology read_xml_isolated(const std::string* path, std::string_view text,
                                         const std::string& what, const HwlocFilters& filters);
  hwloc_topology_t topology_ = nullptr;
};

}  // namespace hetscale
