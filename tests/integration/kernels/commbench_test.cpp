// hetscale-commbench on the local cluster (one rank per node, srun --mpi=pmix): every
// measurement is there and positive, the fitted lines agree with a second least-squares
// computation here, and the site table it writes carries that [network].
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "hetscale/model/network_probe.hpp"
#include "hetscale/site/site_table.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;

const std::string commbench = std::string(HETSCALE_KERNEL_DIR) + "/hetscale-commbench";

// Slope and intercept of y on x, computed from the normal equations (a second
// implementation beside the model's fit_line).
std::pair<double, double> least_squares(const nlohmann::json& points, const char* x_key) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : points) {
    const double x = p.at(x_key).get<double>();
    const double y = p.at("seconds").get<double>();
    n += 1;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return {slope, (sy - slope * sx) / n};
}

TEST(Commbench, CalibratesTheNetworkAndWritesItIntoTheSiteTable) {
  const Testbed tb = Testbed::from_env();
  const auto dir = std::filesystem::temp_directory_path() / "hetscale-commbench-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto site_out = dir / "site.toml";
  const std::string n = std::to_string(std::min<std::size_t>(3, tb.nodes.size()));
  // Messages up to 64 MiB: on this cluster (CPU quotas with 20 ms periods, ranks on two
  // shared cores) a few MiB take less time than the quota's jitter, and the fitted
  // bandwidth term can come out negative; 64 MiB takes tens of ms on any link here.
  // Waiting as the study's kernels wait (sleep between tests of a pending message).
  const auto r = run_command({"srun", "--mpi=pmix", "-N" + n, "-n" + n, "--ntasks-per-node=1",
                              "--export=ALL,HETSCALE_MPI_WAIT=sleep", commbench,
                              "--repetitions", "5", "--sizes", "1,1024,65536,1048576,4194304,16777216,67108864",
                              "--site", tb.site_table().string(), "--site-out", site_out.string()},
                             120s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_TRUE(out.at("peer").at("other_node").get<bool>()) << r.out;
  ASSERT_EQ(out.at("send").size(), 7U);
  for (const auto& s : out.at("send")) EXPECT_GT(s.at("seconds").get<double>(), 0) << s;
  EXPECT_GT(out.at("send").back().at("seconds").get<double>(), out.at("send").front().at("seconds").get<double>());
  ASSERT_EQ(out.at("bcast").size(), std::stoul(n) - 1);
  ASSERT_EQ(out.at("barrier").size(), std::stoul(n) - 1);
  ASSERT_EQ(out.at("allreduce").size(), std::stoul(n) - 1);
  EXPECT_EQ(out.at("wait"), "sleep");
  EXPECT_EQ(out.at("skew_us"), 1000.0);
  for (const char* c : {"bcast", "barrier", "allreduce"})
    for (const auto& s : out.at(c)) EXPECT_GT(s.at("seconds").get<double>(), 0) << c << " " << s;

  const auto [slope, intercept] = least_squares(out.at("send"), "bytes");
  EXPECT_NEAR(out.at("models").at("send").at("slope").get<double>(), slope, 1e-9 * std::abs(slope));
  EXPECT_NEAR(out.at("models").at("send").at("intercept").get<double>(), intercept, 1e-9 + 1e-6 * std::abs(intercept));
  const auto [b_slope, b_intercept] = least_squares(out.at("bcast"), "processes");
  EXPECT_NEAR(out.at("models").at("bcast").at("slope").get<double>(), b_slope, 1e-12 + 1e-9 * std::abs(b_slope));
  const double bandwidth = out.at("network").at("bandwidth_MBps").get<double>();
  EXPECT_NEAR(bandwidth, 1 / slope / 1e6, 1e-6 * bandwidth);
  EXPECT_GE(out.at("network").at("latency_us").get<double>(), 0);
  // The latency: the smallest message's one-way time less its transfer, over two links.
  const nlohmann::json& smallest = out.at("send").front();
  const double one_way = std::max(0.0, smallest.at("seconds").get<double>() - slope * smallest.at("bytes").get<double>());
  EXPECT_NEAR(out.at("network").at("latency_us").get<double>(), one_way / 2 * 1e6, 1e-6 + 1e-6 * one_way * 1e6);
  // Each collective's overhead, again here: the excess over ceil(log2 p) one-way
  // latencies at each p, a line in p (or the mean when it falls), up to the largest p.
  for (const auto& [samples, kind] : {std::pair{"barrier", "barrier"}, std::pair{"bcast", "broadcast"},
                                      std::pair{"allreduce", "allreduce"}}) {
    nlohmann::json excess = nlohmann::json::array();
    double mean = 0;
    for (const auto& s : out.at(samples)) {
      const double p = s.at("processes").get<double>();
      const double e = s.at("seconds").get<double>() - std::ceil(std::log2(p)) * one_way;
      excess.push_back({{"processes", p}, {"seconds", e}});
      mean += e / static_cast<double>(out.at(samples).size());
    }
    const auto [e_slope, e_intercept] = least_squares(excess, "processes");
    const double us = out.at("network").at(std::string(kind) + "_overhead_us").get<double>();
    const double per_rank = out.at("network").at(std::string(kind) + "_overhead_us_per_rank").get<double>();
    EXPECT_EQ(out.at("network").at(std::string(kind) + "_overhead_max_ranks").get<int>(), std::stoi(n)) << kind;
    if (e_slope > 0) {
      EXPECT_NEAR(per_rank, 1e6 * e_slope, 1e-3 + 1e-6 * 1e6 * e_slope) << kind;
      EXPECT_NEAR(us, 1e6 * e_intercept, 1e-3 + 1e-6 * std::abs(1e6 * e_intercept)) << kind;
    } else {
      EXPECT_EQ(per_rank, 0) << kind;
      EXPECT_NEAR(us, 1e6 * mean, 1e-3 + 1e-6 * std::abs(1e6 * mean)) << kind;
    }
  }

  const SiteTable written = load_site_table(site_out);
  const SiteTable original = load_site_table(tb.site_table());
  ASSERT_TRUE(written.network.has_value());
  EXPECT_EQ(written.network->topology, NetworkTopology::star);
  EXPECT_DOUBLE_EQ(written.network->bandwidth_MBps, bandwidth);
  EXPECT_DOUBLE_EQ(written.network->latency_us, out.at("network").at("latency_us").get<double>());
  EXPECT_DOUBLE_EQ(written.network->barrier_overhead.us_per_rank,
                   out.at("network").at("barrier_overhead_us_per_rank").get<double>());
  EXPECT_DOUBLE_EQ(written.network->allreduce_overhead.us,
                   out.at("network").at("allreduce_overhead_us").get<double>());
  ASSERT_EQ(written.nodes.size(), original.nodes.size());
  for (std::size_t i = 0; i < written.nodes.size(); ++i) {
    EXPECT_EQ(written.nodes[i].name, original.nodes[i].name);
    EXPECT_EQ(written.nodes[i].marked_speed, original.nodes[i].marked_speed);
  }
  std::printf("%s", r.err.c_str());
  std::filesystem::remove_all(dir);
}

// The probe under Open MPI on the cluster, one rank on each of three nodes (a node here has
// one processor), within a short budget: its JSON read back by the model library
// (network_probe.hpp) with every part a probe of this set has (none within a node, and
// why), and the kernels' costs computed from it.
TEST(Commbench, ProbesTheSetAndTheModelLibraryReadsIt) {
  const Testbed tb = Testbed::from_env();
  ASSERT_GE(tb.nodes.size(), 3u);
  constexpr double budget = 6;
  const auto r = run_command({"srun", "--mpi=pmix", "-N3", "-n3", "--ntasks-per-node=1",
                              "--export=ALL,HETSCALE_MPI_WAIT=sleep", commbench, "--budget-seconds",
                              std::to_string(budget), "--max-bytes", "16777216", "--per-decade", "3",
                              "--repetitions", "3", "--collective-max-bytes", "65536", "--saturation-bytes",
                              "1048576", "--alltoall-bytes", "1048576", "--site", tb.site_table().string()},
                             90s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const CommbenchOutput read = parse_commbench_output(r.out, "hetscale-commbench's output");
  ASSERT_TRUE(read.probe.has_value()) << r.out;
  const NetworkProbe& probe = *read.probe;
  EXPECT_EQ(probe.engine, "slurm");
  EXPECT_TRUE(probe.slurm_job_id.has_value());
  EXPECT_EQ(probe.processes(), 3);
  EXPECT_EQ(probe.nodes().size(), 3u);
  EXPECT_EQ(probe.wait, "sleep");
  ASSERT_TRUE(probe.remote.has_value());
  EXPECT_NE(probe.remote->first_host, probe.remote->second_host);
  EXPECT_GE(probe.remote->samples.size(), 2u);
  for (const MessageSample& s : probe.remote->samples) EXPECT_GT(s.seconds, 0) << s.bytes;
  EXPECT_GE(probe.remote->fit.segments.size(), 1u);
  EXPECT_GT(probe.remote->fit.at(1 << 20), 0);
  EXPECT_FALSE(probe.local.has_value());
  EXPECT_EQ(probe.local_absent, "every rank is on its own node");
  ASSERT_TRUE(probe.saturation.has_value()) << probe.saturation_absent;
  ASSERT_FALSE(probe.saturation->points.empty());
  EXPECT_EQ(probe.saturation->points.front().flows, 1);
  EXPECT_FALSE(probe.collectives.empty());
  for (const CollectiveSample& c : probe.collectives) EXPECT_LE(c.processes, 3) << to_string(c.pattern);
  // The budget holds, give or take the measurement under way when it ran out.
  EXPECT_GT(probe.elapsed_seconds, 0);
  EXPECT_LT(probe.elapsed_seconds, 3 * budget);
  const ProbeCosts costs(probe);
  EXPECT_GT(costs.seconds(MessagePattern::broadcast, 8 * 1024, 3), 0);
  EXPECT_GT(costs.seconds(MessagePattern::send, 1 << 20, 2), costs.seconds(MessagePattern::send, 8, 2));
}

TEST(Commbench, OneRankIsAClearErrorOnEveryRank) {
  const Testbed tb = Testbed::from_env();
  const auto r = run_command({"srun", "--mpi=pmix", "-N1", "-n1", commbench}, 60s);
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("hetscale-commbench: error: needs at least 2 ranks (one per node)"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace hetscale::test
