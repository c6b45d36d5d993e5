// The communication models recovered from exact synthetic measurements, by hand.
#include "hetscale/model/network_calibration.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

TEST(NetworkCalibration, FitLineIsOrdinaryLeastSquares) {
  // y = 1 + 2x exactly; then (0,0),(1,1),(2,1): slope 0.5, intercept 1/6, r2 0.75.
  const std::vector<double> x{0, 1, 2, 3}, y{1, 3, 5, 7};
  const LineFit exact = fit_line(x, y);
  EXPECT_DOUBLE_EQ(exact.slope, 2);
  EXPECT_DOUBLE_EQ(exact.intercept, 1);
  EXPECT_DOUBLE_EQ(exact.r2, 1);
  const std::vector<double> a{0, 1, 2}, b{0, 1, 1};
  const LineFit rough = fit_line(a, b);
  EXPECT_NEAR(rough.slope, 0.5, 1e-15);
  EXPECT_NEAR(rough.intercept, 1.0 / 6, 1e-15);
  EXPECT_NEAR(rough.r2, 0.75, 1e-15);
  EXPECT_THROW(fit_line(std::vector<double>{1}, std::vector<double>{1}), Error);
  EXPECT_THROW(fit_line(std::vector<double>{1, 1}, std::vector<double>{1, 2}), Error);
}

TEST(NetworkCalibration, StarNetworkFromMessageTimes) {
  // Two links of 2 us each and 1250 MB/s: T(N) = 4e-6 + N / 1.25e9 s.
  CommMeasurements m;
  for (double n : {1.0, 1024.0, 65536.0, 1048576.0}) m.send.emplace_back(n, 4e-6 + n / 1.25e9);
  for (double p : {2.0, 3.0, 4.0}) {
    m.bcast.emplace_back(p, 0.12e-3 + 0.23e-3 * p);
    m.barrier.emplace_back(p, 0.39e-3 * p);
  }
  const CommModels models = fit_comm_models(m);
  EXPECT_EQ(models.network.topology, NetworkTopology::star);
  EXPECT_NEAR(models.network.latency_us, 2, 1e-9);
  EXPECT_NEAR(models.network.bandwidth_MBps, 1250, 1e-6);
  EXPECT_NEAR(models.bcast.intercept, 0.12e-3, 1e-15);
  EXPECT_NEAR(models.bcast.slope, 0.23e-3, 1e-15);
  EXPECT_NEAR(models.barrier.slope, 0.39e-3, 1e-15);
  EXPECT_NEAR(models.barrier.intercept, 0, 1e-15);
}

// By hand: a one-way message of 4 us; a collective over p ranks takes ceil(log2 p) of
// them on the links (1, 2, 2, 3 rounds at p = 2..5), and the rest is its overhead.
TEST(NetworkCalibration, CollectiveOverheadIsWhatTheLinksDoNotCharge) {
  const double latency = 4e-6;
  const int rounds[] = {0, 0, 1, 2, 2, 3};
  std::vector<std::pair<double, double>> barrier;
  for (int p = 2; p <= 5; ++p)
    barrier.emplace_back(p, rounds[p] * latency + (-8.1e-3 + 6.68e-3 * p));
  const CollectiveOverhead growing = collective_overhead(barrier, latency);
  EXPECT_NEAR(growing.us, -8100, 1e-6);
  EXPECT_NEAR(growing.us_per_rank, 6680, 1e-6);
  // Measured up to 5 ranks: beyond, what 5 cost.
  EXPECT_EQ(growing.max_ranks, 5);
  EXPECT_DOUBLE_EQ(growing.seconds(1024), growing.seconds(5));
  EXPECT_NEAR(growing.seconds(5), 25.3e-3, 1e-12);
  // Excesses of 1 ms at 2 ranks and 0.5 ms at 4: a falling line becomes their mean.
  const CollectiveOverhead falling =
      collective_overhead({{2, 1e-3 + latency}, {4, 0.5e-3 + 2 * latency}}, latency);
  EXPECT_NEAR(falling.us, 750, 1e-9);
  EXPECT_EQ(falling.us_per_rank, 0);
  // One process count: a constant, 2 ms less two rounds of 4 us.
  const CollectiveOverhead one = collective_overhead({{3, 2e-3}, {3, 2e-3}}, latency);
  EXPECT_NEAR(one.us, 1992, 1e-9);
  EXPECT_EQ(one.us_per_rank, 0);
  EXPECT_TRUE(collective_overhead({}, latency).none());
  // Faster than the links: the line lies below zero, and the twin charges nothing.
  const CollectiveOverhead faster = collective_overhead({{2, 1e-6}, {4, 2e-6}}, latency);
  EXPECT_EQ(faster.seconds(2), 0);
  EXPECT_EQ(faster.seconds(4), 0);
  // fit_comm_models puts each into [network], the all-reduce's when it was measured.
  CommMeasurements m;
  for (double n : {1.0, 1024.0, 65536.0}) m.send.emplace_back(n, latency + n / 1.25e9);
  m.barrier = barrier;
  m.bcast = {{2, 0.5e-3 + latency}, {3, 1e-3 + 2 * latency}};
  const CommModels models = fit_comm_models(m);
  EXPECT_NEAR(models.network.barrier_overhead.us_per_rank, 6680, 1e-6);
  EXPECT_NEAR(models.network.broadcast_overhead.us, -500, 1e-6);
  EXPECT_NEAR(models.network.broadcast_overhead.us_per_rank, 500, 1e-6);
  EXPECT_TRUE(models.network.allreduce_overhead.none());
  m.allreduce = {{2, 3e-3 + latency}, {3, 3e-3 + 2 * latency}};
  const CommModels with = fit_comm_models(m);
  EXPECT_NEAR(with.network.allreduce_overhead.us, 3000, 1e-6);
  EXPECT_NEAR(with.allreduce.intercept, 3e-3 - 4e-6, 1e-12);
}

// The latency is the smallest message's, not the intercept of a fit over decades of
// sizes, which the largest messages' scatter sets. The one-way times hetscale-commbench
// measured on the testbed (sleep waiting, 1 byte to 64 MiB): 8.6 us for 1 byte, while
// the least-squares intercept is 0.28 ms.
TEST(NetworkCalibration, LatencyIsTheSmallestMessagesTime) {
  CommMeasurements m;
  m.send = {{1, 8.6e-6},          {1024, 58.8e-6},       {65536, 317.0e-6},  {1048576, 708.4e-6},
            {4194304, 3152.7e-6}, {16777216, 9365.0e-6}, {67108864, 36327.4e-6}};
  m.bcast = {{2, 1e-5}, {3, 2e-5}};
  m.barrier = {{2, 1e-5}, {3, 2e-5}};
  const CommModels models = fit_comm_models(m);
  EXPECT_GT(models.send.intercept, 1e-4);
  EXPECT_NEAR(models.network.latency_us, (8.6e-6 - models.send.slope) / 2 * 1e6, 1e-9);
  EXPECT_NEAR(models.network.latency_us, 4.3, 0.01);
}

TEST(NetworkCalibration, NoBandwidthIsAClearError) {
  CommMeasurements m;
  m.send = {{1, 5e-6}, {8, 5e-6}};
  m.bcast = {{2, 1}, {3, 2}};
  m.barrier = {{2, 1}, {3, 2}};
  try {
    fit_comm_models(m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "message times do not grow with the size: no bandwidth can be fitted (measure "
              "larger messages)");
  }
  m.bcast = {{2, 1}};
  EXPECT_THROW(fit_comm_models(m), Error);
}

// A fit whose [network] a site table would refuse (number_limits.hpp) is an error, not a
// table hetscale-commbench writes and nothing reads back.
TEST(NetworkCalibration, FiguresBeyondTheSiteTableRangeAreErrors) {
  CommMeasurements m;
  m.bcast = {{2, 1}, {3, 2}};
  m.barrier = {{2, 1}, {3, 2}};
  // Powers of two, so that the fit is exact: 2^-50 s per byte, 2^50 bytes/s.
  m.send = {{0, 0}, {0x1p20, 0x1p-30}};
  try {
    fit_comm_models(m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "the fitted bandwidth 1125899906.842624 MBps is more than the 1e+09 MBps a site table "
              "allows: message times hardly grow with the size (measure larger messages)");
  }
  m.send = {{0, 32}, {0x1p20, 32 + 0x1p-10}};  // 32 s a message: 16 s per link
  try {
    fit_comm_models(m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "the fitted latency 1.6e+07 us is more than the 1e+07 us a site table allows");
  }
}

}  // namespace
}  // namespace hetscale
