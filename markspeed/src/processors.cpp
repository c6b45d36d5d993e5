#include "processors.hpp"

#include <cstdlib>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/markspeed.hpp"

namespace hetscale::markspeed {
namespace {

// "0-3,8": hwloc's list form of a set, for messages.
std::string hwloc_list(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0 || text == nullptr) return "?";
  std::string list = text;
  std::free(text);
  return list;
}

}  // namespace

Bitmap::Bitmap() : bitmap_(hwloc_bitmap_alloc()) {
  if (bitmap_ == nullptr) throw Error("hwloc: cannot allocate a bitmap");
}

Bitmap::~Bitmap() { hwloc_bitmap_free(bitmap_); }

Topology::Topology() {
  if (hwloc_topology_init(&topology_) != 0) throw Error("hwloc: cannot initialise the topology");
  if (hwloc_topology_load(topology_) != 0) {
    hwloc_topology_destroy(topology_);
    throw Error("hwloc: cannot load the topology");
  }
}

Topology::~Topology() { hwloc_topology_destroy(topology_); }

std::vector<unsigned> Topology::allowed_processors() const {
  Bitmap usable;
  hwloc_bitmap_copy(usable.get(), hwloc_topology_get_allowed_cpuset(topology_));
  Bitmap bound;
  if (hwloc_get_cpubind(topology_, bound.get(), HWLOC_CPUBIND_PROCESS) == 0) {
    hwloc_bitmap_and(usable.get(), usable.get(), bound.get());
  }
  std::vector<unsigned> cpus;
  for (int i = hwloc_bitmap_first(usable.get()); i >= 0; i = hwloc_bitmap_next(usable.get(), i)) {
    cpus.push_back(static_cast<unsigned>(i));
  }
  return cpus;
}

void Topology::pin_this_thread(unsigned cpu) const {
  Bitmap set;
  hwloc_bitmap_only(set.get(), cpu);
  if (hwloc_set_cpubind(topology_, set.get(), HWLOC_CPUBIND_THREAD) != 0) {
    throw Error("hwloc: cannot bind a worker to processor " + std::to_string(cpu));
  }
}

void Topology::bind_this_thread(const std::vector<unsigned>& cpus) const {
  Bitmap set;
  for (unsigned cpu : cpus) hwloc_bitmap_set(set.get(), cpu);
  if (hwloc_set_cpubind(topology_, set.get(), HWLOC_CPUBIND_THREAD) != 0) {
    throw Error("hwloc: cannot bind a worker to processors " + hwloc_list(set.get()));
  }
}

std::vector<unsigned> allowed_processors() { return Topology().allowed_processors(); }

}  // namespace hetscale::markspeed
