#include "hetscale/site/step_weights.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace hetscale {
namespace {

SiteTable make_table() {
  SiteTable table;
  table.name = "test";
  table.groups = {{"fast", 40.0, {}}, {"slow", 10.0, {}}};
  table.nodes = {{"n1", "fast", 4, 40.0, NodeState::ok, {}},
                 {"n2", "slow", 4, 10.0, NodeState::ok, {}},
                 {"n3", "slow", 2, 12.5, NodeState::degraded, {}}};
  table.index();
  return table;
}

StepLayout layout_of(std::vector<std::pair<std::string, std::uint32_t>> nodes, std::uint32_t cpt) {
  StepLayout layout;
  for (auto& [host, tasks] : nodes) layout.nodes.push_back({host, tasks, cpt});
  return layout;
}

// Sum of every rank's weight, rank by rank (ranks in block order).
double total_weight(const StepWeights& weights, const StepLayout& layout) {
  double sum = 0;
  std::uint64_t rank = 0;
  for (std::uint32_t n = 0; n < layout.nodes.size(); ++n) {
    for (std::uint32_t t = 0; t < layout.nodes[n].tasks; ++t) sum += weights.rank(n, rank++).weight;
  }
  return sum;
}

TEST(MarkedWeights, FollowSpeedTimesCpus) {
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 2}, {"n2", 2}, {"n3", 2}}, 1);
  StepWeights w = marked_weights(table, layout, OnMissing::fail);
  EXPECT_EQ(w.source, "marked");
  EXPECT_DOUBLE_EQ(w.system_speed, 2 * 40.0 + 2 * 10.0 + 2 * 12.5);
  EXPECT_DOUBLE_EQ(w.rank(0, 0).weight, 40.0 / 125.0);
  EXPECT_DOUBLE_EQ(w.rank(2, 5).weight, 12.5 / 125.0);
  EXPECT_DOUBLE_EQ(w.rank(1, 2).marked_speed, 10.0);
  EXPECT_EQ(w.rank(2, 4).group, "slow");
  EXPECT_NEAR(total_weight(w, layout), 1.0, 1e-15);
}

TEST(MarkedWeights, CpusPerTaskMultiplySpeed) {
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 1}, {"n2", 2}}, 2);
  StepWeights w = marked_weights(table, layout, OnMissing::fail);
  EXPECT_DOUBLE_EQ(w.rank(0, 0).marked_speed, 80.0);
  EXPECT_DOUBLE_EQ(w.rank(1, 1).marked_speed, 20.0);
  EXPECT_DOUBLE_EQ(w.system_speed, 120.0);
  EXPECT_DOUBLE_EQ(w.rank(0, 0).weight, 80.0 / 120.0);
}

TEST(MarkedWeights, UnevenTasksPerNode) {
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 3}, {"n2", 1}}, 1);
  StepWeights w = marked_weights(table, layout, OnMissing::fail);
  EXPECT_DOUBLE_EQ(w.system_speed, 130.0);
  EXPECT_DOUBLE_EQ(w.rank(1, 3).weight, 10.0 / 130.0);
  EXPECT_NEAR(total_weight(w, layout), 1.0, 1e-15);
}

TEST(MarkedWeights, OversubscribedNodeCountsOnlyItsProcessors) {
  SiteTable table = make_table();  // n3 has 2 processors
  StepLayout layout = layout_of({{"n3", 4}}, 1);
  StepWeights w = marked_weights(table, layout, OnMissing::fail);
  EXPECT_DOUBLE_EQ(w.rank(0, 0).marked_speed, 12.5 * 2 / 4);
  EXPECT_DOUBLE_EQ(w.system_speed, 25.0);
  EXPECT_DOUBLE_EQ(w.rank(0, 3).weight, 0.25);
}

TEST(MarkedWeights, MissingNodeFailsNamingIt) {
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 1}, {"n9", 1}}, 1);
  try {
    marked_weights(table, layout, OnMissing::fail);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "node n9 of the step is not in site table test");
  }
}

TEST(MarkedWeights, MissingNodeWithEqualFallsBackToCpus) {
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 1}, {"n9", 3}}, 2);
  StepWeights w = marked_weights(table, layout, OnMissing::equal);
  EXPECT_EQ(w.source, "equal");
  EXPECT_DOUBLE_EQ(w.rank(0, 0).weight, 0.25);
  EXPECT_DOUBLE_EQ(w.rank(1, 3).weight, 0.25);
  EXPECT_EQ(w.rank(1, 1).group, "unknown");
  EXPECT_DOUBLE_EQ(w.rank(1, 1).marked_speed, 0.0);
  EXPECT_DOUBLE_EQ(w.system_speed, 80.0);
}

TEST(MarkedWeights, RankOutsideStepIsAnError) {
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 1}}, 1);
  StepWeights w = marked_weights(table, layout, OnMissing::fail);
  try {
    (void)w.rank(1, 0);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "node index 1 is outside the step (1 nodes)");
  }
}

TEST(MarkedWeights, TenThousandNodeTable) {
  SiteTable table;
  table.name = "big";
  table.groups = {{"g", 1.0, {}}};
  for (int i = 0; i < 10000; ++i) {
    table.nodes.push_back({"n" + std::to_string(i), "g", 2, 1.0 + i % 7, NodeState::ok, {}});
  }
  table.index();
  StepLayout layout;
  for (int i = 0; i < 10000; i += 3) layout.nodes.push_back({"n" + std::to_string(i), 2, 1});
  StepWeights w = marked_weights(table, layout, OnMissing::fail);
  EXPECT_NEAR(total_weight(w, layout), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(w.rank(1, 2).marked_speed, 1.0 + 3 % 7);
}

TEST(FormatWeight, SeventeenSignificantDigits) {
  EXPECT_EQ(format_weight(0.1), "0.10000000000000001");
  EXPECT_EQ(format_weight(1.0 / 3.0), "0.33333333333333331");
  EXPECT_EQ(format_weight(1.0), "1");
}

Partition node_partition(std::vector<std::pair<std::string, double>> shares) {
  Partition p;
  p.by = Partition::By::node;
  p.source = "p.toml";
  std::uint32_t line = 1;
  for (auto& [host, weight] : shares) p.nodes.push_back({host, weight, {"p.toml", ++line, 1}});
  return p;
}

TEST(PartitionWeights, NodeSharesSplitEvenlyAndNormalise) {
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 2}, {"n2", 1}}, 1);
  StepWeights w =
      partition_weights(marked_weights(table, layout, OnMissing::fail),
                        node_partition({{"n2", 1.0}, {"n1", 3.0}}), layout, table, "file");
  EXPECT_EQ(w.source, "file");
  EXPECT_DOUBLE_EQ(w.rank(0, 1).weight, 0.375);
  EXPECT_DOUBLE_EQ(w.rank(1, 2).weight, 0.25);
  EXPECT_DOUBLE_EQ(w.rank(0, 0).marked_speed, 40.0);  // speeds stay the marked figures
  EXPECT_NEAR(total_weight(w, layout), 1.0, 1e-15);
}

std::string partition_error(const Partition& partition, const StepLayout& layout) {
  SiteTable table = make_table();
  try {
    partition_weights(marked_weights(table, layout, OnMissing::fail), partition, layout, table,
                      "equalized");
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(PartitionWeights, MismatchesAreNamed) {
  StepLayout layout = layout_of({{"n1", 2}, {"n2", 1}}, 1);
  EXPECT_EQ(partition_error(node_partition({{"n1", 1.0}}), layout),
            "partition p.toml does not list node n2 of the step");
  EXPECT_EQ(partition_error(node_partition({{"n1", 1.0}, {"n2", 1.0}, {"n3", 1.0}}), layout),
            "partition p.toml lists node n3, which is not in the step (p.toml:4:1)");
  Partition other_site = node_partition({{"n1", 1.0}, {"n2", 1.0}});
  other_site.site = "elsewhere";
  EXPECT_EQ(partition_error(other_site, layout),
            "partition p.toml was made for site 'elsewhere', the site table is for 'test'");
}

TEST(PartitionWeights, RankShares) {
  StepLayout layout = layout_of({{"n1", 2}, {"n2", 1}}, 1);
  Partition p;
  p.by = Partition::By::rank;
  p.source = "r.toml";
  p.ranks = {{0, 1.0, {}}, {1, 2.0, {}}, {2, 1.0, {}}};
  SiteTable table = make_table();
  StepWeights w =
      partition_weights(marked_weights(table, layout, OnMissing::fail), p, layout, table, "file");
  EXPECT_DOUBLE_EQ(w.rank(0, 1).weight, 0.5);
  EXPECT_DOUBLE_EQ(w.rank(1, 2).weight, 0.25);
  p.ranks.pop_back();
  EXPECT_EQ(partition_error(p, layout), "partition r.toml does not list rank 2 of the step");
  p.ranks.push_back({2, 1.0, {}});
  p.ranks.push_back({7, 1.0, {"r.toml", 9, 1}});
  EXPECT_EQ(partition_error(p, layout),
            "partition r.toml lists rank 7, which is not in the step of 3 ranks (r.toml:9:1)");
}

// Every weight of a result is finite and > 0, and they sum to 1.
void expect_sound(const StepWeights& w, const StepLayout& layout) {
  std::uint64_t rank = 0;
  for (std::uint32_t n = 0; n < layout.nodes.size(); ++n) {
    for (std::uint32_t t = 0; t < layout.nodes[n].tasks; ++t) {
      double weight = w.rank(n, rank++).weight;
      EXPECT_TRUE(std::isfinite(weight) && weight > 0) << "rank " << rank - 1 << ": " << weight;
    }
  }
  EXPECT_NEAR(total_weight(w, layout), 1.0, 1e-12);
}

TEST(PartitionWeights, NodeSharesNearTheLargestDoubleDoNotOverflow) {
  // 1e308 + 1e308 is infinite: every rank got weight 0.
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 1}, {"n2", 1}}, 1);
  StepWeights w = partition_weights(marked_weights(table, layout, OnMissing::fail),
                                    node_partition({{"n1", 1e308}, {"n2", 1e308}}), layout, table,
                                    "equalized");
  EXPECT_DOUBLE_EQ(w.rank(0, 0).weight, 0.5);
  EXPECT_DOUBLE_EQ(w.rank(1, 1).weight, 0.5);
  expect_sound(w, layout);
}

TEST(PartitionWeights, RankSharesNearTheLargestDoubleDoNotOverflow) {
  StepLayout layout = layout_of({{"n1", 2}, {"n2", 1}}, 1);
  Partition p;
  p.by = Partition::By::rank;
  p.source = "r.toml";
  p.ranks = {{0, 1.7e308, {}}, {1, 1.7e308, {}}, {2, 1.7e308, {}}};
  SiteTable table = make_table();
  StepWeights w =
      partition_weights(marked_weights(table, layout, OnMissing::fail), p, layout, table, "file");
  EXPECT_DOUBLE_EQ(w.rank(0, 0).weight, 1.0 / 3);
  expect_sound(w, layout);
}

TEST(PartitionWeights, SharesTooFarApartAreAnErrorNotAZeroWeight) {
  StepLayout layout = layout_of({{"n1", 1}, {"n2", 1}}, 1);
  EXPECT_EQ(partition_error(node_partition({{"n1", 1e300}, {"n2", 1e-300}}), layout),
            "partition p.toml: the shares span too wide a range: a weight would be 0");
}

TEST(MarkedWeights, SpeedsNearTheLargestDoubleGiveSoundWeights) {
  SiteTable table;
  table.name = "huge";
  table.groups = {{"g", 1e308, {}}};
  table.nodes = {{"n1", "g", 1, 1e308, NodeState::ok, {}}, {"n2", "g", 1, 1e308, NodeState::ok, {}}};
  table.index();
  StepLayout layout = layout_of({{"n1", 1}, {"n2", 1}}, 1);
  // C = 2e308 cannot be carried: the step falls back (the plugin's documented rules).
  try {
    (void)marked_weights(table, layout, OnMissing::fail);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the step's marked speed is not finite (marked speed x processors overflows)");
  }
  // Speed x processors overflowing on one node: NaN weights before.
  table.nodes = {{"n1", "g", 4, 1e308, NodeState::ok, {}}};
  table.index();
  StepLayout one = layout_of({{"n1", 1}}, 4);
  EXPECT_THROW((void)marked_weights(table, one, OnMissing::fail), Error);
  // Large but finite: weights still sum to 1.
  table.nodes = {{"n1", "g", 1, 4e307, NodeState::ok, {}}, {"n2", "g", 1, 8e307, NodeState::ok, {}}};
  table.index();
  StepWeights w = marked_weights(table, layout, OnMissing::fail);
  EXPECT_DOUBLE_EQ(w.rank(0, 0).weight, 1.0 / 3);
  expect_sound(w, layout);
}

TEST(WeightsDigest, FollowsTheStepsRowsAndThePartition) {
  SiteTable table = make_table();
  StepLayout layout = layout_of({{"n1", 1}, {"n2", 1}}, 1);
  const std::string marked = weights_digest(table, layout, nullptr);
  EXPECT_EQ(marked.size(), 64u);
  EXPECT_EQ(weights_digest(table, layout, nullptr), marked);
  const Partition p = node_partition({{"n1", 1.0}, {"n2", 3.0}});
  const std::string with_partition = weights_digest(table, layout, &p);
  EXPECT_NE(with_partition, marked);
  Partition other = p;
  other.nodes[1].weight = 2.0;
  EXPECT_NE(weights_digest(table, layout, &other), with_partition);
  SiteTable outside = make_table();
  outside.nodes[2].marked_speed = 99;  // n3: not in the step
  outside.index();
  EXPECT_EQ(weights_digest(outside, layout, nullptr), marked);
  SiteTable inside = make_table();
  inside.nodes[1].processors = 8;
  inside.index();
  EXPECT_NE(weights_digest(inside, layout, nullptr), marked);
}

}  // namespace
}  // namespace hetscale
