// The probe on topologies recorded on real machines by others (tests/fixtures/topologies/,
// origins in its README.md): every record agrees with what hwloc's own tools report of the
// same file (hwloc-info/, written by scripts/record-topology-expectations.sh), matches its
// reviewed golden file, and has the parts the file has.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "hetscale/base/error.hpp"
#include "hetscale/classifier/hwloc_handles.hpp"
#include "hetscale/classifier/probe.hpp"
#include "hetscale/site/node_record.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const fs::path dir = fs::path(HETSCALE_FIXTURES_DIR) / "topologies";

std::vector<std::string> fixture_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".xml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

HardwareParts probe(const std::string& name) {
  return probe_node({TopologySource::Kind::xml, (dir / (name + ".xml")).string()}).hardware;
}

// What hwloc's tools said of one file: the output of each command, by its arguments after
// the file name ("" for the plain hwloc-info, "root", "numanode:all", "pci:all", "cpukinds").
std::map<std::string, std::string> hwloc_outputs(const std::string& name) {
  std::ifstream in(dir / "hwloc-info" / (name + ".txt"));
  EXPECT_TRUE(in) << "no hwloc-info output for " << name
                  << ": run scripts/record-topology-expectations.sh";
  std::map<std::string, std::string> out;
  std::string line, section;
  const std::string file = name + ".xml";
  while (std::getline(in, line)) {
    if (line.starts_with("$ ")) {
      const std::string rest = line.substr(line.find(file) + file.size());
      section = line.find("--cpukinds") != std::string::npos ? "cpukinds" : "";
      if (section.empty()) {
        const auto word = rest.find_first_not_of(' ');
        section = word == std::string::npos ? "" : rest.substr(word);
      }
      out[section];
      continue;
    }
    out[section] += line + "\n";
  }
  return out;
}

// "depth 2:  4 Package (type #1)" -> Package: 4.
std::map<std::string, std::uint32_t> object_counts(const std::string& listing) {
  std::map<std::string, std::uint32_t> out;
  static const std::regex depth(R"(depth -?\d+:\s+(\d+) (\w+) \(type)");
  for (std::sregex_iterator it(listing.begin(), listing.end(), depth), end; it != end; ++it)
    out[(*it)[2].str()] = static_cast<std::uint32_t>(std::stoul((*it)[1].str()));
  return out;
}

// The value of " KEY = VALUE" lines of one object's attributes, in order.
std::vector<std::string> attributes(const std::string& text, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream in(text);
  const std::string prefix = " " + key + " = ";
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(prefix)) out.push_back(line.substr(prefix.size()));
  return out;
}

std::uint32_t bitmap_weight(const std::string& text) {
  HwlocBitmap set;
  EXPECT_EQ(hwloc_bitmap_sscanf(set.get(), text.c_str()), 0) << text;
  return static_cast<std::uint32_t>(set.indices().size());
}

class TopologyFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(TopologyFixture, CountsAgreeWithHwlocInfo) {
  const std::string name = GetParam();
  const HardwareParts h = probe(name);
  std::map<std::string, std::string> hwloc = hwloc_outputs(name);
  const std::map<std::string, std::uint32_t> counts = object_counts(hwloc[""]);
  const auto count = [&](const std::string& type) {
    const auto it = counts.find(type);
    return it == counts.end() ? 0u : it->second;
  };
  EXPECT_EQ(h.packages, count("Package"));
  EXPECT_EQ(h.cores, count("Core"));
  EXPECT_EQ(h.pus, count("PU"));
  EXPECT_EQ(h.numa_nodes, count("NUMANode"));
  std::uint32_t memory_side = 0;
  for (const CacheLevel& c : h.caches) memory_side += c.memory_side ? c.count : 0;
  if (count("MemCache") > 0) {
    EXPECT_EQ(memory_side, count("MemCache"));
  }

  // The machine's memory and its processor and NUMA node sets (hwloc-info ... root).
  const std::string& root = hwloc["root"];
  const std::vector<std::string> total = attributes(root, "total memory");
  if (total.empty() || total[0] == "0") {
    EXPECT_FALSE(h.memory_bytes) << "hwloc-info reports no memory";
  } else {
    EXPECT_EQ(h.memory_bytes, std::stoull(total[0]));
  }
  const auto weight = [&](const std::string& key) {
    const std::vector<std::string> values = attributes(root, key);
    return values.empty() ? 0u : bitmap_weight(values[0]);
  };
  ASSERT_TRUE(h.allowed_pus && h.offline_pus && h.allowed_numa_nodes && h.offline_numa_nodes);
  EXPECT_EQ(*h.allowed_pus, (PartOf{weight("allowed cpuset"), weight("cpuset")}));
  EXPECT_EQ(h.allowed_pus->of, h.pus);
  EXPECT_EQ(*h.offline_pus,
            (PartOf{weight("complete cpuset") - weight("cpuset"), weight("complete cpuset")}));
  EXPECT_EQ(*h.allowed_numa_nodes, (PartOf{weight("allowed nodeset"), weight("nodeset")}));
  EXPECT_EQ(*h.offline_numa_nodes,
            (PartOf{weight("complete nodeset") - weight("nodeset"), weight("complete nodeset")}));

  // One memory tier per NUMA node, with its size (hwloc-info ... numanode:all).
  const std::string& numa = hwloc["numanode:all"];
  const std::vector<std::string> os = attributes(numa, "os index");
  const std::vector<std::string> local = attributes(numa, "local memory");
  ASSERT_EQ(h.memory.size(), os.size());
  std::map<unsigned, std::string> local_of;
  for (std::size_t i = 0; i < os.size() && i < local.size(); ++i)
    local_of[static_cast<unsigned>(std::stoul(os[i]))] = local[i];
  for (const MemoryTier& tier : h.memory) {
    ASSERT_TRUE(local_of.contains(tier.numa)) << "NUMA node " << tier.numa;
    if (local_of[tier.numa] == "0") {
      EXPECT_FALSE(tier.bytes) << "NUMA node " << tier.numa;
    } else {
      EXPECT_EQ(tier.bytes, std::stoull(local_of[tier.numa])) << "NUMA node " << tier.numa;
    }
  }

  // The CPU kinds and their processing units (lstopo --cpukinds).
  static const std::regex kind(R"(CPU kind #(\d+) efficiency (-?\d+) cpuset (\S+))");
  const std::string& kinds = hwloc["cpukinds"];
  std::vector<std::pair<int, std::uint32_t>> expected_kinds;
  for (std::sregex_iterator it(kinds.begin(), kinds.end(), kind), end; it != end; ++it)
    expected_kinds.emplace_back(std::stoi((*it)[2].str()), bitmap_weight((*it)[3].str()));
  ASSERT_EQ(h.cpu_kinds.size(), expected_kinds.size());
  for (std::size_t k = 0; k < h.cpu_kinds.size(); ++k) {
    EXPECT_EQ(h.cpu_kinds[k].efficiency.value_or(-1), expected_kinds[k].first) << "kind " << k;
    EXPECT_EQ(h.cpu_kinds[k].cpus.size(), expected_kinds[k].second) << "kind " << k;
  }

  // Every accelerator is a PCI device hwloc lists with the same id, and every device of a
  // class that computes is an accelerator (hwloc-info ... pci:all).
  const std::string& pci = hwloc["pci:all"];
  const std::vector<std::string> bus_ids = attributes(pci, "attr PCI bus id");
  const std::vector<std::string> ids = attributes(pci, "attr PCI id");
  const std::vector<std::string> classes = attributes(pci, "attr PCI class");
  ASSERT_EQ(bus_ids.size(), ids.size());
  ASSERT_EQ(bus_ids.size(), classes.size());
  std::map<std::string, std::string> id_of;
  for (std::size_t i = 0; i < bus_ids.size(); ++i) id_of[bus_ids[i]] = ids[i];
  std::set<std::string> accelerators;
  for (const Accelerator& a : h.accelerators) {
    if (a.pci_bus_id.empty()) continue;
    accelerators.insert(a.pci_bus_id);
    ASSERT_TRUE(id_of.contains(a.pci_bus_id)) << a.pci_bus_id;
    EXPECT_EQ(a.pci_id, id_of[a.pci_bus_id]);
  }
  for (std::size_t i = 0; i < bus_ids.size(); ++i) {
    if (classes[i] == "0302" || classes[i] == "0380" || classes[i] == "0b40" ||
        classes[i].starts_with("12")) {
      EXPECT_TRUE(accelerators.contains(bus_ids[i])) << bus_ids[i] << " class " << classes[i];
    }
  }
}

// The record's hardware, fingerprint and summary against tests/fixtures/topologies/
// expected/<name>.json, reviewed against lstopo's view of the same file when written;
// HETSCALE_UPDATE_GOLDEN=1 rewrites it (then review the diff).
TEST_P(TopologyFixture, MatchesItsReviewedGoldenRecord) {
  const std::string name = GetParam();
  const HardwareParts h = probe(name);
  nlohmann::json actual = hardware_to_json(h);
  actual["fingerprint"] = hardware_fingerprint(h);
  actual["summary"] = hardware_summary(h);
  const fs::path golden = dir / "expected" / (name + ".json");
  if (const char* update = std::getenv("HETSCALE_UPDATE_GOLDEN");
      update != nullptr && std::string(update) == "1") {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden) << actual.dump(2) << "\n";
  }
  std::ifstream in(golden);
  ASSERT_TRUE(in) << "missing golden file " << golden;
  EXPECT_EQ(actual, nlohmann::json::parse(in)) << "actual:\n" << actual.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Recorded, TopologyFixture, ::testing::ValuesIn(fixture_names()),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(TopologyFixtures, AHybridIntelHasTwoKindsOfCores) {
  const HardwareParts h = probe("intel-i7-1370p-hybrid");
  EXPECT_EQ(h.cpu_model, "13th Gen Intel(R) Core(TM) i7-1370P");
  EXPECT_EQ(h.cores, 14u);
  EXPECT_EQ(h.pus, 20u);
  ASSERT_EQ(h.cpu_kinds.size(), 2u);
  // Kind 0 the efficient cores (8 cores, one thread each), kind 1 the performance cores.
  EXPECT_EQ(h.cpu_kinds[0].cores, 8u);
  EXPECT_EQ(h.cpu_kinds[0].cpus.size(), 8u);
  EXPECT_EQ(h.cpu_kinds[0].frequency_max_mhz, 3900);
  EXPECT_EQ(h.cpu_kinds[1].cores, 6u);
  EXPECT_EQ(h.cpu_kinds[1].cpus.size(), 12u);
  EXPECT_EQ(h.cpu_kinds[1].frequency_base_mhz, 1900);
  EXPECT_EQ(h.clock_mhz, 1900);
  EXPECT_EQ(h.architecture, "x86_64");
}

TEST(TopologyFixtures, ArmAndPowerHaveAVendorAndAModel) {
  HardwareParts h = probe("arm-cortex-a9");
  EXPECT_EQ(h.cpu_vendor, "ARM");  // CPUImplementer 0x41
  EXPECT_EQ(h.cpu_model, "ARMv7 Processor rev 1 (v7l)");
  h = probe("power7-lpar");
  EXPECT_EQ(h.cpu_vendor, "IBM");
  EXPECT_EQ(h.cpu_model, "POWER7 (architected), altivec supported");
  EXPECT_EQ(h.architecture, "ppc");
  h = probe("s390x");
  EXPECT_EQ(h.cpu_vendor, "IBM");
  // hwloc 2.9 reads no /proc/cpuinfo on aarch64: what it does not know stays unknown.
  h = probe("arm-kunpeng920");
  EXPECT_EQ(h.architecture, "aarch64");
  EXPECT_EQ(h.cpu_vendor, "");
  EXPECT_EQ(h.packages, 2u);
  EXPECT_EQ(h.cores, 128u);
  h = probe("arm-gb10");
  EXPECT_EQ(h.cpu_kinds.size(), 5u);
}

TEST(TopologyFixtures, GpusAreOneObjectPerDeviceWithTheirMemoryAndLocality) {
  HardwareParts h = probe("dgx2-16gpu");
  ASSERT_EQ(h.accelerators.size(), 16u);
  const Accelerator& first = h.accelerators.front();
  EXPECT_EQ(first.kind, "gpu");
  EXPECT_EQ(first.vendor, "NVIDIA");
  EXPECT_EQ(first.model, "Tesla V100-SXM3-32GB-H");
  EXPECT_EQ(first.pci_id, "10de:1db8");
  EXPECT_EQ(first.pci_bus_id, "0000:34:00.0");
  EXPECT_THAT(first.numa, ElementsAre(0));
  EXPECT_FALSE(first.memory_bytes);  // NVML alone does not report it
  h = probe("power8-4gpu");
  ASSERT_EQ(h.accelerators.size(), 4u);
  // CUDA and OpenCL report 16671616 KiB.
  EXPECT_EQ(h.accelerators[0].memory_bytes, 16671616ULL * 1024);
  EXPECT_EQ(h.accelerators[0].model, "Tesla P100-SXM2-16GB");
  EXPECT_EQ(hardware_summary(h),
            "2x4c POWER8NVL, altivec supported, 4x Tesla P100-SXM2-16GB 16 GB, 128 GB DRAM");
}

TEST(TopologyFixtures, VectorEnginesAreCoprocessors) {
  const HardwareParts h = probe("nec-8ve");
  ASSERT_EQ(h.accelerators.size(), 8u);
  EXPECT_EQ(h.accelerators[0].kind, "coprocessor");
  EXPECT_EQ(h.accelerators[0].vendor, "NEC");
  EXPECT_EQ(h.accelerators[0].pci_id, "1bcf:001c");
  EXPECT_EQ(h.accelerators[0].memory_bytes, 48ULL << 30);
}

TEST(TopologyFixtures, MemoryTiersAndMemorySideCaches) {
  // KNL in SNC4 hybrid mode: DRAM and MCDRAM NUMA nodes, half of MCDRAM a memory-side cache.
  HardwareParts h = probe("knl-snc4-hybrid");
  std::map<std::string, unsigned> kinds;
  for (const MemoryTier& t : h.memory) ++kinds[t.kind];
  EXPECT_EQ(kinds, (std::map<std::string, unsigned>{{"DRAM", 4}, {"HBM", 4}}));
  EXPECT_EQ(h.caches.back(), (CacheLevel{3, 2147483648, 4, true}));
  // DRAM, NVM and HBM NUMA nodes (the HBM a DAX device of specific-purpose memory).
  h = probe("memory-tiers-qemu");
  kinds.clear();
  for (const MemoryTier& t : h.memory) ++kinds[t.kind];
  EXPECT_EQ(kinds, (std::map<std::string, unsigned>{{"DRAM", 2}, {"HBM", 2}, {"NVM", 3}}));
  EXPECT_NE(hardware_fingerprint(h).size(), 0u);
  EXPECT_THAT(fingerprint_text(h), HasSubstr("tier=HBM:1x2;tier=NVM:1x3;"));
  // Optane in memory mode: its DRAM is a memory-side cache in front of each NUMA node.
  h = probe("optane-memory-mode");
  EXPECT_EQ(h.caches.back(), (CacheLevel{1, 100663296ULL * 1024, 4, true}));
  EXPECT_THAT(hardware_summary(h), HasSubstr("384 GB memory-side cache"));
}

TEST(TopologyFixtures, DisallowedAndOfflineProcessorsAreCountedOutOfTheirTotals) {
  // A Linux cgroup cpuset allowed 10 of the 15 online processing units (one of 16 is
  // offline) and 4 of the 8 NUMA nodes.
  HardwareParts h = probe("disallowed-cgroup");
  EXPECT_EQ(h.pus, 15u);
  EXPECT_EQ(h.allowed_pus, (PartOf{10, 15}));
  EXPECT_EQ(h.offline_pus, (PartOf{1, 16}));
  EXPECT_EQ(h.allowed_numa_nodes, (PartOf{4, 8}));
  h = probe("offline-pus");
  EXPECT_EQ(h.pus, 7u);
  EXPECT_EQ(h.offline_pus, (PartOf{9, 16}));
  // CPUs 0-4 and 21-23 and NUMA node 0 offline: hwloc counts the CPUs, but has no trace of
  // the offline NUMA node in its complete set.
  h = probe("offline-cpu0-node0");
  EXPECT_EQ(h.offline_pus, (PartOf{7, 24}));
  EXPECT_EQ(h.offline_numa_nodes, (PartOf{0, 1}));
}

TEST(TopologyFixtures, AnOldV1FileLoads) {
  const HardwareParts h = probe("xeon-cod-v1");
  EXPECT_EQ(h.packages, 2u);
  EXPECT_EQ(h.numa_nodes, 4u);
  EXPECT_EQ(h.cpu_vendor, "GenuineIntel");
}

// The same machine as a host with fewer hwloc plugins sees it: read with no OS devices
// (no CUDA, OpenCL or NVML devices; hwloc's OS-device type filter), the PCI devices alone
// give the same accelerators and fingerprint.
TEST(TopologyFixtures, TheFingerprintDoesNotDependOnTheHwlocPlugins) {
  const std::string file = (dir / "power8-4gpu.xml").string();
  const HardwareParts all = describe_hardware(HwlocTopology::from_xml(file));
  const HardwareParts pci_only =
      describe_hardware(HwlocTopology::from_xml(file, {HWLOC_TYPE_FILTER_KEEP_NONE}));
  ASSERT_EQ(pci_only.accelerators.size(), 4u);
  EXPECT_EQ(pci_only.accelerators[0].model, "");  // only the plugins name it here
  EXPECT_FALSE(pci_only.accelerators[0].memory_bytes);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(pci_only.accelerators[i].kind, all.accelerators[i].kind);
    EXPECT_EQ(pci_only.accelerators[i].vendor, all.accelerators[i].vendor);
    EXPECT_EQ(pci_only.accelerators[i].pci_id, all.accelerators[i].pci_id);
    EXPECT_EQ(pci_only.accelerators[i].pci_bus_id, all.accelerators[i].pci_bus_id);
    EXPECT_EQ(pci_only.accelerators[i].numa, all.accelerators[i].numa);
  }
  EXPECT_EQ(hardware_fingerprint(pci_only), hardware_fingerprint(all));
}

TEST(TopologyFixtures, DifferentGpusKindsOrTiersGiveDifferentFingerprints) {
  const HardwareParts base = probe("power8-4gpu");
  HardwareParts other = base;
  other.accelerators[3].pci_id = "10de:15f8";  // a P100 PCIe 16GB in one slot
  EXPECT_NE(hardware_fingerprint(other), hardware_fingerprint(base));
  other = probe("knl-snc4-hybrid");
  const std::string knl = hardware_fingerprint(other);
  ASSERT_EQ(other.memory[4].kind, "HBM");
  other.memory[4].kind = "DRAM";
  EXPECT_NE(hardware_fingerprint(other), knl);
  other = probe("intel-i7-1370p-hybrid");
  const std::string hybrid = hardware_fingerprint(other);
  other.cpu_kinds[1].cores = 4;
  EXPECT_NE(hardware_fingerprint(other), hybrid);
}

std::string error_of(const std::string& file) {
  try {
    probe_node({TopologySource::Kind::xml, file});
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// hwloc's own explanation reaches the reason, not "Invalid argument".
TEST(TopologyFixtures, AFileHwlocCannotReadSaysWhyInHwlocsWords) {
  const std::string newer = (dir / "unreadable" / "cxl-dax-v3-format.xml").string();
  EXPECT_EQ(error_of(newer), "hwloc: cannot read topology file '" + newer +
                                 "': cxl-dax-v3-format.xml: cannot import XML version 3.0 > 2");
  const std::string truncated = (dir / "unreadable" / "truncated.xml").string();
  const std::string reason = error_of(truncated);
  EXPECT_THAT(reason, HasSubstr("hwloc: cannot read topology file '" + truncated + "': "));
  // libxml2's words, or those of hwloc's own parser where its libxml2 plugin is not loaded
  // (the sanitizer runs load no hwloc plugin).
  EXPECT_THAT(reason,
              ::testing::AnyOf(HasSubstr("parser error"), HasSubstr("minimalistic parser")));
  EXPECT_THAT(reason, ::testing::Not(HasSubstr("Invalid argument")));
}

// A malformed file on which hwloc's own reader crashes (the hwloc of Debian 12 dereferences
// the missing complete_nodeset; found by fuzz/topology_fuzz.cpp): an Error naming the file,
// and this process goes on. A hwloc that refuses the file instead gives its reason.
TEST(TopologyFixtures, AFileOnWhichHwlocCrashesIsAnErrorNotACrash) {
  const std::string file = (dir / "unreadable" / "machine-without-complete-nodeset.xml").string();
  const std::string reason = error_of(file);
  EXPECT_THAT(reason, HasSubstr("hwloc: cannot read topology file '" + file + "': "));
  if (HWLOC_API_VERSION < 0x00020a00) {
    EXPECT_THAT(reason, ::testing::AnyOf(HasSubstr("stopped on it with signal 11"),
                                         HasSubstr("ended with no answer")));
  }
  // The next file reads as ever.
  EXPECT_EQ(probe("intel-i7-1370p-hybrid").cores, 14u);
}

}  // namespace
}  // namespace hetscale
