// The seam between the kernels and what executes them. The ordinary build runs on a real
// MPI and computes. The SimGrid build (the hetscale-twin-* programs, compiled by smpicxx
// with HETSCALE_SIMGRID defined) runs every rank as a simulated process of SMPI; there,
// `--compute flops` charges each computation's operation count to the rank's simulated
// host instead of computing it, and folds the big buffers into shared memory, so that a
// run of a thousand ranks is cheap and its simulated times are deterministic. The
// kernels reach that difference only through this header (docs/kernels.md, "The twin
// build").
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace hetscale::kernels {

#ifdef HETSCALE_SIMGRID
inline constexpr bool simgrid_build = true;
#else
inline constexpr bool simgrid_build = false;
#endif

/// `real` computes (and the answer is checked); `flops` charges the operations.
enum class ComputeMode { real, flops };

/// flops in the SimGrid build, real otherwise.
[[nodiscard]] constexpr ComputeMode default_compute_mode(bool simgrid = simgrid_build) {
  return simgrid ? ComputeMode::flops : ComputeMode::real;
}

/// "real" or "flops" (the latter only when `simgrid`); throws Error naming --compute.
[[nodiscard]] ComputeMode parse_compute_mode(std::string_view text, bool simgrid = simgrid_build);

[[nodiscard]] const char* to_string(ComputeMode mode) noexcept;

/// First thing in main(), before MPI_Init. In the SimGrid build, SMPI's benchmarking of
/// the code between MPI calls (smpi/simulate-computation) is turned off until the mode is
/// known, so that not even option parsing takes simulated time in a charged run.
void begin_engine();

/// Once the mode and the problem size are known. In the SimGrid build, `flops` leaves the
/// benchmarking off: only the charged operations take simulated time, and identical runs
/// give bit-identical times; `real` turns it back on as the command line had it. `n` sizes
/// the blocks folded buffers are made of (folded_block_bytes), before any is allocated.
void prepare_engine(ComputeMode mode, std::size_t n);

/// The size of the blocks SMPI folds a shared buffer into (smpi/shared-malloc-blocksize)
/// for problem size `n`: SMPI's 1 MiB, or the power of two that keeps the largest buffer
/// of any kernel, (n + 1)^2 complex numbers, within folded_blocks_per_buffer blocks. Each
/// block is a mapping of its own and Linux allows 65530 by default (vm.max_map_count):
/// an mm of N = 100,000 folds its 80 GB matrix into 4,769 blocks of 16 MiB, not 76,294 of 1 MiB.
inline constexpr std::size_t folded_blocks_per_buffer = 16384;
[[nodiscard]] std::size_t folded_block_bytes(std::size_t n);

/// Charges `operations` floating-point operations to the calling rank's simulated host
/// (SimGrid build), divided by the compute efficiency; throws Error in the ordinary build,
/// which never charges.
void charge_operations(double operations);

/// The collectives whose cost beyond their messages a site's [network] may give
/// (CollectiveOverhead in the site table).
enum class CollectiveKind { barrier, broadcast, allreduce };

/// After each collective call on `ranks` ranks, in the SimGrid build: the calling rank
/// waits the overhead of `kind` the twin's platform carries (its root zone's
/// hetscale.overhead.* properties; none, nothing). Nothing in the ordinary build. Throws
/// Error naming the property when its text is not two numbers.
void charge_collective_overhead(CollectiveKind kind, int ranks);

/// The calling rank does nothing else for `seconds` (a rank that arrives late at a
/// collective): it spins on MPI_Wtime in the ordinary build, as a computing rank keeps
/// its core, and sleeps in simulated time in the SimGrid build, whose MPI_Wtime does not
/// advance while a rank only reads it.
void idle_for(double seconds);

/// The fraction of a host's speed the code attains (--compute-efficiency, default 1):
/// charging X operations costs X / efficiency flops of simulated time. Once, before the run.
void set_compute_efficiency(double efficiency);

/// Every computation of a kernel goes through here: `real` runs `step`, `flops` charges
/// `operations` (the step's operation count on this rank) instead.
template <typename F>
void compute_or_charge(ComputeMode mode, double operations, F&& step) {
  if (mode == ComputeMode::real) {
    std::forward<F>(step)();
  } else {
    charge_operations(operations);
  }
}

/// Work only the arithmetic needs (input values, FFT plans, packing data for a message):
/// skipped when charging, since a charged run never reads its data.
template <typename F>
void when_computing(ComputeMode mode, F&& step) {
  if (mode == ComputeMode::real) std::forward<F>(step)();
}

/// The host a rank runs on: gethostname() in the ordinary build, MPI_Get_processor_name
/// (the simulated host) in the SimGrid build, where every rank shares one real host.
[[nodiscard]] std::string rank_host_name();

/// The run record's `engine`: "simgrid" in the SimGrid build, none otherwise (a record
/// without one is a Slurm run).
[[nodiscard]] std::optional<std::string> record_engine();

/// SimGrid's version ("3.32.0") in the SimGrid build, none otherwise.
[[nodiscard]] std::optional<std::string> simulator_version();

/// Whether `data` lies in a folded buffer (SimGrid build, charged runs), whose contents are
/// never read: nothing need be copied into or out of it. Always false in the ordinary build.
[[nodiscard]] bool is_folded(const void* data) noexcept;

/// The items of a buffer only the arithmetic reads, never a message (the matrix rank 0
/// generates, its factors): `items` when computing, none when charging.
[[nodiscard]] constexpr std::size_t computed_items(std::size_t items, ComputeMode mode) noexcept {
  return mode == ComputeMode::real ? items : 0;
}

namespace detail {
/// Zeroed memory (real) or SMPI shared memory, whose contents are undefined (flops), of any
/// size (collectives.hpp sends it in pieces); Error naming the size when a charged buffer
/// cannot be mapped (beyond the address space or the kernel's overcommit limit).
[[nodiscard]] void* allocate_bytes(std::size_t count, std::size_t size, ComputeMode mode);
void release_bytes(void* data, ComputeMode mode) noexcept;
}  // namespace detail

/// A kernel's big array, move-only: zero-initialised heap memory when computing. When
/// charging (SimGrid build), every buffer is a view of one SMPI_SHARED_MALLOC region as
/// large as the largest buffer alive, shared by all buffers of all ranks: N x N matrices
/// on a thousand ranks then cost one folded region of real memory and a handful of
/// mappings. The contents are undefined and never read; messages to and from such
/// buffers still take their full simulated time, and SMPI copies none of their bytes.
template <typename T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  Buffer() = default;
  Buffer(std::size_t size, ComputeMode mode)
      : data_(size == 0 ? nullptr : static_cast<T*>(detail::allocate_bytes(size, sizeof(T), mode))),
        size_(size),
        mode_(mode) {}
  Buffer(Buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        mode_(other.mode_) {}
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      Buffer old(std::move(*this));
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      mode_ = other.mode_;
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (data_ != nullptr) detail::release_bytes(data_, mode_);
  }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] T* begin() noexcept { return data_; }
  [[nodiscard]] T* end() noexcept { return data_ + size_; }
  [[nodiscard]] const T* begin() const noexcept { return data_; }
  [[nodiscard]] const T* end() const noexcept { return data_ + size_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  operator std::span<T>() noexcept { return {data_, size_}; }  // NOLINT: a view, as vector's
  operator std::span<const T>() const noexcept { return {data_, size_}; }  // NOLINT

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  ComputeMode mode_ = ComputeMode::real;
};

}  // namespace hetscale::kernels
