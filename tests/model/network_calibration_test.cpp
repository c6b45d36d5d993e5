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
