#include "hetscale/classifier/availability_sampling.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "hetscale/base/error.hpp"
#include "hetscale/classifier/classify.hpp"

namespace hetscale {
namespace {

// Full speed and half speed in turn, `hold` windows each: a = 3/4, sigma_A = 1/4, TH = 1/3.
std::vector<double> square_wave(double full, std::size_t hold, std::size_t periods) {
  std::vector<double> speeds;
  for (std::size_t p = 0; p < periods; ++p) {
    for (std::size_t k = 0; k < hold; ++k) speeds.push_back(full);
    for (std::size_t k = 0; k < hold; ++k) speeds.push_back(full / 2);
  }
  return speeds;
}

TEST(Availability, SquareWaveGivesTheScheduleMeanSpreadAndTh) {
  const NodeAvailability a = summarize_availability(square_wave(2000, 20, 5), 0.1, 2000, "given");
  EXPECT_EQ(a.series.size(), 200u);
  EXPECT_DOUBLE_EQ(a.series.front(), 1.0);
  EXPECT_NEAR(a.mean, 0.75, 1e-12);
  EXPECT_NEAR(a.sd, 0.25, 1e-12);
  EXPECT_NEAR(a.th, 1.0 / 3, 1e-12);
  EXPECT_NEAR(a.period_seconds, 20, 1e-12);
  EXPECT_EQ(a.reference, "given");
  // A square wave's autocorrelation falls linearly, 1 - 2 lag / hold, from 1 to -1 over
  // the hold (2 s here): it crosses 1/e at lag hold (1 - 1/e) / 2 = 0.63 s.
  ASSERT_TRUE(a.correlation_seconds.has_value());
  EXPECT_NEAR(*a.correlation_seconds, 2 * (1 - std::exp(-1.0)) / 2, 0.06);
}

TEST(Availability, CorrelationTimeGrowsWithTheHold) {
  const auto shorter = correlation_seconds(square_wave(1, 5, 20), 0.1);
  const auto longer = correlation_seconds(square_wave(1, 20, 5), 0.1);
  ASSERT_TRUE(shorter && longer);
  EXPECT_LT(*shorter, *longer);
  EXPECT_NEAR(*shorter, 0.5 * (1 - std::exp(-1.0)) / 2, 0.02);
}

TEST(Availability, UncorrelatedWindowsDecorrelateWithinOneWindow) {
  // Alternating every window: the autocorrelation at lag 1 is about -1.
  const auto lag = correlation_seconds(square_wave(1, 1, 50), 0.25);
  ASSERT_TRUE(lag.has_value());
  EXPECT_GT(*lag, 0);
  EXPECT_LE(*lag, 0.25);
}

TEST(Availability, ConstantSpeedHasNoSpreadAndNoCorrelationTime) {
  const NodeAvailability a =
      summarize_availability(std::vector<double>(30, 1500.0), 0.2, 2000, "measured");
  EXPECT_DOUBLE_EQ(a.mean, 0.75);
  EXPECT_DOUBLE_EQ(a.sd, 0);
  EXPECT_DOUBLE_EQ(a.th, 0);
  EXPECT_FALSE(a.correlation_seconds.has_value());
}

TEST(Availability, ThDoesNotDependOnTheReferenceButAOnlyScales) {
  const auto speeds = square_wave(1000, 3, 10);
  const NodeAvailability a = summarize_availability(speeds, 0.1, 1000, "given");
  const NodeAvailability b = summarize_availability(speeds, 0.1, 2000, "given");
  EXPECT_NEAR(b.mean, a.mean / 2, 1e-12);
  EXPECT_NEAR(b.th, a.th, 1e-12);
}

TEST(Availability, BadInputsAreRejected) {
  EXPECT_THROW((void)summarize_availability({}, 0.1, 1, "given"), Error);
  EXPECT_THROW((void)summarize_availability({1}, 0, 1, "given"), Error);
  EXPECT_THROW((void)summarize_availability({1}, 0.1, 0, "given"), Error);
  EXPECT_THROW((void)summarize_availability({1, -1}, 0.1, 1, "given"), Error);
  EXPECT_THROW(check_availability_options({0.05, 0.1, 0}), Error);  // shorter than a window
  EXPECT_THROW(check_availability_options({10, 0, 0}), Error);
  EXPECT_NO_THROW(check_availability_options({10, 0.1, 0}));
}

ClassifyOptions described_node() {
  ClassifyOptions o;
  o.topology = {TopologySource::Kind::xml,
                std::string(HETSCALE_FIXTURES_DIR) + "/classifier/dual-xeon-2gpu.xml"};
  o.host = "gpu01";
  o.time = "2026-11-21T06:00:00Z";
  o.cpus = {2, 3};
  return o;
}

BenchmarkOutcome measured(const BenchmarkRequest&) {
  return {2000, "Mflops", 7, 0.01, 1.4, 1024, ""};
}

TEST(Availability, ClassifySamplesOnTheBenchmarksCpusRelativeToItsMarkedSpeed) {
  ClassifyOptions o = described_node();
  o.availability = {8, 0.5, 0};
  BenchmarkRequest seen;
  double seen_seconds = 0, seen_window = 0;
  const NodeRecord r = classify_node(o, measured, [&](const BenchmarkRequest& request,
                                                      double seconds, double window) {
    seen = request;
    seen_seconds = seconds;
    seen_window = window;
    return SpeedSamples{square_wave(2000, 2, 4), window};
  });
  ASSERT_EQ(r.state, NodeState::ok) << r.reason;
  EXPECT_THAT(seen.cpus, ::testing::ElementsAre(2, 3));
  EXPECT_EQ(seen.size, 1024u);  // the marked speed's own problem size
  EXPECT_DOUBLE_EQ(seen_seconds, 8);
  EXPECT_DOUBLE_EQ(seen_window, 0.5);
  ASSERT_TRUE(r.availability.has_value());
  EXPECT_EQ(r.availability->reference, "measured");
  EXPECT_DOUBLE_EQ(r.availability->reference_speed, 2000);
  EXPECT_NEAR(r.availability->th, 1.0 / 3, 1e-12);
  // The record carries it through JSON.
  const NodeRecord back = node_record_from_json(to_json(r));
  ASSERT_TRUE(back.availability.has_value());
  EXPECT_EQ(to_json(back), to_json(r));
}

TEST(Availability, AGivenMarkedSpeedIsTheReference) {
  ClassifyOptions o = described_node();
  o.availability = {4, 0.5, 4000};
  const NodeRecord r = classify_node(o, measured, [](const BenchmarkRequest&, double, double w) {
    return SpeedSamples{std::vector<double>(8, 3000.0), w};
  });
  ASSERT_TRUE(r.availability.has_value());
  EXPECT_EQ(r.availability->reference, "given");
  EXPECT_DOUBLE_EQ(r.availability->mean, 0.75);
}

TEST(Availability, WithoutThePeriodNothingIsSampled) {
  bool sampled = false;
  const NodeRecord r = classify_node(described_node(), measured,
                                     [&](const BenchmarkRequest&, double, double w) {
                                       sampled = true;
                                       return SpeedSamples{{1.0}, w};
                                     });
  EXPECT_FALSE(sampled);
  EXPECT_FALSE(r.availability.has_value());
  EXPECT_FALSE(to_json(r).contains("availability"));
}

TEST(Availability, AFailingSamplingExcludesTheNodeAndSaysWhy) {
  ClassifyOptions o = described_node();
  o.availability = {4, 0.5, 0};
  const NodeRecord r = classify_node(
      o, measured, [](const BenchmarkRequest&, double, double) -> SpeedSamples {
        throw std::runtime_error("no CPU left");
      });
  EXPECT_EQ(r.state, NodeState::excluded);
  EXPECT_THAT(r.reason, ::testing::HasSubstr("availability sampling failed: no CPU left"));
}

}  // namespace
}  // namespace hetscale
