#include "hetscale/model/piecewise_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

// Log-uniform sizes from 1 byte to 1 GiB, `per_decade` a decade (as hetscale-commbench
// sweeps them), rounded to whole bytes.
std::vector<double> sweep_sizes(int per_decade) {
  std::vector<double> sizes;
  const double top = std::log10(double(1 << 30));
  const int steps = static_cast<int>(std::ceil(top * per_decade));
  for (int i = 0; i <= steps; ++i) {
    const double b = std::round(std::pow(10.0, top * i / steps));
    if (sizes.empty() || b > sizes.back()) sizes.push_back(b);
  }
  return sizes;
}

// A network with three regimes: eager messages (2 us + 1 GB/s) up to 8 KiB, a middle one
// (10 us + 2 GB/s) up to 1 MiB, rendezvous (40 us + 5 GB/s) above; each time multiplied
// by a lognormal noise of `noise` (relative), `repetitions` samples a size.
std::vector<SizedTime> three_regimes(double noise, int repetitions, unsigned seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> gauss(0, noise);
  std::vector<SizedTime> points;
  for (const double b : sweep_sizes(5)) {
    const double t = b <= 8192 ? 2e-6 + b / 1e9 : b <= 1 << 20 ? 10e-6 + b / 2e9 : 40e-6 + b / 5e9;
    for (int r = 0; r < repetitions; ++r) points.push_back({b, t * std::exp(gauss(random))});
  }
  return points;
}

TEST(PiecewiseFit, RecoversKnownBreakpointsFromNoisyData) {
  for (const unsigned seed : {1u, 2u, 3u}) {
    const PiecewiseLinearFit fit = fit_piecewise_linear(three_regimes(0.03, 3, seed));
    ASSERT_EQ(fit.segments.size(), 3u) << "seed " << seed;
    // Each breakpoint falls between the last size of one regime and the first of the next.
    EXPECT_LE(fit.segments[0].last_bytes, 8192) << seed;
    EXPECT_GT(fit.segments[1].first_bytes, 8192) << seed;
    EXPECT_LE(fit.segments[1].last_bytes, 1 << 20) << seed;
    EXPECT_GT(fit.segments[2].first_bytes, 1 << 20) << seed;
    // Sizes next to the breakpoints on each side.
    EXPECT_GE(fit.segments[0].last_bytes, 4000) << seed;
    EXPECT_LE(fit.segments[1].first_bytes, 17000) << seed;
    EXPECT_GE(fit.segments[1].last_bytes, 500000) << seed;
    EXPECT_LE(fit.segments[2].first_bytes, 2200000) << seed;
    // Latency and bandwidth of each regime within the noise.
    EXPECT_NEAR(fit.segments[0].latency_seconds, 2e-6, 0.2e-6) << seed;
    EXPECT_NEAR(1 / fit.segments[1].seconds_per_byte, 2e9, 0.1 * 2e9) << seed;
    EXPECT_NEAR(1 / fit.segments[2].seconds_per_byte, 5e9, 0.05 * 5e9) << seed;
    EXPECT_NEAR(fit.relative_rms, 0.03, 0.01) << seed;
    // The model at a size of each regime.
    EXPECT_NEAR(fit.at(100), 2e-6 + 100 / 1e9, 0.05 * 2.1e-6) << seed;
    EXPECT_NEAR(fit.at(65536), 10e-6 + 65536 / 2e9, 0.05 * 42.8e-6) << seed;
    EXPECT_NEAR(fit.at(1 << 30), 40e-6 + (1 << 30) / 5e9, 0.05 * 0.215) << seed;
  }
}

TEST(PiecewiseFit, OneRegimeStaysOneLine) {
  std::mt19937_64 random(7);
  std::normal_distribution<double> gauss(0, 0.02);
  std::vector<SizedTime> points;
  for (const double b : sweep_sizes(5)) points.push_back({b, (5e-6 + b / 1e9) * std::exp(gauss(random))});
  const PiecewiseLinearFit fit = fit_piecewise_linear(points);
  ASSERT_EQ(fit.segments.size(), 1u);
  EXPECT_NEAR(fit.segments[0].latency_seconds, 5e-6, 0.3e-6);
  EXPECT_NEAR(fit.segments[0].seconds_per_byte, 1e-9, 0.05e-9);
  EXPECT_EQ(fit.segments[0].first_bytes, 1);
  EXPECT_EQ(fit.segments[0].last_bytes, 1 << 30);
}

TEST(PiecewiseFit, ExactLinesAndTheSegmentOfASize) {
  // Two exact lines: 1 s + 1 s/B on 1..4, 10 s + 2 s/B on 100..400; the boundary between
  // them is the geometric mean of 4 and 100, 20.
  std::vector<SizedTime> points;
  for (const double b : {1.0, 2.0, 3.0, 4.0}) points.push_back({b, 1 + b});
  for (const double b : {100.0, 200.0, 300.0, 400.0}) points.push_back({b, 10 + 2 * b});
  const PiecewiseLinearFit fit = fit_piecewise_linear(points);
  ASSERT_EQ(fit.segments.size(), 2u);
  EXPECT_NEAR(fit.segments[0].latency_seconds, 1, 1e-12);
  EXPECT_NEAR(fit.segments[0].seconds_per_byte, 1, 1e-12);
  EXPECT_NEAR(fit.segments[1].latency_seconds, 10, 1e-9);
  EXPECT_NEAR(fit.segments[1].seconds_per_byte, 2, 1e-12);
  ASSERT_EQ(fit.boundaries().size(), 1u);
  EXPECT_DOUBLE_EQ(fit.boundaries()[0], 20);
  EXPECT_DOUBLE_EQ(fit.at(20), 21);         // on the first line
  EXPECT_DOUBLE_EQ(fit.at(21), 10 + 42);    // on the second
  EXPECT_DOUBLE_EQ(fit.at(0), 1);           // below the first size: the first line
  EXPECT_DOUBLE_EQ(fit.at(1000), 2010);     // above the last: the last line
  EXPECT_LT(fit.relative_rms, 1e-12);
}

TEST(PiecewiseFit, AtMostTheSegmentsAskedAndEnoughSizesInEach) {
  const auto points = three_regimes(0.03, 1, 5);
  EXPECT_EQ(fit_piecewise_linear(points, {.max_segments = 2}).segments.size(), 2u);
  EXPECT_EQ(fit_piecewise_linear(points, {.max_segments = 1}).segments.size(), 1u);
  // Five sizes with at least three to a segment: one line, whatever they show.
  std::vector<SizedTime> few{{1, 1}, {2, 1}, {3, 1}, {1000, 50}, {2000, 100}};
  EXPECT_EQ(fit_piecewise_linear(few).segments.size(), 1u);
  EXPECT_EQ(fit_piecewise_linear(few, {.min_sizes_per_segment = 2}).segments.size(), 2u);
}

TEST(PiecewiseFit, BadPointsAreErrors) {
  const auto error = [](std::vector<SizedTime> points) {
    try {
      (void)fit_piecewise_linear(points);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error({{1, 1}, {1, 2}}), "a piecewise-linear fit needs at least 2 different message sizes");
  EXPECT_EQ(error({{1, 1}, {2, 0}}), "the time of a message of 2 bytes must be positive and finite, not 0");
  EXPECT_EQ(error({{-1, 1}, {2, 1}}), "a message size must be a finite number of bytes >= 0, not -1");
}

}  // namespace
}  // namespace hetscale
