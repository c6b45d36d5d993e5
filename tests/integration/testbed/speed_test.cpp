// The heterogeneity is real: a node's speed factor is enforced by its CPU quota, and the
// quotas add up to at most the machine's cores, so nodes running at the same time do not
// slow each other down (docs/testbed.md, "Speed factors").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

// About 0.25 s of CPU on this machine kind: 0.5 s on a full-speed node, 1 s on a half one.
constexpr const char* kIterations = "150000000";

struct Timing {
  double wall = 0;
  double cpu = 0;
};

// host -> timing, from the "host=H wall=W cpu=C result=R" lines of cpu_loop.
std::map<std::string, Timing> parse_timings(const std::string& out) {
  std::map<std::string, Timing> timings;
  for (const auto& line : split_lines(out)) {
    char host[256] = {};
    Timing t;
    if (std::sscanf(line.c_str(), "host=%255s wall=%lf cpu=%lf", host, &t.wall, &t.cpu) == 3)
      timings[host] = t;
  }
  return timings;
}

Timing time_on(const std::string& node) {
  const auto r =
      run_command({"srun", "-N1", "-n1", "-w", node, HETSCALE_CPU_LOOP, kIterations}, 60s);
  if (!r.ok()) throw std::runtime_error("cpu_loop on " + node + ": " + r.describe());
  const auto timings = parse_timings(r.out);
  if (timings.size() != 1 || timings.count(node) != 1)
    throw std::runtime_error("unexpected output: " + r.out);
  return timings.at(node);
}

TEST(Speed, AHalfSpeedNodeTakesTwiceAsLongWithinASanityBound) {
  const Testbed tb = Testbed::from_env();
  const auto& full = tb.node_with_speed(1.0);
  const auto& half = tb.node_with_speed(0.5);
  const Timing on_full = time_on(full.name);
  const Timing on_half = time_on(half.name);
  const double ratio = on_half.wall / on_full.wall;
  std::printf("wall %s %.3f s, %s %.3f s: ratio %.3f\n", full.name.c_str(), on_full.wall,
              half.name.c_str(), on_half.wall, ratio);
  RecordProperty("speed_ratio", std::to_string(ratio));
  EXPECT_NEAR(ratio, 2.0, 0.2) << full.name << " " << on_full.wall << " s, " << half.name << " "
                               << on_half.wall << " s";
  // The quota slows the node down; it does not make the work itself any bigger.
  EXPECT_NEAR(on_half.cpu / on_full.cpu, 1.0, 0.15);
}

TEST(Speed, NodesRunningTogetherDoNotStealFromEachOtherWithinASanityBound) {
  const Testbed tb = Testbed::from_env();
  const auto& full = tb.node_with_speed(1.0);
  const Timing alone = time_on(full.name);

  const std::string n = std::to_string(tb.nodes.size());
  const auto r = run_command(
      {"srun", "-N" + n, "-n" + n, "--ntasks-per-node=1", HETSCALE_CPU_LOOP, kIterations}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const auto timings = parse_timings(r.out);
  ASSERT_EQ(timings.size(), tb.nodes.size()) << r.out;
  for (const auto& node : tb.nodes) {
    ASSERT_EQ(timings.count(node.name), 1U) << r.out;
    // Every node runs at its own speed factor, all of them at once: wall x speed equals
    // the full-speed node's time alone.
    const double normalised = timings.at(node.name).wall * node.speed;
    std::printf("together: %s speed %.2f wall %.3f s (x speed = %.3f s; alone at 1.0: %.3f s)\n",
                node.name.c_str(), node.speed, timings.at(node.name).wall, normalised, alone.wall);
    EXPECT_NEAR(normalised / alone.wall, 1.0, 0.1) << node.name << "\n" << r.out;
  }
}

}  // namespace
}  // namespace hetscale::test
