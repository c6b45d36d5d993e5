#include "hetscale/site/hardware.hpp"

#include <gtest/gtest.h>

namespace hetscale {
namespace {

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

HardwareParts epyc() {
  HardwareParts h;
  h.cpu_vendor = "AuthenticAMD";
  h.cpu_model = "AMD EPYC 7763 64-Core Processor";
  h.packages = 2;
  h.cores = 128;
  h.pus = 256;
  h.numa_nodes = 8;
  h.caches = {{1, 32768, 128}, {2, 524288, 128}, {3, 33554432, 16}};
  h.memory_bytes = 251 * gib;
  h.clock_mhz = 2450;
  return h;
}

TEST(NominalMemory, RoundsKernelReservationsAwayToTheInstalledSize) {
  EXPECT_EQ(nominal_memory_gib(251 * gib), 256u);
  EXPECT_EQ(nominal_memory_gib(254 * gib), 256u);
  EXPECT_EQ(nominal_memory_gib(25276514304), 24u);  // this VM: MemTotal 24684096 kB
  EXPECT_EQ(nominal_memory_gib(6000173056), 6u);
  EXPECT_EQ(nominal_memory_gib(300 * 1024 * 1024), 1u);  // never below one unit
  EXPECT_EQ(nominal_memory_gib(0), 0u);
}

TEST(Fingerprint, TextListsTheNormalisedParts) {
  HardwareParts h = epyc();
  h.cpu_model = "  AMD EPYC 7763   64-Core Processor ";
  h.accelerators = {"GPU NVIDIA A100", "GPU  NVIDIA A100"};
  EXPECT_EQ(fingerprint_text(h),
            "vendor=AuthenticAMD;model=AMD EPYC 7763 64-Core "
            "Processor;packages=2;cores=128;pus=256;numa=8;"
            "L1=32768x128;L2=524288x128;L3=33554432x16;memory_gib=256;"
            "accelerator=GPU NVIDIA A100;accelerator=GPU NVIDIA A100;");
}

TEST(Fingerprint, IsStableAndShort) {
  // Golden, checked with an independent FNV-1a in Python. A change here re-labels
  // every site's groups, so it must be deliberate.
  EXPECT_EQ(hardware_fingerprint(epyc()), "8e25d71214a0f49b");
}

TEST(Fingerprint, TwinsWithNoiseShareIt) {
  HardwareParts twin = epyc();
  twin.memory_bytes = 250 * gib + 123456789;  // another kernel, another reservation
  twin.clock_mhz = 3100;                      // read while boosting
  twin.cpu_model = "AMD EPYC 7763 64-Core  Processor";
  std::reverse(twin.caches.begin(), twin.caches.end());
  EXPECT_EQ(hardware_fingerprint(twin), hardware_fingerprint(epyc()));
}

TEST(Fingerprint, DifferentHardwareDiffers) {
  const std::string base = hardware_fingerprint(epyc());
  HardwareParts h = epyc();
  h.memory_bytes = 503 * gib;
  EXPECT_NE(hardware_fingerprint(h), base);
  h = epyc();
  h.pus = 128;  // SMT off
  EXPECT_NE(hardware_fingerprint(h), base);
  h = epyc();
  h.accelerators = {"GPU NVIDIA A100"};
  EXPECT_NE(hardware_fingerprint(h), base);
  h = epyc();
  h.caches[2].size_bytes = 268435456;  // 3D V-Cache
  EXPECT_NE(hardware_fingerprint(h), base);
}

}  // namespace
}  // namespace hetscale
