// hwloc behind one owner each: the topology, bitmaps, and pinning the calling thread.
#pragma once

#include <hwloc.h>

#include <vector>

namespace hetscale::markspeed {

class Bitmap {
 public:
  Bitmap();
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
  ~Bitmap();
  [[nodiscard]] hwloc_bitmap_t get() const noexcept { return bitmap_; }

 private:
  hwloc_bitmap_t bitmap_;
};

class Topology {
 public:
  Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  ~Topology();

  /// OS indices of the processing units allowed to, and bound to, this process.
  [[nodiscard]] std::vector<unsigned> allowed_processors() const;
  /// Binds the calling thread to one processing unit; throws Error.
  void pin_this_thread(unsigned cpu) const;
  /// Binds the calling thread to a set of processing units (the scheduler picks among
  /// them); throws Error.
  void bind_this_thread(const std::vector<unsigned>& cpus) const;

 private:
  hwloc_topology_t topology_ = nullptr;
};

}  // namespace hetscale::markspeed
