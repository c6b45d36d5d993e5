#include "hetscale/classifier/classify.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
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
    return BenchmarkOutcome{1234.5, "Mflops", 7, 0.012, 1.4, "markspeed 0.1.0"};
  });
  EXPECT_EQ(seen.name, "dgemm");
  EXPECT_THAT(seen.cpus, ElementsAre(2, 3));
  EXPECT_DOUBLE_EQ(seen.seconds, 1.5);
  EXPECT_EQ(r.state, NodeState::ok);
  EXPECT_EQ(r.host, "gpu01");
  EXPECT_EQ(r.fingerprint,
            "97e5b14b61ace0a1");  // tests/fixtures/classifier/dual-xeon-2gpu.expected.json
  EXPECT_EQ(r.processors, 2u);
  EXPECT_THAT(r.cpus, ElementsAre(2, 3));
  EXPECT_DOUBLE_EQ(r.marked_speed, 1234.5);
  EXPECT_EQ(r.speed_unit, "Mflops");
  EXPECT_EQ(r.repetitions, 7);
  EXPECT_EQ(r.software["markspeed"], "markspeed 0.1.0");
  EXPECT_EQ(r.software["hwloc"], "2.9.0");
  EXPECT_EQ(r.topology_source, "xml:" + dir + "dual-xeon-2gpu.xml");
  // What classify prints is what groups reads.
  EXPECT_EQ(to_json(node_record_from_json(to_json(r))), to_json(r));
}

TEST(Classify, SlurmsCpuCountCapsTheCpusWhenNothingIsBound) {
  ClassifyOptions o = dual_xeon();
  o.cpus = {4, 5, 6, 7};
  o.max_cpus = 2;
  BenchmarkRequest seen;
  const NodeRecord r = classify_node(o, [&](const BenchmarkRequest& request) {
    seen = request;
    return BenchmarkOutcome{100, "Mflops", 5, 0, 1, ""};
  });
  EXPECT_THAT(seen.cpus, ElementsAre(4, 5));
  EXPECT_EQ(r.processors, 2u);
}

TEST(Classify, AFailingBenchmarkGivesAnExcludedRecord) {
  const NodeRecord r = classify_node(dual_xeon(), [](const BenchmarkRequest&) -> BenchmarkOutcome {
    throw std::runtime_error("cannot bind to CPU 3: Invalid argument");
  });
  EXPECT_EQ(r.state, NodeState::excluded);
  EXPECT_EQ(r.reason, "benchmark dgemm failed: cannot bind to CPU 3: Invalid argument");
  EXPECT_EQ(r.fingerprint, "97e5b14b61ace0a1");  // still grouped with its twins
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
      o, [](const BenchmarkRequest&) { return BenchmarkOutcome{1, "Mflops", 1, 0, 1, ""}; });
  EXPECT_EQ(r.host, short_host_name());
  EXPECT_TRUE(std::regex_match(r.time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << r.time;
}

}  // namespace
}  // namespace hetscale
