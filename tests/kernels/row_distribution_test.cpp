#include "common/row_distribution.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

std::size_t sum(const std::vector<std::size_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}

TEST(BlockCounts, EqualWeightsSpreadTheRemainderOverTheFirstRanks) {
  const std::vector<double> w{1, 1, 1};
  EXPECT_EQ(block_counts(10, w), (std::vector<std::size_t>{4, 3, 3}));
  EXPECT_EQ(block_counts(9, w), (std::vector<std::size_t>{3, 3, 3}));
}

TEST(BlockCounts, ProportionalToWeights) {
  const std::vector<double> w{2, 1};
  EXPECT_EQ(block_counts(1500, w), (std::vector<std::size_t>{1000, 500}));
  EXPECT_EQ(block_counts(7, w), (std::vector<std::size_t>{5, 2}));  // 4.67 + 2.33
}

TEST(BlockCounts, FewerRowsThanRanks) {
  const std::vector<double> w{1, 1, 1, 1};
  const auto counts = block_counts(2, w);
  EXPECT_EQ(sum(counts), 2u);
  EXPECT_EQ(counts, (std::vector<std::size_t>{1, 1, 0, 0}));
  EXPECT_EQ(sum(block_counts(0, w)), 0u);
}

TEST(BlockCounts, VeryUnevenWeights) {
  const std::vector<double> w{1000, 1, 1e-3};
  const auto counts = block_counts(100, w);
  EXPECT_EQ(sum(counts), 100u);
  EXPECT_EQ(counts[0], 100u);
  EXPECT_EQ(counts[2], 0u);
}

TEST(BlockCounts, AlwaysSumToNAndStayWithinOneOfTheQuota) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> weight(0.01, 10);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> w(1 + trial % 9);
    for (double& x : w) x = weight(rng);
    const std::size_t n = static_cast<std::size_t>(trial * 37 % 1001);
    const auto counts = block_counts(n, w);
    ASSERT_EQ(sum(counts), n);
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    for (std::size_t i = 0; i < w.size(); ++i) {
      EXPECT_LT(std::abs(static_cast<double>(counts[i]) - n * w[i] / total), 1.0);
    }
  }
}

TEST(BlockOffsets, ArePrefixSums) {
  const std::vector<std::size_t> counts{4, 0, 3};
  EXPECT_EQ(block_offsets(counts), (std::vector<std::size_t>{0, 4, 4}));
}

TEST(Weights, ZeroNegativeOrMissingAreErrors) {
  EXPECT_THROW((void)block_counts(4, std::vector<double>{1, 0}), Error);
  EXPECT_THROW((void)block_counts(4, std::vector<double>{1, -1}), Error);
  EXPECT_THROW((void)cyclic_owners(4, std::vector<double>{NAN}), Error);
  EXPECT_THROW((void)cyclic_owners(4, std::vector<double>{}), Error);
  try {
    validate_weights(std::vector<double>{1, 0});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
}

TEST(NormaliseWeights, SumsToOne) {
  const auto w = normalise_weights(std::vector<double>{1, 3});
  EXPECT_DOUBLE_EQ(w[0], 0.25);
  EXPECT_DOUBLE_EQ(w[1], 0.75);
}

TEST(CyclicOwners, EqualWeightsAreRoundRobin) {
  EXPECT_EQ(cyclic_owners(7, std::vector<double>{1, 1, 1}),
            (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(CyclicOwners, InterleavesUnevenWeights) {
  // 2:1 -> rank 0 twice as often, spread out rather than in a block.
  EXPECT_EQ(cyclic_owners(6, std::vector<double>{2, 1}), (std::vector<int>{0, 1, 0, 0, 1, 0}));
}

TEST(CyclicOwners, EveryPrefixAndSuffixStaysCloseToTheWeights) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> weight(0.01, 10);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<double> w(1 + trial % 8);
    for (double& x : w) x = weight(rng);
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    const std::size_t n = 500;
    const auto owners = cyclic_owners(n, w);
    std::vector<double> held(w.size(), 0.0);
    for (std::size_t k = 0; k < n; ++k) {
      held[static_cast<std::size_t>(owners[k])] += 1;
      for (std::size_t i = 0; i < w.size(); ++i) {
        ASSERT_LE(std::abs(held[i] - (k + 1) * w[i] / total), 1.0 + 1e-9)
            << "trial " << trial << " prefix " << k + 1 << " rank " << i;
      }
    }
  }
}

TEST(SharedCyclicOwners, IsCyclicOwnersDealtOnceForTheSameQuestion) {
  const std::vector<double> w{3, 1, 0.5};
  const auto first = shared_cyclic_owners(130, w);
  const auto again = shared_cyclic_owners(130, std::vector<double>{3, 1, 0.5});
  EXPECT_EQ(first.get(), again.get()) << "the same n and weights share one map";
  EXPECT_EQ(*first, cyclic_owners(130, w));
  const auto other_n = shared_cyclic_owners(131, w);
  EXPECT_EQ(*other_n, cyclic_owners(131, w));
  const auto other_weights = shared_cyclic_owners(131, std::vector<double>{1, 1});
  EXPECT_EQ(*other_weights, cyclic_owners(131, std::vector<double>{1, 1}));
  EXPECT_EQ(*first, cyclic_owners(130, w)) << "a map handed out stays as it was";
  EXPECT_THROW((void)shared_cyclic_owners(4, std::vector<double>{0}), Error);
}

}  // namespace
}  // namespace hetscale
