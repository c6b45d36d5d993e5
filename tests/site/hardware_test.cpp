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

Accelerator a100(const std::string& bus_id, const std::string& model = "NVIDIA A100-SXM4-80GB") {
  Accelerator a;
  a.kind = "gpu";
  a.vendor = "NVIDIA";
  a.model = model;
  a.memory_bytes = 80 * gib;
  a.pci_bus_id = bus_id;
  a.pci_id = "10de:20b2";
  a.numa = {0};
  return a;
}

TEST(Fingerprint, TextListsTheNormalisedParts) {
  HardwareParts h = epyc();
  h.cpu_model = "  AMD EPYC 7763   64-Core Processor ";
  h.accelerators = {a100("0000:c1:00.0"), a100("0000:01:00.0")};
  EXPECT_EQ(fingerprint_text(h),
            "vendor=AuthenticAMD;model=AMD EPYC 7763 64-Core "
            "Processor;packages=2;cores=128;pus=256;numa=8;"
            "L1=32768x128;L2=524288x128;L3=33554432x16;memory_gib=256;"
            "accelerator=gpu 10de:20b2;accelerator=gpu 10de:20b2;");
}

TEST(Fingerprint, AnAcceleratorIsItsKindAndPciIdWhateverThePluginsSaid) {
  HardwareParts nvml = epyc();
  nvml.accelerators = {a100("0000:01:00.0")};
  HardwareParts pci_only = nvml;
  pci_only.accelerators[0].model = "";
  pci_only.accelerators[0].memory_bytes.reset();
  EXPECT_EQ(hardware_fingerprint(pci_only), hardware_fingerprint(nvml));
  HardwareParts other = nvml;
  other.accelerators[0].pci_id = "10de:20b5";  // A100 PCIe 80GB
  EXPECT_NE(hardware_fingerprint(other), hardware_fingerprint(nvml));
  Accelerator outside_pci;
  outside_pci.kind = "gpu";
  outside_pci.model = "Apple  M2";
  EXPECT_EQ(accelerator_identity(outside_pci), "gpu Apple M2");
}

TEST(Fingerprint, KindsMemorySideCachesAndTiersCountOnlyWhereTheyTellNodesApart) {
  HardwareParts h = epyc();
  const std::string homogeneous = fingerprint_text(h);
  // One kind, DRAM tiers: the text it had before these parts existed.
  h.cpu_kinds = {CpuKind{{0, 1, 2}, 128, 0, "", 3500, 2450}};
  h.memory = {{0, 32 * gib, "DRAM"}, {1, 32 * gib, "DRAM"}};
  EXPECT_EQ(fingerprint_text(h), homogeneous);
  h.cpu_kinds = {CpuKind{{4, 5}, 2, 0, "IntelAtom", 3900, std::nullopt},
                 CpuKind{{0, 1, 2, 3}, 2, 1, "IntelCore", 5000, 1900}};
  h.caches.push_back({1, 96 * gib, 2, true});
  h.memory.push_back({2, 16 * gib, "HBM"});
  EXPECT_EQ(fingerprint_text(h), homogeneous +
                                     "kind=0:IntelAtom:2c2p;kind=1:IntelCore:2c4p;"
                                     "memory_side_L1=103079215104x2;"
                                     "tier=DRAM:32x2;tier=HBM:16x1;");
  // Frequencies are left out.
  HardwareParts boosted = h;
  boosted.cpu_kinds[1].frequency_max_mhz = 5200;
  EXPECT_EQ(hardware_fingerprint(boosted), hardware_fingerprint(h));
}

TEST(HardwareSummary, SaysWhatTheNodeHasInOneLine) {
  HardwareParts h = epyc();
  h.accelerators = {a100("0000:01:00.0"), a100("0000:41:00.0")};
  h.memory = {{0, 128 * gib, "DRAM"}, {1, 128 * gib, "DRAM"}};
  EXPECT_EQ(hardware_summary(h),
            "2x64c AMD EPYC 7763, 2x NVIDIA A100-SXM4-80GB 80 GB, 256 GB DRAM");
  h.accelerators[1].model = "";
  h.memory.push_back({2, std::nullopt, "NVM"});
  h.caches.push_back({1, 96 * gib, 2, true});
  h.cpu_kinds = {CpuKind{{4, 5}, 8, 0, "", std::nullopt, std::nullopt},
                 CpuKind{{0, 1, 2, 3}, 120, 1, "", std::nullopt, std::nullopt}};
  EXPECT_EQ(hardware_summary(h),
            "2x64c AMD EPYC 7763 (120 + 8 cores of 2 kinds), 1x NVIDIA A100-SXM4-80GB 80 GB, "
            "1x NVIDIA 10de:20b2 80 GB, 256 GB memory + 192 GB memory-side cache");
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
  h.accelerators = {a100("0000:01:00.0")};
  EXPECT_NE(hardware_fingerprint(h), base);
  h = epyc();
  h.caches[2].size_bytes = 268435456;  // 3D V-Cache
  EXPECT_NE(hardware_fingerprint(h), base);
}

}  // namespace
}  // namespace hetscale
