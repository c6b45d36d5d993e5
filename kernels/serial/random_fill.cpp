#include "serial/random_fill.hpp"

namespace hetscale::kernels {
namespace {

std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

double uniform_at(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) noexcept {
  const std::uint64_t key = splitmix64(seed ^ splitmix64(stream)) + index * 0x2545f4914f6cdd1dULL;
  // 53 random bits -> [0, 1) -> [-1, 1).
  return static_cast<double>(splitmix64(key) >> 11) * 0x1.0p-52 - 1.0;
}

void fill_uniform(std::span<double> out, std::uint64_t seed, std::uint64_t stream,
                  std::uint64_t first) noexcept {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = uniform_at(seed, stream, first + i);
}

void fill_uniform(std::span<std::complex<double>> out, std::uint64_t seed, std::uint64_t stream,
                  std::uint64_t first) noexcept {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint64_t k = 2 * (first + i);
    out[i] = {uniform_at(seed, stream, k), uniform_at(seed, stream, k + 1)};
  }
}

}  // namespace hetscale::kernels
