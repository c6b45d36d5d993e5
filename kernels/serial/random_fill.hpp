// Reproducible pseudo-random matrix entries addressed by (seed, stream, index), so any
// rank can regenerate any row on its own (no scatter needed to check an answer).
#pragma once

#include <complex>
#include <cstdint>
#include <span>

namespace hetscale::kernels {

/// Uniform in [-1, 1), a pure function of its arguments (splitmix64 hash).
[[nodiscard]] double uniform_at(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) noexcept;

/// out[i] = uniform_at(seed, stream, first + i).
void fill_uniform(std::span<double> out, std::uint64_t seed, std::uint64_t stream,
                  std::uint64_t first = 0) noexcept;

/// Complex entries: real and imaginary parts from consecutive indices 2(first+i), 2(first+i)+1.
void fill_uniform(std::span<std::complex<double>> out, std::uint64_t seed, std::uint64_t stream,
                  std::uint64_t first = 0) noexcept;

}  // namespace hetscale::kernels
