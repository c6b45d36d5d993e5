#include "hetscale/model/node_timing.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

TEST(NodeTimingStats, SlowestRankOverTheNodesWorkPerRun) {
  // Run 1: node a has two ranks (weights 0.2 + 0.2 of W = 100, slowest 8 s): 8 / 40 s/op.
  // Run 2: the same node at 12 / 40. Node b1 (natural order before b10) at 0.5 and 0.7 s/op.
  const std::vector<RankSample> ranks{{1, "a", 0.2, 100, 6},  {1, "a", 0.2, 100, 8},
                                      {1, "b10", 0.1, 100, 10}, {1, "b1", 0.5, 100, 25},
                                      {2, "a", 0.2, 100, 12}, {2, "a", 0.2, 100, 4},
                                      {2, "b10", 0.1, 100, 10}, {2, "b1", 0.5, 100, 35}};
  const auto stats = node_timing_stats(ranks);
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[0].host, "a");
  EXPECT_EQ(stats[1].host, "b1");
  EXPECT_EQ(stats[2].host, "b10");
  EXPECT_EQ(stats[0].repetitions, 2u);
  EXPECT_DOUBLE_EQ(stats[0].mean_seconds_per_op, 0.25);
  EXPECT_DOUBLE_EQ(stats[0].sd_seconds_per_op, std::sqrt(2 * 0.05 * 0.05));
  EXPECT_DOUBLE_EQ(stats[0].mean_work, 40);
  EXPECT_DOUBLE_EQ(stats[1].mean_seconds_per_op, 0.6);
  EXPECT_DOUBLE_EQ(stats[2].sd_seconds_per_op, 0);
}

TEST(NodeTimingStats, ModelViewMatchesTheMeasuredSpreadAtTheMeasuredTime) {
  const NodeTimingStats s{"a", 3, 0.5, 0.05, 40};
  const auto c = variable_computer_from(s);
  EXPECT_DOUBLE_EQ(c.speed, 2);
  // At the measured work: t = 20 s, sigma_T = 40 * 0.05 = 2 s, so k = 2 / sqrt(20).
  EXPECT_NEAR(c.variation * std::sqrt(40 / c.speed), 2, 1e-12);
}

TEST(NodeTimingStats, RejectsWhatGivesNoSecondsPerOp) {
  EXPECT_THROW(node_timing_stats({{1, "a", 0, 100, 1}}), Error);
  EXPECT_THROW(node_timing_stats({{1, "a", 0.5, 100, 0}}), Error);
}

TEST(CheckEqualizationInput, ExplainsDegenerateInputs) {
  const NodeTimingStats a{"a", 2, 1, 0.1, 10};
  NodeTimingStats b{"b", 1, 1, 0, 10};
  try {
    check_equalization_input({a, b});
    FAIL() << "a node with one repetition was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("too few for b (1 run)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_equalization_input({a}), Error);
  b.repetitions = 2;
  EXPECT_EQ(check_equalization_input({a, b}), "");
  NodeTimingStats steady = a;
  steady.sd_seconds_per_op = 0;
  EXPECT_EQ(check_equalization_input({steady, b}),
            "no node's time varies between repetitions: step 2 equals step 1");
}

TEST(ChooseVariation, AvailabilityThOfEveryNodeGivesTheVariation) {
  const NodeTimingStats a{"a", 3, 0.5, 0.05, 40}, b{"b", 3, 0.25, 0.0, 40};
  const VariationChoice c = choose_variation({a, b}, {{"b", 0.1, 2.0}, {"a", 0.3, 0.5}});
  ASSERT_TRUE(c.from_availability);
  ASSERT_EQ(c.computers.size(), 2u);
  // Speeds from the runs; k = TH sqrt(2 x correlation seconds), in the order of the stats.
  EXPECT_DOUBLE_EQ(c.computers[0].speed, 2);
  EXPECT_NEAR(c.computers[0].variation, 0.3 * std::sqrt(1.0), 1e-12);
  EXPECT_DOUBLE_EQ(c.computers[1].speed, 4);
  EXPECT_NEAR(c.computers[1].variation, 0.1 * std::sqrt(4.0), 1e-12);
  EXPECT_NE(c.source.find("availability"), std::string::npos) << c.source;
}

TEST(ChooseVariation, ANodeWithoutAvailabilityOrCorrelationTimeFallsBackToRunTimes) {
  const NodeTimingStats a{"a", 3, 0.5, 0.05, 40}, b{"b", 3, 0.25, 0.01, 40};
  for (const auto& availability :
       {std::vector<MeasuredAvailability>{{"a", 0.3, 0.5}},
        std::vector<MeasuredAvailability>{{"a", 0.3, 0.5}, {"b", 0.1, std::nullopt}}}) {
    const VariationChoice c = choose_variation({a, b}, availability);
    EXPECT_FALSE(c.from_availability);
    ASSERT_EQ(c.computers.size(), 2u);
    EXPECT_DOUBLE_EQ(c.computers[0].variation, variable_computer_from(a).variation);
    EXPECT_DOUBLE_EQ(c.computers[1].variation, variable_computer_from(b).variation);
    EXPECT_NE(c.source.find("run times"), std::string::npos) << c.source;
    EXPECT_NE(c.source.find("for b"), std::string::npos) << c.source;
  }
}

}  // namespace
}  // namespace hetscale
