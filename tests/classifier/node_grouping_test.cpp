#include "hetscale/classifier/node_grouping.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "hetscale/classifier/probe.hpp"

namespace hetscale {
namespace {

using ::testing::ElementsAre;

const std::string dir = std::string(HETSCALE_FIXTURES_DIR) + "/node-records/";

LocatedNodeRecord record(const std::string& host, double speed,
                         const std::string& fingerprint = "aaaa000000000001",
                         const std::string& model = "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz",
                         double cv = 0.01) {
  NodeRecord r;
  r.host = host;
  r.time = "2026-11-21T06:00:00Z";
  r.fingerprint = fingerprint;
  r.hardware.cpu_model = model;
  r.benchmark = "dgemm";
  r.benchmark_size = 1024;
  r.speed_unit = "Mflops";
  r.marked_speed = speed;
  r.processors = 2;
  r.repetitions = 5;
  r.cv = cv;
  return {r, {"test", 1, 0}};
}

LocatedNodeRecord excluded(const std::string& host, const std::string& fingerprint,
                           const std::string& reason) {
  LocatedNodeRecord l = record(host, 0, fingerprint);
  l.record.state = NodeState::excluded;
  l.record.reason = reason;
  l.record.processors = 0;
  l.record.cpus = {0, 1, 2, 3};
  return l;
}

// "name:state:speed" per node of the site table, in table order.
std::vector<std::string> nodes_of(const GroupingResult& result) {
  std::vector<std::string> out;
  for (const Node& n : result.table.nodes)
    out.push_back(n.name + ":" + n.group + ":" + std::string(to_string(n.state)) + ":" +
                  std::to_string(static_cast<int>(n.marked_speed)));
  return out;
}

std::vector<std::string> groups_of(const GroupingResult& result) {
  std::vector<std::string> out;
  for (const Group& g : result.table.groups)
    out.push_back(g.name + "=" + std::to_string(static_cast<int>(g.marked_speed)));
  return out;
}

TEST(GroupBaseName, StripsTrademarksAndClock) {
  EXPECT_EQ(group_base_name("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"), "intel-xeon-gold-6248");
  EXPECT_EQ(group_base_name("AMD EPYC 7763 64-Core Processor"), "amd-epyc-7763-64-core");
  EXPECT_EQ(group_base_name(""), "node");
}

TEST(Grouping, NoiseDoesNotSplitAGroupAndTheMedianRepresentsIt) {
  const GroupingResult r = group_nodes(
      {record("n3", 1030), record("n1", 1000), record("n2", 985), record("n10", 1012)}, {});
  EXPECT_THAT(groups_of(r), ElementsAre("intel-xeon-gold-6248=1006"));
  EXPECT_THAT(nodes_of(r),
              ElementsAre("n1:intel-xeon-gold-6248:ok:1006", "n2:intel-xeon-gold-6248:ok:1006",
                          "n3:intel-xeon-gold-6248:ok:1006", "n10:intel-xeon-gold-6248:ok:1006"));
  EXPECT_EQ(r.table.benchmark, "dgemm");
  EXPECT_EQ(r.table.speed_unit, "Mflops");
  EXPECT_TRUE(r.notices.empty());
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Grouping, TwoClearSpeedsOfOneHardwareSplit) {
  // The testbed: n1-n3 at full speed, n4-n5 capped at half by a CPU quota.
  const GroupingResult r = group_nodes({record("n1", 1000), record("n2", 1010), record("n3", 995),
                                        record("n4", 500), record("n5", 503)},
                                       {});
  EXPECT_THAT(groups_of(r),
              ElementsAre("intel-xeon-gold-6248-1=1000", "intel-xeon-gold-6248-2=501"));
  EXPECT_THAT(nodes_of(r),
              ElementsAre("n1:intel-xeon-gold-6248-1:ok:1000", "n2:intel-xeon-gold-6248-1:ok:1000",
                          "n3:intel-xeon-gold-6248-1:ok:1000", "n4:intel-xeon-gold-6248-2:ok:501",
                          "n5:intel-xeon-gold-6248-2:ok:501"));
}

TEST(Grouping, ASingleClearlySlowerNodeIsAGroupOfItsOwn) {
  const GroupingResult r =
      group_nodes({record("n1", 1000), record("n2", 1000), record("n3", 500)}, {});
  EXPECT_THAT(groups_of(r),
              ElementsAre("intel-xeon-gold-6248-1=1000", "intel-xeon-gold-6248-2=500"));
}

TEST(Grouping, ASlightlySlowerTwinIsDegradedNotAGroup) {
  const GroupingResult r = group_nodes(
      {record("n1", 1000), record("n2", 1010), record("n3", 990), record("n4", 850)}, {});
  EXPECT_THAT(groups_of(r), ElementsAre("intel-xeon-gold-6248=995"));
  EXPECT_THAT(
      nodes_of(r),
      ElementsAre("n1:intel-xeon-gold-6248:ok:995", "n2:intel-xeon-gold-6248:ok:995",
                  "n3:intel-xeon-gold-6248:ok:995", "n4:intel-xeon-gold-6248:degraded:850"));
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_EQ(r.notices[0].host, "n4");
  EXPECT_EQ(r.notices[0].reason, "14.6% below the group median 995");
  EXPECT_EQ(r.groups[0].ok, 3u);
  EXPECT_EQ(r.groups[0].degraded, 1u);
}

TEST(Grouping, DegradedThresholdIsConfigurable) {
  GroupingOptions options;
  options.degraded_threshold = 0.20;
  const GroupingResult r = group_nodes(
      {record("n1", 1000), record("n2", 1010), record("n3", 990), record("n4", 850)}, options);
  EXPECT_TRUE(r.notices.empty());
  EXPECT_EQ(r.table.nodes.back().state, NodeState::ok);
}

TEST(Grouping, AFewSlowNodesAmongManyTwinsAreDegradedButAClassOfTheirOwnIsAGroup) {
  // 40 twins near 1000 and 2 at 800: a class of 2 is under 5% of 42 (3 nodes), so the
  // two are outliers, merged into their twins' group and degraded.
  std::vector<LocatedNodeRecord> records;
  for (int i = 1; i <= 40; ++i) records.push_back(record("n" + std::to_string(i), 1000 + i % 3));
  for (int i = 41; i <= 42; ++i) records.push_back(record("n" + std::to_string(i), 800));
  GroupingResult r = group_nodes(records, {});
  EXPECT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].degraded, 2u);
  // Ten slow nodes (20% of 50) are a class of their own: another group, none degraded.
  for (int i = 43; i <= 50; ++i) records.push_back(record("n" + std::to_string(i), 800));
  r = group_nodes(records, {});
  EXPECT_THAT(groups_of(r),
              ElementsAre("intel-xeon-gold-6248-1=1001", "intel-xeon-gold-6248-2=800"));
  EXPECT_TRUE(r.notices.empty());
}

TEST(Grouping, NoisyRecordsNeedALargerGapToSplit) {
  // 12% apart: split when both runs were steady, one group when each run varied by 5%.
  const std::vector<LocatedNodeRecord> steady = {record("a1", 1000), record("a2", 1000),
                                                 record("b1", 1120), record("b2", 1120)};
  EXPECT_EQ(group_nodes(steady, {}).groups.size(), 2u);
  std::vector<LocatedNodeRecord> noisy = steady;
  for (auto& l : noisy) l.record.cv = 0.05;
  EXPECT_EQ(group_nodes(noisy, {}).groups.size(), 1u);
}

TEST(Grouping, ANoisyRecordDoesNotHideAGapAsLargeAsAGroupsClearGap) {
  // The testbed under load: three full-speed nodes, one of them disturbed in one of its
  // five repetitions (CV 25%), beside two half-speed nodes measured at 64% and 58% of it.
  std::vector<LocatedNodeRecord> records = {record("n1", 16829), record("n2", 16775),
                                            record("n3", 15027), record("n4", 9566),
                                            record("n5", 8680)};
  records[2].record.cv = 0.249;
  const GroupingResult r = group_nodes(records, {});
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].ok + r.groups[0].degraded, 3u);
  EXPECT_EQ(r.groups[1].ok + r.groups[1].degraded, 2u);
  // Below the clear gap, the same record's noise still keeps neighbours together.
  records[3].record.marked_speed = 12500;  // 16.8% below n3
  records[4].record.marked_speed = 12400;
  EXPECT_EQ(group_nodes(records, {}).groups.size(), 1u);
}

TEST(Grouping, DifferentFingerprintsNeverShareAGroup) {
  const GroupingResult r =
      group_nodes({record("a1", 1000, "aaaa000000000001"), record("b1", 1000, "bbbb000000000002"),
                   record("c1", 1000, "cccc000000000003", "AMD EPYC 7763 64-Core Processor")},
                  {});
  EXPECT_THAT(groups_of(r),
              ElementsAre("amd-epyc-7763-64-core=1000", "intel-xeon-gold-6248-aaaa00=1000",
                          "intel-xeon-gold-6248-bbbb00=1000"));
  EXPECT_THAT(nodes_of(r), ElementsAre("c1:amd-epyc-7763-64-core:ok:1000",
                                       "a1:intel-xeon-gold-6248-aaaa00:ok:1000",
                                       "b1:intel-xeon-gold-6248-bbbb00:ok:1000"));
}

TEST(Grouping, ExcludedNodesKeepTheirReasonInTheirTwinsGroup) {
  const GroupingResult r = group_nodes(
      {record("n1", 1000), excluded("n2", "aaaa000000000001", "benchmark failed: out of memory"),
       excluded("x1", "ffff000000000009", "hwloc: cannot load topology")},
      {});
  EXPECT_THAT(nodes_of(r), ElementsAre("n1:intel-xeon-gold-6248:ok:1000",
                                       "n2:intel-xeon-gold-6248:excluded:1000"));
  EXPECT_EQ(r.table.nodes[1].processors, 4u);  // from its CPU list
  ASSERT_EQ(r.notices.size(), 2u);
  EXPECT_EQ(r.notices[0].reason, "benchmark failed: out of memory");
  EXPECT_THAT(r.warnings,
              ElementsAre("x1 is excluded (hwloc: cannot load topology) and no node of the same "
                          "hardware has a speed: left out of the site table"));
}

TEST(Grouping, ARecordOfAnotherBenchmarkIsExcluded) {
  std::vector<LocatedNodeRecord> records = {record("n1", 1000), record("n2", 1000),
                                            record("n3", 9000)};
  records[2].record.benchmark = "stream";
  records[2].record.speed_unit = "MB/s";
  records[2].record.benchmark_size = 4194304;
  records.push_back(record("n4", 1000));
  records[3].record.benchmark_size = 2048;  // dgemm too, but another size: not comparable
  const GroupingResult r = group_nodes(records, {});
  ASSERT_EQ(r.notices.size(), 2u);
  EXPECT_EQ(r.notices[0].reason,
            "measured with stream (size 4194304) in MB/s, not the site's dgemm (size 1024) in "
            "Mflops");
  EXPECT_EQ(r.notices[1].reason,
            "measured with dgemm (size 2048) in Mflops, not the site's dgemm (size 1024) in "
            "Mflops");
  EXPECT_EQ(r.table.nodes[2].state, NodeState::excluded);
  EXPECT_EQ(r.table.nodes[3].state, NodeState::excluded);
}

TEST(Grouping, NewestRecordPerHostWinsAndDuplicatesAreReported) {
  NodeRecordBatch batch;
  for (const char* name : {"good.jsonl", "duplicates.jsonl"}) {
    std::ifstream in(dir + name);
    read_node_records(in, name, batch);
  }
  ASSERT_TRUE(batch.errors.empty());
  const GroupingResult r = group_nodes(batch.records, {});
  EXPECT_THAT(
      r.warnings,
      ElementsAre(
          "duplicate host n1: kept the record of 2026-11-21T06:00:00Z (good.jsonl:1), ignored the "
          "one of 2026-11-20T06:00:00Z (duplicates.jsonl:1)",
          "duplicate host n2: kept the record of 2026-11-22T06:00:00.5Z (duplicates.jsonl:2), "
          "ignored the one of 2026-11-21T06:00:00Z (good.jsonl:2)"));
  EXPECT_THAT(nodes_of(r),
              ElementsAre("n1:amd-epyc:ok:1000", "n2:amd-epyc:ok:1000", "n3:amd-epyc:ok:1000"));
  EXPECT_DOUBLE_EQ(r.table.groups[0].marked_speed, 1000);  // median of 1000, 1005, 995
}

TEST(Grouping, BadRecordsDoNotStopTheOthers) {
  NodeRecordBatch batch;
  for (const char* name : {"corrupt.jsonl", "other-schema.jsonl", "good.jsonl"}) {
    std::ifstream in(dir + name);
    read_node_records(in, name, batch);
  }
  EXPECT_EQ(batch.errors.size(), 3u);
  const GroupingResult r = group_nodes(batch.records, {});
  EXPECT_EQ(r.table.nodes.size(), 5u);  // n6, n10, n1-n3
}

TEST(Grouping, NothingMeasuredIsAnError) {
  EXPECT_THROW(
      {
        try {
          group_nodes({excluded("n1", "aaaa000000000001", "no")}, {});
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "no node record has a measured speed: nothing to group");
          throw;
        }
      },
      Error);
}

TEST(Grouping, WritesTheSiteTableWithCompressedHostLists) {
  std::vector<LocatedNodeRecord> records;
  for (int i = 1; i <= 12; ++i) records.push_back(record("n" + std::to_string(i), 1000 + (i % 4)));
  records.push_back(record("n13", 850));
  for (int i = 14; i <= 20; ++i) records.push_back(record("n" + std::to_string(i), 500 + (i % 2)));
  records.push_back(excluded("n21", "aaaa000000000001", "benchmark dgemm failed: out of memory"));
  GroupingOptions options;
  options.site_name = "testbed";
  const GroupingResult r = group_nodes(records, options);
  const std::string text = format_site_table(r.table);
  std::ifstream golden(dir + "grouped.expected.toml");
  std::stringstream expected;
  expected << golden.rdbuf();
  EXPECT_EQ(text, expected.str());
  // What groups writes, everything else reads.
  const SiteTable back = parse_site_table(text, "grouped.toml");
  EXPECT_EQ(back.nodes.size(), 21u);
  EXPECT_EQ(back.find_node("n13")->state, NodeState::degraded);
  EXPECT_DOUBLE_EQ(back.find_node("n13")->marked_speed, 850);
  EXPECT_EQ(back.find_node("n21")->state, NodeState::excluded);
  EXPECT_EQ(back.find_node("n21")->group, "intel-xeon-gold-6248-1");
}

// Records of nodes whose hardware comes from recorded topologies (tests/fixtures/topologies/),
// each with its own fingerprint, all at the same speed.
LocatedNodeRecord probed(const std::string& host, HardwareParts hardware, double speed = 1000) {
  LocatedNodeRecord l = record(host, speed, hardware_fingerprint(hardware), hardware.cpu_model);
  l.record.hardware = std::move(hardware);
  return l;
}

HardwareParts topology(const std::string& name, const HwlocFilters& filters = {}) {
  return describe_hardware(HwlocTopology::from_xml(
      std::string(HETSCALE_FIXTURES_DIR) + "/topologies/" + name + ".xml", filters));
}

TEST(Grouping, NodesThatDifferInAGpuModelOrAMemoryTierNeverShareAGroup) {
  const HardwareParts gpus = topology("power8-4gpu");
  HardwareParts other_gpu = gpus;
  other_gpu.accelerators[0].pci_id = "10de:15f8";  // a P100 PCIe in one slot
  const HardwareParts knl = topology("knl-snc4-hybrid");
  HardwareParts flat = knl;
  ASSERT_EQ(flat.memory[4].kind, "HBM");
  flat.memory[4].kind = "DRAM";  // one MCDRAM node taken for DRAM
  // The same GPU node seen by a host without CUDA, OpenCL or NVML: no OS devices.
  const HardwareParts pci_only = topology("power8-4gpu", {HWLOC_TYPE_FILTER_KEEP_NONE});
  const GroupingResult r =
      group_nodes({probed("g1", gpus), probed("g2", pci_only), probed("g3", other_gpu),
                   probed("k1", knl), probed("k2", flat)},
                  {});
  std::map<std::string, std::string> group_of;
  for (const Node& node : r.table.nodes) group_of[node.name] = node.group;
  EXPECT_EQ(group_of["g1"], group_of["g2"]);
  EXPECT_NE(group_of["g1"], group_of["g3"]);
  EXPECT_NE(group_of["k1"], group_of["k2"]);
  EXPECT_EQ(r.table.groups.size(), 4u);
}

TEST(Grouping, AGroupSaysWhatItsNodesHaveAndEachKindsSpeed) {
  const HardwareParts hybrid = topology("intel-i7-1370p-hybrid");
  std::vector<LocatedNodeRecord> records;
  const double kind_speeds[3][2] = {{900, 2000}, {950, 2100}, {1000, 1900}};
  for (int i = 0; i < 3; ++i) {
    records.push_back(probed("h" + std::to_string(i + 1), hybrid, 1500 + i));
    for (std::size_t k = 0; k < 2; ++k)
      records.back().record.kind_speeds.push_back(
          {k, hybrid.cpu_kinds[k].cpus, 1, kind_speeds[i][k], 5, 0.01, 0.5});
  }
  const GroupingResult r = group_nodes(records, {});
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].hardware, hardware_summary(hybrid));
  const Group& g = r.table.groups[0];
  EXPECT_EQ(g.fingerprint, hardware_fingerprint(hybrid));
  EXPECT_EQ(g.hardware, "1x14c 13th Gen Intel Core i7-1370P (6 + 8 cores of 2 kinds), 32 GB DRAM");
  ASSERT_EQ(g.cpu_kinds.size(), 2u);
  EXPECT_EQ(g.cpu_kinds[0].cpus, hybrid.cpu_kinds[0].cpus);
  EXPECT_DOUBLE_EQ(g.cpu_kinds[0].marked_speed, 950);   // median of 900, 950, 1000
  EXPECT_DOUBLE_EQ(g.cpu_kinds[1].marked_speed, 2000);  // median of 2000, 2100, 1900
  EXPECT_EQ(g.cpu_kinds[1].efficiency, 1);
  // The site table carries them and reads them back.
  const SiteTable back = parse_site_table(format_site_table(r.table), "hybrid.toml");
  EXPECT_EQ(back.groups[0].cpu_kinds, g.cpu_kinds);
  EXPECT_EQ(back.groups[0].hardware, g.hardware);
  EXPECT_EQ(back.groups[0].fingerprint, g.fingerprint);
}

}  // namespace
}  // namespace hetscale
