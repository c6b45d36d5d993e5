#include "hetscale/classifier/classify.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace hetscale {
namespace {

using ::testing::ElementsAre;

const std::string dir = std::string(HETSCALE_FIXTURES_DIR) + "/classifier/";

ClassifyOptions dual_xeon() {
  ClassifyOptions o;
  o.topology = {TopologySource::Kind::xml, dir + "dual-xeon-2gpu.xml"};
  o.host = "gpu01";
  o.time = "2026-11-21T06:00:00Z";
  o.seconds = 1.5;
  o.cpus = {2, 3};  // the XML only describes: tests never benchmark on the live host
  return o;
}

TEST(Classify, RecordCarriesProbeAndBenchmark) {
  BenchmarkRequest seen;
  const NodeRecord r = classify_node(dual_xeon(), [&](const BenchmarkRequest& request) {
    seen = request;
    return BenchmarkOutcome{1234.5, "Mflops", 7, 0.012, 1.4, 2048, "markspeed 0.1.0"};
  });
  EXPECT_EQ(seen.name, "dgemm");
  EXPECT_THAT(seen.cpus, ElementsAre(2, 3));
  EXPECT_DOUBLE_EQ(seen.seconds, 1.5);
  EXPECT_EQ(r.state, NodeState::ok);
  EXPECT_EQ(r.host, "gpu01");
  EXPECT_EQ(r.fingerprint,
            "c5f4a394b35d777b");  // tests/fixtures/classifier/dual-xeon-2gpu.expected.json
  EXPECT_EQ(r.processors, 2u);
  EXPECT_THAT(r.cpus, ElementsAre(2, 3));
  EXPECT_DOUBLE_EQ(r.marked_speed, 1234.5);
  EXPECT_EQ(r.speed_unit, "Mflops");
  EXPECT_EQ(r.repetitions, 7);
  EXPECT_EQ(r.benchmark_size, 2048u);
  EXPECT_EQ(r.software["markspeed"], "markspeed 0.1.0");
  EXPECT_EQ(r.software["hwloc"], "2.9.0");
  EXPECT_EQ(r.topology_source, "xml:" + dir + "dual-xeon-2gpu.xml");
  // What classify prints is what groups reads.
  EXPECT_EQ(to_json(node_record_from_json(to_json(r))), to_json(r));
}

TEST(ChooseCpus, NotUnderSlurmOneWorkerIsPinnedToEachAllowedCpu) {
  const CpuChoice c = choose_cpus({0, 1, 2, 3}, 0);
  EXPECT_THAT(c.cpus, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(c.workers, 4u);
  EXPECT_TRUE(c.pinned);
  EXPECT_EQ(c.reason, "not under Slurm: one worker pinned to each of the 4 allowed CPUs");
}

TEST(ChooseCpus, CpusSlurmBoundAreEachPinned) {
  // task/affinity or task/cgroup: the process may use exactly the job's CPUs here...
  const CpuChoice c = choose_cpus({4, 5}, 2);
  EXPECT_THAT(c.cpus, ElementsAre(4, 5));
  EXPECT_EQ(c.workers, 2u);
  EXPECT_TRUE(c.pinned);
  EXPECT_EQ(c.reason, "Slurm bound the step to 2 CPU(s): one worker pinned to each");
  // ...or fewer, when the step was bound to part of the job's CPUs.
  const CpuChoice part = choose_cpus({7}, 4);
  EXPECT_THAT(part.cpus, ElementsAre(7));
  EXPECT_EQ(part.workers, 1u);
  EXPECT_TRUE(part.pinned);
}

TEST(ChooseCpus, WhenSlurmBoundNothingTheJobsCountRunsUnpinned) {
  // task/none: the whole node is allowed; pinning to its first CPUs would put two steps
  // (or two jobs) sharing the node on the same CPUs.
  const CpuChoice c = choose_cpus({0, 1, 2, 3}, 1);
  EXPECT_THAT(c.cpus, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(c.workers, 1u);
  EXPECT_FALSE(c.pinned);
  EXPECT_EQ(c.reason,
            "Slurm bound no CPUs (the job has 1 here, SLURM_CPUS_ON_NODE, and the process may use "
            "4): 1 unpinned worker(s)");
}

TEST(Classify, UnboundSlurmCpusRunUnpinnedAndTheRecordSaysSo) {
  ClassifyOptions o = dual_xeon();
  o.cpus = {4, 5, 6, 7};
  o.slurm_cpus = 2;
  BenchmarkRequest seen;
  const NodeRecord r = classify_node(o, [&](const BenchmarkRequest& request) {
    seen = request;
    return BenchmarkOutcome{100, "Mflops", 5, 0, 1, 1024, ""};
  });
  EXPECT_THAT(seen.cpus, ElementsAre(4, 5, 6, 7));
  EXPECT_EQ(seen.unpinned_workers, 2u);
  EXPECT_EQ(r.processors, 2u);
  EXPECT_THAT(r.cpus, ElementsAre(4, 5, 6, 7));
  EXPECT_EQ(r.binding, "unpinned");
  EXPECT_THAT(r.binding_reason, ::testing::HasSubstr("Slurm bound no CPUs"));
  const nlohmann::json json = to_json(r);
  EXPECT_EQ(json.at("binding"), "unpinned");
  EXPECT_EQ(node_record_from_json(json).binding, "unpinned");
}

TEST(Classify, BoundSlurmCpusArePinned) {
  ClassifyOptions o = dual_xeon();
  o.slurm_cpus = 2;  // o.cpus = {2, 3}
  BenchmarkRequest seen;
  const NodeRecord r = classify_node(o, [&](const BenchmarkRequest& request) {
    seen = request;
    return BenchmarkOutcome{100, "Mflops", 5, 0, 1, 1024, ""};
  });
  EXPECT_EQ(seen.unpinned_workers, 0u);
  EXPECT_EQ(r.binding, "pinned");
  EXPECT_EQ(r.processors, 2u);
}

TEST(Classify, AFailingBenchmarkGivesAnExcludedRecord) {
  const NodeRecord r = classify_node(dual_xeon(), [](const BenchmarkRequest&) -> BenchmarkOutcome {
    throw std::runtime_error("cannot bind to CPU 3: Invalid argument");
  });
  EXPECT_EQ(r.state, NodeState::excluded);
  EXPECT_EQ(r.reason, "benchmark dgemm failed: cannot bind to CPU 3: Invalid argument");
  EXPECT_EQ(r.fingerprint, "c5f4a394b35d777b");  // still grouped with its twins
  EXPECT_NO_THROW(node_record_from_json(to_json(r)));
}

TEST(Classify, ABenchmarkWithoutSpeedIsExcluded) {
  const NodeRecord r =
      classify_node(dual_xeon(), [](const BenchmarkRequest&) { return BenchmarkOutcome{}; });
  EXPECT_EQ(r.state, NodeState::excluded);
  EXPECT_EQ(r.reason, "benchmark dgemm measured no speed");
}

TEST(Classify, AnUnreadableTopologyGivesAnExcludedRecord) {
  ClassifyOptions o = dual_xeon();
  o.topology = {TopologySource::Kind::synthetic, "pack:0x"};
  bool ran = false;
  const NodeRecord r = classify_node(o, [&](const BenchmarkRequest&) {
    ran = true;
    return BenchmarkOutcome{};
  });
  EXPECT_FALSE(ran);
  EXPECT_EQ(r.state, NodeState::excluded);
  EXPECT_EQ(r.reason, "hwloc: invalid synthetic topology \"pack:0x\"");
  EXPECT_EQ(r.fingerprint, "");
  EXPECT_NO_THROW(node_record_from_json(to_json(r)));
}

TEST(Classify, DefaultsAreThisHostAndNow) {
  ClassifyOptions o = dual_xeon();
  o.host.clear();
  o.time.clear();
  const NodeRecord r = classify_node(
      o, [](const BenchmarkRequest&) { return BenchmarkOutcome{1, "Mflops", 1, 0, 1, 1024, ""}; });
  EXPECT_EQ(r.host, short_host_name());
  EXPECT_NO_THROW(node_record_from_json(to_json(r))) << r.time;  // a valid UTC time
}

}  // namespace
}  // namespace hetscale
