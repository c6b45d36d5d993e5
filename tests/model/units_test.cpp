#include "hetscale/model/units.hpp"

#include <gtest/gtest.h>

#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/model/isospeed.hpp"

namespace hetscale {
namespace {

TEST(Units, Scales) {
  EXPECT_EQ(speed_unit_scale("flops"), 1.0);
  EXPECT_EQ(speed_unit_scale("Kflops"), 1e3);
  EXPECT_EQ(speed_unit_scale("Mflops"), 1e6);
  EXPECT_EQ(speed_unit_scale("Gflops"), 1e9);
  EXPECT_EQ(speed_unit_scale("Tflops"), 1e12);
  EXPECT_EQ(speed_unit_scale("Gflop/s"), 1e9);
  EXPECT_EQ(speed_unit_scale("Mop/s"), 1e6);
  EXPECT_EQ(speed_unit_scale("MB/s"), 1e6);
  EXPECT_EQ(speed_unit_scale("MiB/s"), 1048576.0);
  EXPECT_EQ(to_base_speed(20.29, "Mflops"), 20.29e6);
}

TEST(Units, EveryListedUnitResolves) {
  for (const SpeedUnit& unit : known_speed_units()) {
    EXPECT_EQ(speed_unit_scale(unit.name), unit.scale) << unit.name;
    EXPECT_GT(unit.scale, 0.0) << unit.name;
  }
  EXPECT_EQ(known_speed_units().size(), 26u);
}

TEST(Units, UnknownOrWrongCaseListsTheKnownOnes) {
  const std::string known =
      "(known: flops, Kflops, Mflops, Gflops, Tflops, Pflops, flop/s, Kflop/s, Mflop/s, "
      "Gflop/s, Tflop/s, Pflop/s, op/s, Kop/s, Mop/s, Gop/s, Top/s, B/s, KB/s, MB/s, GB/s, "
      "TB/s, KiB/s, MiB/s, GiB/s, TiB/s)";
  try {
    (void)speed_unit_scale("mflops");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown speed unit 'mflops' " + known);
  }
  EXPECT_THROW((void)to_base_speed(1, ""), Error);
}

TEST(Units, FlopsScaleOnlyForOperationCounts) {
  EXPECT_EQ(flops_scale("Mflops"), 1e6);
  EXPECT_EQ(flops_scale("Gflop/s"), 1e9);
  EXPECT_EQ(flops_scale("Mop/s"), 1e6);
  EXPECT_EQ(flops_scale("flops"), 1.0);
  EXPECT_EQ(flops_scale("MB/s"), std::nullopt);  // a byte rate is no compute speed
  EXPECT_EQ(flops_scale("speed-factor"), std::nullopt);
  EXPECT_EQ(flops_scale("mflops"), std::nullopt);
  for (const SpeedUnit& unit : known_speed_units())
    EXPECT_EQ(flops_scale(unit.name).has_value(), unit.operations) << unit.name;
}

TEST(Units, SpeedEfficiencyWithASiteUnit) {
  // W = 2 N^3 = 2e9 flop at N = 1000, T = 25 s, C = 4 nodes x 20 Mflops = 80 Mflops:
  // S = 8e7 flop/s, E_s = 1.
  EXPECT_DOUBLE_EQ(isospeed::speed_efficiency(2e9, 25, to_base_speed(80, "Mflops")), 1.0);
  EXPECT_DOUBLE_EQ(isospeed::speed_efficiency(2e9, 100, to_base_speed(0.08, "Gflops")), 0.25);
}

}  // namespace
}  // namespace hetscale
