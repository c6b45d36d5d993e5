// The engine's sizing of the blocks SMPI folds shared buffers into (kernels/common/engine.hpp).
#include "common/engine.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace hetscale::kernels {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

// Bytes of the largest buffer a kernel of size n holds: (n + 1)^2 complex numbers.
double largest_buffer(std::size_t n) {
  const double side = static_cast<double>(n) + 1;
  return side * side * 16;
}

TEST(FoldedBlocks, SmpisDefaultUntilTheLargestBufferNeedsMoreBlocksThanTheLimit) {
  EXPECT_EQ(folded_block_bytes(0), mib);
  EXPECT_EQ(folded_block_bytes(8192), mib);
  // 16384 blocks of 1 MiB hold 16 GiB: (n + 1)^2 x 16 bytes reach it at n = 32767.
  EXPECT_EQ(folded_block_bytes(32767), mib);
  EXPECT_EQ(folded_block_bytes(32768), 2 * mib);
}

TEST(FoldedBlocks, KeepEveryBufferOfAnySizeWithinTheBlockLimit) {
  for (std::size_t n : {50'000u, 100'000u, 150'000u, 400'000u, 1'000'000u}) {
    const std::size_t block = folded_block_bytes(n);
    EXPECT_EQ(block & (block - 1), 0u) << n;  // a power of two, a multiple of the page
    EXPECT_GE(static_cast<double>(block) * folded_blocks_per_buffer, largest_buffer(n)) << n;
    // The smallest such: half the block would not do.
    EXPECT_LT(static_cast<double>(block / 2) * folded_blocks_per_buffer, largest_buffer(n)) << n;
  }
  // mm at N = 100,000: its 80 GB matrix in 16 MiB blocks, 4,769 mappings (76,294 of 1 MiB).
  EXPECT_EQ(folded_block_bytes(100'000), 16 * mib);
}

}  // namespace
}  // namespace hetscale::kernels
