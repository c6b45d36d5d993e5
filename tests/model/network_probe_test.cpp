#include "hetscale/model/network_probe.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "error_text.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/regular_file.hpp"

namespace hetscale {
namespace {

const nlohmann::json models = {{"units", "seconds; N in bytes, p in processes"},
                               {"send", {{"intercept", 1e-4}, {"slope", 1e-8}, {"r2", 0.99}}},
                               {"bcast", {{"intercept", 2e-4}, {"slope", -3e-5}, {"r2", 0.9}}},
                               {"barrier", {{"intercept", 0}, {"slope", 4e-4}, {"r2", 0.9}}}};

NetworkProbe full_probe() {
  NetworkProbe p;
  p.engine = "slurm";
  p.experiment = "study-mm";
  p.site = "testbed";
  p.machine_set = 1;
  p.slurm_job_id = 42;
  p.measured_at = "2026-12-01T10:00:00Z";
  p.hosts = {"n1", "n1", "n2", "n2"};
  p.wait = "sleep";
  p.load = "spin";
  p.skew_us = 1000;
  p.budget_seconds = 60;
  p.elapsed_seconds = 12.5;
  PointToPointProbe remote;
  remote.first_rank = 0;
  remote.second_rank = 2;
  remote.first_host = "n1";
  remote.second_host = "n2";
  remote.samples = {{1, 2e-5, 20}, {1024, 3e-5, 20}, {1 << 20, 1e-3, 4}};
  remote.fit.segments = {{1, 1024, 2e-5, 1e-8}, {1 << 20, 1 << 20, 5e-5, 9e-10}};
  remote.fit.relative_rms = 0.02;
  remote.fit.bic = -40;
  p.remote = remote;
  PointToPointProbe local = remote;
  local.second_rank = 1;
  local.second_host = "n1";
  p.local = local;
  SaturationProbe s;
  s.message_bytes = 1 << 22;
  s.pairing = "groups";
  s.pairs = {{"n1", "n2"}};
  s.points = {{1, 0.01, 419.4}};
  s.alltoall = AllToAllPoint{2, 1 << 20, 0.005, 209.7};
  p.saturation = s;
  p.collectives = {{MessagePattern::broadcast, 2, 8, 1e-5, 20}, {MessagePattern::barrier, 4, 0, 3e-5, 20}};
  return p;
}

TEST(NetworkProbeJson, WrittenAndReadBack) {
  nlohmann::json doc = {{"models", models}};
  add_network_probe_json(doc, full_probe());
  const CommbenchOutput out = parse_commbench_output(doc.dump(), "probe.json");
  ASSERT_TRUE(out.probe);
  const NetworkProbe& p = *out.probe;
  EXPECT_EQ(p.version, 1);
  EXPECT_EQ(p.engine, "slurm");
  EXPECT_EQ(p.experiment, "study-mm");
  EXPECT_EQ(p.site, "testbed");
  EXPECT_EQ(p.machine_set, 1);
  EXPECT_EQ(p.slurm_job_id, 42u);
  EXPECT_EQ(p.measured_at, "2026-12-01T10:00:00Z");
  EXPECT_EQ(p.processes(), 4);
  EXPECT_EQ(p.nodes(), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(p.load, "spin");
  EXPECT_EQ(p.elapsed_seconds, 12.5);
  ASSERT_TRUE(p.remote && p.local);
  EXPECT_EQ(p.remote->second_rank, 2);
  EXPECT_EQ(p.remote->samples.size(), 3u);
  EXPECT_EQ(p.remote->samples[2].repetitions, 4);
  ASSERT_EQ(p.remote->fit.segments.size(), 2u);
  EXPECT_EQ(p.remote->fit.segments[1].seconds_per_byte, 9e-10);
  EXPECT_EQ(p.remote->fit.relative_rms, 0.02);
  EXPECT_EQ(p.local->second_host, "n1");
  ASSERT_TRUE(p.saturation);
  EXPECT_EQ(p.saturation->pairs.front().second, "n2");
  ASSERT_TRUE(p.saturation->alltoall);
  EXPECT_EQ(p.saturation->alltoall->per_flow_MBps, 209.7);
  ASSERT_EQ(p.collectives.size(), 2u);
  EXPECT_EQ(p.collectives[1].pattern, MessagePattern::barrier);
  EXPECT_EQ(p.collectives[1].processes, 4);
  // The models of the same file.
  EXPECT_EQ(out.models->send.slope, 1e-8);
  EXPECT_FALSE(out.has_allreduce_model);
  // A segment's bandwidth is written for the reader of the file (1 / 1e-8 s per byte).
  EXPECT_DOUBLE_EQ(doc["point_to_point"]["remote"]["segments"][0]["bandwidth_MBps"].get<double>(), 100);
}

TEST(NetworkProbeJson, AFileWithoutTheProbeHasItsModelsOnly) {
  nlohmann::json doc = {{"models", models}, {"hosts", {"n1", "n2"}}, {"send", nlohmann::json::array()}};
  doc["models"]["allreduce"] = {{"intercept", 1e-5}, {"slope", 2e-6}, {"r2", 1}};
  const CommbenchOutput out = parse_commbench_output(doc.dump(), "old.json");
  EXPECT_FALSE(out.probe);
  EXPECT_TRUE(out.has_allreduce_model);
  EXPECT_EQ(out.models->allreduce.slope, 2e-6);
  EXPECT_EQ(out.models->bcast.slope, -3e-5);
}

TEST(NetworkProbeJson, ErrorsNameTheFileAndTheField) {
  EXPECT_EQ(error_of([] { (void)parse_commbench_output("{\"models\": {\"send\": {\"intercept\": 1e-4}}}", "f.json"); }),
            "f.json: field 'models.send.slope' must be a finite number (the JSON hetscale-commbench prints)");
  EXPECT_EQ(error_of([] { (void)parse_commbench_output("[1]", "f.json"); }),
            "f.json: no 'models' object (the JSON hetscale-commbench prints)");
  const auto broken = [](const auto& change) {
    nlohmann::json doc = {{"models", models}};
    add_network_probe_json(doc, full_probe());
    change(doc);
    return error_of([&] { (void)parse_commbench_output(doc.dump(), "p.json"); });
  };
  EXPECT_EQ(broken([](auto& d) { d["probe_version"] = 2; }),
            "p.json: probe_version 2 is not one this hetscale reads (1 to 1): use a newer hetscale");
  EXPECT_EQ(broken([](auto& d) { d["engine"] = "ns3"; }), "p.json: field 'engine' must be slurm, simgrid or mpirun, not \"ns3\"");
  EXPECT_EQ(broken([](auto& d) { d["collectives"][0]["pattern"] = "reduce"; }),
            "p.json: field 'collectives[0].pattern' must be broadcast, scatterv, gatherv, allreduce, barrier or "
            "alltoall, not \"reduce\"");
  EXPECT_EQ(broken([](auto& d) { d["point_to_point"]["remote"]["segments"][1]["first_bytes"] = 10; }),
            "p.json: field 'point_to_point.remote.segments[1].first_bytes' must be above the previous segment's "
            "last_bytes");
  EXPECT_EQ(broken([](auto& d) { d["point_to_point"]["remote"]["samples"][0]["seconds"] = 0; }),
            "p.json: field 'point_to_point.remote.samples[0].seconds' must be a positive number");
  EXPECT_EQ(broken([](auto& d) {
              d["point_to_point"]["remote"] = nullptr;
              d["point_to_point"]["local"] = nullptr;
            }),
            "p.json: field 'point_to_point' must hold a remote or a local probe");
  // A probe without models (collectives at one process count) reads; a file with neither does not.
  EXPECT_EQ(broken([](auto& d) { d["models"] = nullptr; }), "no error");
  EXPECT_EQ(error_of([] { (void)parse_commbench_output("{\"models\": null}", "f.json"); }),
            "f.json: no 'models' object (the JSON hetscale-commbench prints)");
  EXPECT_EQ(broken([](auto& d) { d["measured_at"] = "yesterday"; }),
            "p.json: field 'measured_at' must be an ISO 8601 time with a zone, e.g. 2026-11-21T06:10:00Z");
  EXPECT_EQ(broken([](auto& d) { d["saturation"]["points"][0]["flows"] = 0; }),
            "p.json: field 'saturation.points[0].flows' must be at least 1");
}

TEST(NetworkProbe, MessagePatternNames) {
  for (const MessagePattern p : kMessagePatterns) EXPECT_EQ(parse_message_pattern(to_string(p)), p);
  EXPECT_EQ(parse_message_pattern("bcast"), std::nullopt);
}

}  // namespace
}  // namespace hetscale
