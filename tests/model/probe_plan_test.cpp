#include "hetscale/model/probe_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

TEST(ProbePlan, LogUniformSizesFromOneByteToTheLargest) {
  const auto sizes = log_uniform_sizes(1 << 30, 5);
  EXPECT_EQ(sizes.front(), 1);
  EXPECT_EQ(sizes.back(), 1 << 30);
  // 9.03 decades at 5 a decade: 46 steps, the smallest ones rounding onto the same byte.
  EXPECT_GE(sizes.size(), 40u);
  EXPECT_LE(sizes.size(), 47u);
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(std::adjacent_find(sizes.begin(), sizes.end()), sizes.end());
  // Between 1 MiB and 1 GiB (3 decades) about 15 sizes, evenly in ln(size).
  const auto big = std::count_if(sizes.begin(), sizes.end(), [](double b) { return b > (1 << 20); });
  EXPECT_NEAR(static_cast<double>(big), 15, 1);
  for (std::size_t i = 12; i + 1 < sizes.size(); ++i)
    EXPECT_NEAR(std::log10(sizes[i + 1] / sizes[i]), std::log10(double(1 << 30)) / 46, 0.01) << i;
  EXPECT_EQ(log_uniform_sizes(1000, 1), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_THROW((void)log_uniform_sizes(0.5, 5), Error);
  EXPECT_THROW((void)log_uniform_sizes(100, 0), Error);
}

TEST(ProbePlan, FewerRepetitionsForLargerMessages) {
  EXPECT_EQ(probe_repetitions(1, 20, 1 << 20), 20);
  EXPECT_EQ(probe_repetitions(1 << 20, 20, 1 << 20), 20);
  EXPECT_EQ(probe_repetitions(4 << 20, 20, 1 << 20), 5);
  EXPECT_EQ(probe_repetitions(1 << 30, 20, 1 << 20), 1);
  EXPECT_EQ(probe_repetitions(100, 0, 1 << 20), 1);
}

TEST(ProbePlan, AShuffledOrderIsAPermutationFixedByTheSeed) {
  const auto a = shuffled_order(50, 1);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> identity(50);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  EXPECT_NE(a, identity);
  EXPECT_EQ(shuffled_order(50, 1), a);
  EXPECT_NE(shuffled_order(50, 2), a);
  EXPECT_TRUE(shuffled_order(0, 1).empty());
}

TEST(ProbePlan, ProcessAndFlowCounts) {
  EXPECT_EQ(collective_process_counts(2), (std::vector<int>{2}));
  EXPECT_EQ(collective_process_counts(5), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(collective_process_counts(100), (std::vector<int>{2, 4, 8, 16, 32, 64, 100}));
  EXPECT_EQ(collective_process_counts(1024), (std::vector<int>{2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(saturation_flow_counts(1), (std::vector<int>{1}));
  EXPECT_EQ(saturation_flow_counts(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(saturation_flow_counts(8), (std::vector<int>{1, 2, 4, 8}));
}

TEST(ProbePlan, PairsCrossTheGroupsWhereTheSiteSaysWhichTheyAre) {
  // Nodes in rank order: a0 b0 a1 b1 a2 b2 (groups a and b interleaved by rank).
  const std::vector<std::string> groups{"a", "b", "a", "b", "a", "b"};
  const NodePairs crossing = saturation_pairs(6, groups, {"a", "b"});
  EXPECT_EQ(crossing.pairing, "groups");
  ASSERT_EQ(crossing.pairs.size(), 3u);
  for (const auto& [x, y] : crossing.pairs) EXPECT_NE(groups[x], groups[y]) << x << " " << y;
  EXPECT_EQ(crossing.pairs[0], (std::pair<std::size_t, std::size_t>{0, 1}));
  // Without the groups: rank halves, which here join nodes of one group.
  const NodePairs halves = saturation_pairs(6, {}, {});
  EXPECT_EQ(halves.pairing, "halves");
  EXPECT_EQ(halves.pairs, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}, {1, 4}, {2, 5}}));
  // A node the site does not know: halves. An odd count leaves the last node out.
  EXPECT_EQ(saturation_pairs(3, {"a", "", "b"}, {"a", "b"}).pairing, "halves");
  EXPECT_EQ(saturation_pairs(5, {}, {}).pairs.size(), 2u);
}

TEST(ProbePlan, CollectiveSizes) {
  EXPECT_EQ(collective_sizes(MessagePattern::broadcast, 1 << 12, 4), (std::vector<double>{8, 64, 512, 4096}));
  EXPECT_EQ(collective_sizes(MessagePattern::barrier, 1 << 20, 4), (std::vector<double>{0}));
  EXPECT_EQ(collective_sizes(MessagePattern::allreduce, 1 << 30, 4),
            (std::vector<double>{12, 96, 768, 6144, 49152}));
  // All-to-all on 100 ranks: at least a byte to each, a multiple of 100.
  EXPECT_EQ(collective_sizes(MessagePattern::alltoall, 40000, 100), (std::vector<double>{500, 4000, 32700}));
}

}  // namespace
}  // namespace hetscale
