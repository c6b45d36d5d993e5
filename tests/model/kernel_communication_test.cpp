#include "hetscale/model/kernel_communication.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "error_text.hpp"
#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

double eval(const std::string& expression, double n, double p) {
  return Workload::parse(expression).evaluate(ParameterValues{{"N", n}, {"p", p}});
}

// [network]: latency 50 us per link, 125 MB/s: T_send(B) = 0.1 + 8e-6 B ms,
// T_bcast = T_barrier = T_allreduce = 0.1 lg(p) ms.
CommunicationCosts star_costs() {
  Network net;
  net.latency_us = 50;
  net.bandwidth_MBps = 125;
  return communication_costs(net);
}

TEST(KernelOverhead, LinearCostsByHand) {
  const CommunicationCosts c = star_costs();
  EXPECT_NEAR(c.send_ms, 0.1, 1e-15);
  EXPECT_NEAR(c.send_ms_per_byte, 8e-6, 1e-20);
  // mm at N = 100, p = 4: scatter + gather 2 * 3 * (0.1 + 8e-6 * 8e4 / 4) = 2 * 3 * 0.26 =
  // 1.56; broadcast of B: 0.1 * 2 + 2 * 8e-6 * 8e4 = 0.2 + 1.28 = 1.48. Total 3.04.
  EXPECT_NEAR(eval(kernel_overhead_expression("mm", c), 100, 4), 3.04, 1e-12);
  // conv2d at N = 100, p = 4: 3 * ((0.1 + 8e-6 * 32e4 / 16) + (0.1 + 8e-6 * 16e4 / 16))
  // = 3 * (0.26 + 0.18) = 1.32.
  EXPECT_NEAR(eval(kernel_overhead_expression("conv2d", c), 100, 4), 1.32, 1e-12);
  // ge at N = 100, p = 4: rows out and back 2 * 3 * (0.1 + 8e-6 * 80800 / 4) = 1.5696; 100
  // pivot searches 100 * (0.2 + 2 * 8e-6 * 12) = 20.0192; 100 pivot rows of 808 .. 16
  // bytes, 412 on average, 100 * (0.2 + 2 * 8e-6 * 412) = 20.6592; 75 row exchanges
  // 75 * (0.1 + 8e-6 * 412) = 7.7472. Total 49.9952.
  EXPECT_NEAR(eval(kernel_overhead_expression("ge", c), 100, 4), 49.9952, 1e-10);
  // lu at N = 1024, p = 4: NB = 1024 / 32 = 32, 32 panels of 8 * 32 * 1025 = 262400 ..
  // 8 * 32 * 33 = 8448 bytes, 135424 on average: 32 * (0.2 + 2 * 8e-6 * 135424) =
  // 75.737088; columns out and back 2 * 3 * (0.1 + 8e-6 * 8388608 / 4) = 101.263296.
  EXPECT_NEAR(eval(kernel_overhead_expression("lu", c), 1024, 4), 177.000384, 1e-9);
  // lu's block size is clamped to [8, 128]: N = 64 on 4 ranks has blocks of 8, 8 panels of
  // 8 * 8 * 65 = 4160 .. 8 * 8 * 9 = 576 bytes, 2368 on average.
  const double lu_small = 8 * (0.2 + 2 * 8e-6 * 2368) + 2 * 3 * (0.1 + 8e-6 * 8 * 64 * 64 / 4);
  EXPECT_NEAR(eval(kernel_overhead_expression("lu", c), 64, 4), lu_small, 1e-12);
  EXPECT_EQ(error_of([&] { (void)kernel_overhead_expression("heat", c); }),
            "no overhead model for kernel 'heat' (known: mm, ge, conv2d, lu)");
}

TEST(KernelOverhead, CommbenchLinesWithAndWithoutAnAllReduce) {
  CommModels fitted;  // seconds, T_send per byte
  fitted.send = {1e-4, 1e-8, 1};
  fitted.bcast = {2e-4, -3e-5, 1};
  fitted.barrier = {0, 4e-4, 1};
  fitted.allreduce = {5e-5, 1e-5, 1};
  CommunicationCosts c = communication_costs(fitted);
  EXPECT_EQ(c.bcast_ms, "(0.2 - 0.03*p)");
  EXPECT_EQ(c.barrier_ms, "(0.4*p)");
  EXPECT_EQ(c.allreduce_ms, "(0.05 + 0.01*p)");
  // A file without an all-reduce line charges the barrier's.
  EXPECT_EQ(communication_costs(fitted, false).allreduce_ms, "(0.4*p)");
  // ge's pivot search at N = 10, p = 2 is 10 * (0.05 + 0.02 + 1 * 1e-5 * 12).
  const std::string ge = kernel_overhead_expression("ge", c);
  const std::string without = kernel_overhead_expression("ge", communication_costs(fitted, false));
  EXPECT_NEAR(eval(ge, 10, 2) - eval(without, 10, 2), 10 * ((0.05 + 0.02) - 0.8), 1e-12);
}

TEST(KernelCommunication, StepsOfEveryKernelAtNAndP) {
  EXPECT_EQ(described_kernels(), (std::vector<std::string_view>{"mm", "ge", "conv2d", "lu"}));
  const CompiledCommunication ge(kernel_communication("ge"));
  const auto steps = ge.at(100, 4);
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[0].pattern, MessagePattern::scatterv);
  EXPECT_EQ(steps[0].first_bytes, 80800);
  EXPECT_EQ(steps[1].pattern, MessagePattern::allreduce);
  EXPECT_EQ(steps[1].calls, 100);
  EXPECT_EQ(steps[2].pattern, MessagePattern::broadcast);
  EXPECT_EQ(steps[2].first_bytes, 808);
  EXPECT_EQ(steps[2].last_bytes, 16);
  EXPECT_EQ(steps[3].pattern, MessagePattern::send);
  EXPECT_EQ(steps[3].calls, 75);
  const CompiledCommunication lu(kernel_communication("lu"));
  const auto panels = lu.at(4096, 2).at(1);  // NB = 128 (4096 / 16 = 256, clamped)
  EXPECT_EQ(panels.calls, 32);
  EXPECT_EQ(panels.first_bytes, 8.0 * 128 * 4097);
  EXPECT_EQ(panels.last_bytes, 8.0 * 128 * 129);
  const CompiledCommunication conv2d(kernel_communication("conv2d"));
  EXPECT_EQ(conv2d.at(64, 8).at(0).first_bytes, 32.0 * 64 * 64 / 8);
}

TEST(KernelCommunication, StepSecondsAreTheMeanCostOverTheSizes) {
  // A cost linear in the size: the mean is the cost at the middle size, exactly.
  const auto linear = [](MessagePattern, double bytes, double) { return 1 + 2 * bytes; };
  EXPECT_DOUBLE_EQ(step_seconds({MessagePattern::send, 3, 10, 30}, 2, linear), 3 * (1 + 2 * 20));
  // A jump at 15 bytes: 32 sizes at 10.3125, 10.9375, ... below it the first 8.
  const auto jump = [](MessagePattern, double bytes, double) { return bytes < 15 ? 1.0 : 5.0; };
  EXPECT_DOUBLE_EQ(step_seconds({MessagePattern::send, 1, 10, 30}, 2, jump), (8 * 1.0 + 24 * 5.0) / 32);
  EXPECT_DOUBLE_EQ(step_seconds({MessagePattern::send, 0, 10, 30}, 2, jump), 0);
}

// A probe by hand: point to point 10 us + 1 GB/s up to 1000 bytes, 50 us + 5 GB/s from
// 10000 (the boundary at sqrt(1000 * 10000) = 3162); 1, 2 and 4 concurrent flows get 1000,
// 500 and 250 MB/s; broadcasts measured at p = 2 and 4 over 1000 and 100000 bytes.
NetworkProbe hand_probe() {
  NetworkProbe probe;
  probe.engine = "simgrid";
  probe.hosts = {"a", "b", "c", "d"};
  PointToPointProbe remote;
  remote.first_host = "a";
  remote.second_host = "b";
  remote.second_rank = 1;
  remote.fit.segments = {{1, 1000, 10e-6, 1e-9}, {10000, 1e8, 50e-6, 2e-10}};
  probe.remote = remote;
  SaturationProbe s;
  s.message_bytes = 1e6;
  s.pairing = "halves";
  s.points = {{1, 1e-3, 1000}, {2, 2e-3, 500}, {4, 4e-3, 250}};
  probe.saturation = s;
  probe.collectives = {{MessagePattern::broadcast, 2, 1000, 20e-6, 5},
                       {MessagePattern::broadcast, 2, 100000, 100e-6, 5},
                       {MessagePattern::broadcast, 4, 1000, 40e-6, 5},
                       {MessagePattern::broadcast, 4, 100000, 300e-6, 5}};
  return probe;
}

TEST(ProbeCosts, AlgorithmsOnThePointToPointFitByHand) {
  const NetworkProbe probe = hand_probe();
  const ProbeCosts costs(probe);
  EXPECT_DOUBLE_EQ(probe.saturation->per_flow_share(2), 0.5);
  // 3 flows: between 2 (500 MB/s) and 4 (250) in ln(flows).
  const double t3 = (std::log(3) - std::log(2)) / (std::log(4) - std::log(2));
  EXPECT_NEAR(probe.saturation->per_flow_share(3), (500 - t3 * 250) / 1000, 1e-15);
  EXPECT_DOUBLE_EQ(probe.saturation->per_flow_share(64), 0.25);  // held beyond
  EXPECT_NEAR(costs.seconds(MessagePattern::send, 100, 4), 10e-6 + 100e-9, 1e-18);
  EXPECT_NEAR(costs.seconds(MessagePattern::send, 1e6, 4), 50e-6 + 2e-4, 1e-18);
  // Broadcast of 1e6 bytes on 4 by the tree: 1 flow, then 2 flows at half the bandwidth.
  EXPECT_NEAR(costs.algorithm_seconds(MessagePattern::broadcast, 1e6, 4), 250e-6 + 450e-6, 1e-15);
  // Scatterv of 4e6 bytes on 4: three messages of 1e6 from the root.
  EXPECT_NEAR(costs.seconds(MessagePattern::scatterv, 4e6, 4), 3 * 250e-6, 1e-15);
  // All-to-all of 400 bytes a rank on 4: 3 rounds of 100 bytes at a quarter of the bandwidth.
  EXPECT_NEAR(costs.seconds(MessagePattern::alltoall, 400, 4), 3 * (10e-6 + 100e-9 / 0.25), 1e-18);
  EXPECT_NEAR(costs.seconds(MessagePattern::barrier, 0, 4), 2 * 10e-6, 1e-18);
  EXPECT_NEAR(costs.seconds(MessagePattern::allreduce, 12, 4), 2 * (10e-6 + 12e-9 / 0.25), 1e-18);
  for (const MessagePattern p : {MessagePattern::broadcast, MessagePattern::alltoall, MessagePattern::barrier})
    EXPECT_EQ(costs.seconds(p, 1000, 1), 0) << to_string(p);
}

TEST(ProbeCosts, MeasuredCollectivesInterpolatedAndContinuedByHand) {
  const ProbeCosts costs(hand_probe());
  EXPECT_DOUBLE_EQ(costs.seconds(MessagePattern::broadcast, 1000, 2), 20e-6);
  EXPECT_TRUE(costs.measured(MessagePattern::broadcast, 1000, 2));
  // Halfway in ln(bytes) and in ln(p): geometric means.
  EXPECT_NEAR(costs.seconds(MessagePattern::broadcast, 10000, 2), std::sqrt(20e-6 * 100e-6), 1e-15);
  EXPECT_NEAR(costs.seconds(MessagePattern::broadcast, 10000, 4), std::sqrt(40e-6 * 300e-6), 1e-15);
  EXPECT_NEAR(costs.seconds(MessagePattern::broadcast, 10000, std::sqrt(8.0)),
              std::sqrt(std::sqrt(20e-6 * 100e-6) * std::sqrt(40e-6 * 300e-6)), 1e-15);
  EXPECT_TRUE(costs.measured(MessagePattern::broadcast, 10000, 3));
  // Beyond the sizes: the edge's time scaled by the tree's, 100 us * 250 / 70.
  EXPECT_FALSE(costs.measured(MessagePattern::broadcast, 1e6, 2));
  EXPECT_NEAR(costs.seconds(MessagePattern::broadcast, 1e6, 2), 100e-6 * 250e-6 / 70e-6, 1e-15);
  // Beyond the process counts: 40 us * (11 + 12 + 14) / (11 + 12) (1000 bytes on 1, 2, 4 flows).
  EXPECT_FALSE(costs.measured(MessagePattern::broadcast, 1000, 8));
  EXPECT_NEAR(costs.seconds(MessagePattern::broadcast, 1000, 8), 40e-6 * 37e-6 / 23e-6, 1e-15);
}

TEST(ProbeCosts, KernelCommunicationOnAProbeByHand) {
  const ProbeCosts costs(hand_probe());
  // conv2d at N = 10 on 4: all-to-alls of 800 and 400 bytes a rank, 3 rounds each of 200
  // and 100 bytes at a quarter of the bandwidth.
  const double conv2d = 3 * (10e-6 + 200e-9 / 0.25) + 3 * (10e-6 + 100e-9 / 0.25);
  EXPECT_NEAR(communication_seconds(CompiledCommunication(kernel_communication("conv2d")), costs, 10, 4), conv2d,
              1e-15);
  // ge at N = 10 on 4: rows of 880 bytes out and back, 3 messages of 220 each way;
  // 10 all-reduces of 12 bytes; 10 pivot rows of 88 .. 16 bytes, below the broadcasts
  // measured at p = 4 (40 us at 1000 bytes) and scaled by the tree, whose time
  // 20 us + 3e-9 B is linear there (mean size 52); 7.5 exchanges of 52 bytes on average.
  const double rows = 2 * 3 * (10e-6 + 220e-9);
  const double pivots = 10 * 2 * (10e-6 + 12e-9 / 0.25);
  const double pivot_rows = 10 * 40e-6 * (20e-6 + 3e-9 * 52) / 23e-6;
  const double exchanges = 7.5 * (10e-6 + 52e-9);
  EXPECT_NEAR(communication_seconds(CompiledCommunication(kernel_communication("ge")), costs, 10, 4),
              rows + pivots + pivot_rows + exchanges, 1e-15);
}

TEST(KernelOverheadFrom, CommbenchFileWithAProbeGivesAComputedOverhead) {
  const auto dir = std::filesystem::temp_directory_path() / "hetscale-kernel-communication-test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "probe.json").string();
  nlohmann::json doc = {{"models",
                         {{"send", {{"intercept", 1e-4}, {"slope", 1e-8}}},
                          {"bcast", {{"intercept", 2e-4}, {"slope", 0}}},
                          {"barrier", {{"intercept", 0}, {"slope", 4e-4}}}}}};
  std::ofstream(path) << doc.dump();
  const KernelOverhead lines = kernel_overhead_from_commbench("conv2d", path);
  EXPECT_FALSE(lines.seconds);
  EXPECT_EQ(lines.source, "hetscale-commbench models of " + path);
  EXPECT_NEAR(eval(lines.expression, 10, 4), 3 * (0.1 + 1e-5 * 200) + 3 * (0.1 + 1e-5 * 100), 1e-12);

  add_network_probe_json(doc, hand_probe());
  std::ofstream(path) << doc.dump();
  const KernelOverhead probed = kernel_overhead_from_commbench("conv2d", path);
  ASSERT_TRUE(probed.seconds);
  EXPECT_TRUE(probed.expression.empty());
  EXPECT_EQ(probed.source, "hetscale-commbench network probe of " + path);
  EXPECT_NEAR(probed.seconds(10, 4), 3 * (10e-6 + 200e-9 / 0.25) + 3 * (10e-6 + 100e-9 / 0.25), 1e-15);
  EXPECT_NE(probed.description.find("alltoall   1 call(s) of 32*N^2/p bytes: the forward transpose of both images"),
            std::string::npos)
      << probed.description;
  EXPECT_NE(probed.description.find("collectives measured: broadcast at p = 2, 4"), std::string::npos)
      << probed.description;
  std::filesystem::remove_all(dir);
}

TEST(KernelOverheadFrom, NetworkOfASiteTableOrTheDefault) {
  const auto dir = std::filesystem::temp_directory_path() / "hetscale-kernel-overhead-network";
  std::filesystem::create_directories(dir);
  // 50 us latency, two links a message: 0.1 ms; 125 MB/s: 8e-06 ms a byte.
  const std::string site = (dir / "site.toml").string();
  std::ofstream(site) << "[site]\nname = \"s\"\n[[group]]\nname = \"g\"\nmarked_speed = 100\n"
                         "[[node]]\nname = \"n1\"\ngroup = \"g\"\n[network]\ntopology = \"star\"\n"
                         "latency_us = 50\nbandwidth_MBps = 125\n";
  const KernelOverhead mm = kernel_overhead_from_network("mm", site);
  EXPECT_EQ(mm.expression,
            "(p - 1)*(0.1 + 8e-06*((8*N^2)/p)) + ((0.1*lg(p)) + lg(p)*8e-06*(8*N^2)) + "
            "(p - 1)*(0.1 + 8e-06*((8*N^2)/p))");
  EXPECT_EQ(mm.source, "[network] of " + site);
  EXPECT_FALSE(mm.seconds);
  const std::string bare = (dir / "bare.toml").string();
  std::ofstream(bare) << "[site]\nname = \"s\"\n[[group]]\nname = \"g\"\nmarked_speed = 100\n"
                         "[[node]]\nname = \"n1\"\ngroup = \"g\"\n";
  const KernelOverhead defaults = kernel_overhead_from_network("mm", bare);
  EXPECT_EQ(defaults.expression, kernel_overhead_expression("mm", communication_costs(Network{})));
  EXPECT_EQ(defaults.source, "the default [network] (" + bare + " has none)");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetscale
