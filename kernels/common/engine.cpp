#include "common/engine.hpp"

#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <vector>

#include "hetscale/base/error.hpp"

#ifdef HETSCALE_SIMGRID
#include <simgrid/actor.h>
#include <simgrid/version.h>
#include <simgrid/zone.h>
#include <xbt/config.h>

#include "hetscale/site/site_table.hpp"
#endif

namespace hetscale::kernels {

ComputeMode parse_compute_mode(std::string_view text, bool simgrid) {
  if (text == "real") return ComputeMode::real;
  if (text == "flops") {
    if (!simgrid) {
      throw Error(
          "--compute flops: only the SimGrid build (hetscale-twin-*) charges operations; this "
          "build computes");
    }
    return ComputeMode::flops;
  }
  throw Error("--compute: expected real or flops, not '" + std::string(text) + "'");
}

const char* to_string(ComputeMode mode) noexcept {
  return mode == ComputeMode::real ? "real" : "flops";
}

std::size_t folded_block_bytes(std::size_t n) {
  constexpr std::size_t smpi_default = std::size_t{1} << 20;
  const double side = static_cast<double>(n) + 1;
  const double largest = side * side * 16;  // bytes of (n + 1)^2 complex numbers
  std::size_t block = smpi_default;
  while (static_cast<double>(block) * static_cast<double>(folded_blocks_per_buffer) < largest &&
         block < (std::size_t{1} << 40))
    block *= 2;
  return block;
}

#ifdef HETSCALE_SIMGRID

namespace {
// The command line's smpi/simulate-computation, as the first rank to start found it.
std::optional<bool>& benchmarking() {
  static std::optional<bool> value;
  return value;
}
}  // namespace

void begin_engine() {
  if (!benchmarking()) benchmarking() = sg_cfg_get_boolean("smpi/simulate-computation") != 0;
  sg_cfg_set_boolean("smpi/simulate-computation", "no");
}

void prepare_engine(ComputeMode mode, std::size_t n) {
  if (mode == ComputeMode::real && benchmarking().value_or(true)) {
    sg_cfg_set_boolean("smpi/simulate-computation", "yes");
  }
  // Read by SMPI at every shared allocation, and the size of the one file every block
  // maps, made at the first: set by every rank (the same value) before any allocates.
  const auto block = static_cast<double>(folded_block_bytes(n));
  if (sg_cfg_get_double("smpi/shared-malloc-blocksize") != block)
    sg_cfg_set_double("smpi/shared-malloc-blocksize", block);
}

namespace {
// Written once before the ranks compute (the same value on every rank), read by all.
double compute_efficiency = 1;
}  // namespace

void set_compute_efficiency(double efficiency) { compute_efficiency = efficiency; }

void charge_operations(double operations) {
  if (operations > 0) smpi_execute_flops(operations / compute_efficiency);
}

void idle_for(double seconds) {
  if (seconds > 0) sg_actor_sleep_for(seconds);
}

void charge_collective_overhead(CollectiveKind kind, int ranks) {
  // Read once, by the first rank that calls (the same platform for all).
  static const Network platform = [] {
    Network read;
    for (const CollectiveOverheadField& field : kCollectiveOverheadFields)
      read.*field.member =
          parse_overhead_property(field.property, sg_zone_get_property_value(sg_zone_get_root(), field.property));
    return read;
  }();
  const CollectiveOverhead& overhead = kind == CollectiveKind::barrier     ? platform.barrier_overhead
                                       : kind == CollectiveKind::broadcast ? platform.broadcast_overhead
                                                                           : platform.allreduce_overhead;
  const double seconds = overhead.seconds(ranks);
  if (seconds > 0) sg_actor_sleep_for(seconds);
}


std::string rank_host_name() {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  MPI_Get_processor_name(name.data(), &length);
  return std::string(name.data(), static_cast<std::size_t>(length));
}

std::optional<std::string> record_engine() {
  return "simgrid";
}

std::optional<std::string> simulator_version() {
  return std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR) + "." +
         std::to_string(SIMGRID_VERSION_PATCH);
}

namespace {

// The folded regions of charged runs: every buffer is a view of the first region large
// enough, so the real memory and the number of mappings do not grow with the ranks.
// All ranks are simulated in this one process (without privatization, one list for
// all of them; with it, one per rank, which is still correct).
struct SharedRegion {
  void* data;
  std::size_t bytes;
  std::size_t users;
};

std::mutex& regions_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<SharedRegion>& regions() {
  static std::vector<SharedRegion> list;
  return list;
}

}  // namespace

bool is_folded(const void* data) noexcept {
  const auto* at = static_cast<const char*>(data);
  std::lock_guard lock(regions_mutex());
  for (const SharedRegion& region : regions()) {
    const auto* begin = static_cast<const char*>(region.data);
    if (at >= begin && at < begin + region.bytes) return true;
  }
  return false;
}

namespace detail {

void* allocate_bytes(std::size_t count, std::size_t size, ComputeMode mode) {
  if (count > std::numeric_limits<std::size_t>::max() / size) throw std::bad_alloc();
  const std::size_t bytes = count * size;
  if (mode == ComputeMode::real) return std::memset(::operator new(bytes), 0, bytes);
  // A folded buffer may be of any size: a message of 2 GiB or more, which SMPI would copy
  // through real memory, is sent synchronously (collectives.hpp). What remains is the mapping: SMPI reserves the region's whole size at once
  // (untouched, it costs no memory) and aborts the simulation when the kernel refuses,
  // so try the same reservation first and say so.
  std::lock_guard lock(regions_mutex());
  for (SharedRegion& region : regions()) {
    if (region.bytes >= bytes) {
      ++region.users;
      return region.data;
    }
  }
  void* probe = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED)
    throw Error("the twin cannot map a folded buffer of " + std::to_string(bytes) +
                " bytes on this machine: Linux refuses a mapping larger than its memory and swap "
                "unless vm.overcommit_memory is 1 (as root: sysctl vm.overcommit_memory=1; the "
                "folded buffer itself holds only its blocks' memory); or choose a smaller problem size");
  munmap(probe, bytes);
  void* data = SMPI_SHARED_MALLOC(bytes);
  if (data == nullptr) throw std::bad_alloc();
  regions().push_back({data, bytes, 1});
  return data;
}

void release_bytes(void* data, ComputeMode mode) noexcept {
  if (mode == ComputeMode::real) {
    ::operator delete(data);
    return;
  }
  std::lock_guard lock(regions_mutex());
  auto& list = regions();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->data != data) continue;
    if (--it->users == 0) {
      SMPI_SHARED_FREE(data);
      list.erase(it);
    }
    return;
  }
}

}  // namespace detail

#else  // the ordinary build: a real MPI, computing

void begin_engine() {}

void prepare_engine(ComputeMode /*mode*/, std::size_t /*n*/) {}

void charge_operations(double /*operations*/) {
  throw Error("--compute flops: only the SimGrid build (hetscale-twin-*) charges operations");
}

void set_compute_efficiency(double /*efficiency*/) {}

void charge_collective_overhead(CollectiveKind /*kind*/, int /*ranks*/) {}

void idle_for(double seconds) {
  const double start = MPI_Wtime();
  while (MPI_Wtime() - start < seconds) {
  }
}

std::string rank_host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) throw Error("cannot read this host's name");
  return name.data();
}

std::optional<std::string> record_engine() {
  return std::nullopt;
}

std::optional<std::string> simulator_version() {
  return std::nullopt;
}

bool is_folded(const void* /*data*/) noexcept { return false; }

namespace detail {

void* allocate_bytes(std::size_t count, std::size_t size, ComputeMode mode) {
  if (mode != ComputeMode::real)
    throw Error("--compute flops: only the SimGrid build folds buffers");
  if (count > std::numeric_limits<std::size_t>::max() / size) throw std::bad_alloc();
  return std::memset(::operator new(count* size), 0, count * size);
}

void release_bytes(void* data, ComputeMode /*mode*/) noexcept {
  ::operator delete(data);
}

}  // namespace detail

#endif

}  // namespace hetscale::kernels
