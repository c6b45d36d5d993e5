#include "hetscale/classifier/probe.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hetscale/base/error.hpp"
#include "hetscale/classifier/cpu_identity.hpp"
#include "hetscale/classifier/proc_files.hpp"
#include "hetscale/site/node_record.hpp"

namespace hetscale {
namespace {

using ::testing::ElementsAre;

const std::string dir = std::string(HETSCALE_FIXTURES_DIR) + "/classifier/";

nlohmann::json probe_json(const ProbeResult& p) {
  // The record's own hardware object; the clock is left out because recorded and synthetic
  // topologies carry none (it comes from /proc/cpuinfo on a live host only).
  nlohmann::json j = hardware_to_json(p.hardware);
  j.erase("clock_mhz");
  j["fingerprint"] = hardware_fingerprint(p.hardware);
  j["allowed_cpus"] = p.allowed_cpus;
  return j;
}

// Compares with tests/fixtures/classifier/<golden>; HETSCALE_UPDATE_GOLDEN=1 rewrites it
// (then review the diff: a changed fingerprint re-labels every site's groups).
void expect_golden(const ProbeResult& probe, const std::string& golden) {
  const nlohmann::json actual = probe_json(probe);
  if (const char* update = std::getenv("HETSCALE_UPDATE_GOLDEN");
      update != nullptr && std::string(update) == "1") {
    std::ofstream(dir + golden) << actual.dump(2) << "\n";
  }
  std::ifstream in(dir + golden);
  ASSERT_TRUE(in) << "missing golden file " << golden;
  EXPECT_EQ(actual, nlohmann::json::parse(in)) << "actual:\n" << actual.dump(2);
}

struct Case {
  std::string golden;
  TopologySource source;
};

class ProbeGolden : public ::testing::TestWithParam<Case> {};

TEST_P(ProbeGolden, MatchesTheGoldenFile) {
  expect_golden(probe_node(GetParam().source), GetParam().golden);
}

INSTANTIATE_TEST_SUITE_P(
    Topologies, ProbeGolden,
    ::testing::Values(Case{"vm-epyc-2pu.expected.json",
                           {TopologySource::Kind::xml, dir + "vm-epyc-2pu.xml"}},
                      Case{"dual-xeon-2gpu.expected.json",
                           {TopologySource::Kind::xml, dir + "dual-xeon-2gpu.xml"}},
                      Case{"synthetic-pack2-core8-pu2.expected.json",
                           {TopologySource::Kind::synthetic, "pack:2 core:8 pu:2"}},
                      Case{"synthetic-numa4.expected.json",
                           {TopologySource::Kind::synthetic,
                            "pack:2 numa:2(memory=68719476736) l3:1(size=33554432) core:16 "
                            "l2:1(size=524288) pu:2"}}),
    [](const auto& param_info) {
      std::string name = param_info.param.golden.substr(0, param_info.param.golden.find('.'));
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

TEST(Probe, RecordedTopologyCountsAndAllocation) {
  const ProbeResult p = probe_node({TopologySource::Kind::xml, dir + "dual-xeon-2gpu.xml"});
  EXPECT_EQ(p.hardware.packages, 2u);
  EXPECT_EQ(p.hardware.cores, 40u);
  EXPECT_EQ(p.hardware.pus, 80u);
  EXPECT_EQ(p.hardware.numa_nodes, 2u);
  EXPECT_EQ(p.hardware.memory_bytes, 2 * 206158430208ULL);
  EXPECT_EQ(p.hardware.allowed_pus, (PartOf{8, 80}));
  EXPECT_EQ(p.hardware.cpu_model, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
  // Slurm's cgroup gave this process the first 8 PUs; the hardware counts stay whole.
  EXPECT_THAT(p.allowed_cpus, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  // Four OS devices per GPU are one accelerator each; the BMC's VGA is no accelerator.
  ASSERT_EQ(p.hardware.accelerators.size(), 2u);
  for (const Accelerator& a : p.hardware.accelerators) {
    EXPECT_EQ(a.kind, "gpu");
    EXPECT_EQ(a.model, "Tesla V100-SXM2-32GB");
  }
  EXPECT_EQ(p.source, "xml:" + dir + "dual-xeon-2gpu.xml");
}

TEST(Probe, TwinsWithOtherMemoryNoiseHostAndAllocationShareTheFingerprint) {
  const ProbeResult a = probe_node({TopologySource::Kind::xml, dir + "vm-epyc-2pu.xml"});
  const ProbeResult b = probe_node({TopologySource::Kind::xml, dir + "vm-epyc-2pu-twin.xml"});
  EXPECT_NE(a.hardware.memory_bytes, b.hardware.memory_bytes);
  EXPECT_THAT(b.allowed_cpus, ElementsAre(1));
  EXPECT_EQ(hardware_fingerprint(a.hardware), hardware_fingerprint(b.hardware));
}

TEST(Probe, DifferentTopologiesHaveDifferentFingerprints) {
  const ProbeResult a = probe_node({TopologySource::Kind::synthetic, "pack:2 core:8 pu:2"});
  const ProbeResult b = probe_node({TopologySource::Kind::synthetic, "pack:2 core:8 pu:1"});
  EXPECT_NE(hardware_fingerprint(a.hardware), hardware_fingerprint(b.hardware));
}

std::string error_of(const TopologySource& source) {
  try {
    probe_node(source);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Probe, UnreadableTopologiesSayWhy) {
  EXPECT_EQ(error_of({TopologySource::Kind::synthetic, "pack:2 bogus:3"}),
            "hwloc: invalid synthetic topology \"pack:2 bogus:3\"");
  EXPECT_EQ(error_of({TopologySource::Kind::xml, dir + "no-such.xml"}),
            "hwloc: cannot read topology file '" + dir + "no-such.xml': No such file or directory");
}

TEST(CpuIdentity, ArmCodesPciVendorsAndOneVendorArchitectures) {
  EXPECT_EQ(arm_implementer_name("0x41"), "ARM");
  EXPECT_EQ(arm_implementer_name("0x48"), "HiSilicon");
  EXPECT_EQ(arm_implementer_name("0x99"), "Arm implementer 0x99");
  EXPECT_EQ(arm_implementer_name(""), "");
  EXPECT_EQ(arm_part_name("0x41", "0xd0c"), "Neoverse-N1");
  EXPECT_EQ(arm_part_name("0x48", "0xd01"), "TaiShan-v110");
  EXPECT_EQ(arm_part_name("0x41", "0xfff"), "part 0xfff");
  EXPECT_EQ(architecture_vendor("ppc64le"), "IBM");
  EXPECT_EQ(architecture_vendor("s390x"), "IBM");
  EXPECT_EQ(architecture_vendor("aarch64"), "");
  EXPECT_EQ(pci_vendor_name(0x10de), "NVIDIA");
  EXPECT_EQ(pci_vendor_name(0x1bcf), "NEC");
  EXPECT_EQ(pci_vendor_name(0x1234), "");
}

TEST(ProcFiles, MeminfoTotal) {
  std::ifstream in(dir + "meminfo.txt");
  EXPECT_EQ(meminfo_total_bytes(in), 24684096ULL * 1024);
  std::istringstream bad("MemFree: 12 kB\nMemTotal: lots\n");
  EXPECT_EQ(meminfo_total_bytes(bad), 0u);
}

TEST(ProcFiles, CpuinfoOfX86AndArm) {
  std::ifstream x86(dir + "cpuinfo-epyc.txt");
  const CpuinfoFacts epyc = parse_cpuinfo(x86);
  EXPECT_EQ(epyc.vendor, "AuthenticAMD");
  EXPECT_EQ(epyc.model, "AMD EPYC");
  EXPECT_DOUBLE_EQ(epyc.mhz, 2596.150);
  std::ifstream arm(dir + "cpuinfo-arm.txt");
  const CpuinfoFacts neoverse = parse_cpuinfo(arm);
  EXPECT_EQ(neoverse.vendor, "");
  EXPECT_EQ(neoverse.implementer, "0x41");
  EXPECT_EQ(neoverse.part, "0xd0c");
  EXPECT_EQ(neoverse.model, "");
  EXPECT_DOUBLE_EQ(neoverse.mhz, 0);
}

}  // namespace
}  // namespace hetscale
