// The network probe on the twin: hetscale-twin-commbench under smpirun. On the star8
// fixture (8 hosts, a private 125 MB/s, 50 us link each) the point-to-point fit finds
// SMPI's own regimes (its latency and bandwidth factors change with the message size) and
// the last one's figures; flows between pairs of hosts do not slow each other (no shared
// link). On a site of two groups whose switches share one backbone, the flows that cross
// it share it. Every figure comes from the output read back by the model's reader, and
// the same run gives the same figures.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "hetscale/base/regular_file.hpp"
#include "hetscale/model/network_probe.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/twin/twin_platform.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

const std::string fixtures = std::string(HETSCALE_FIXTURES_DIR) + "/twin/";

struct ProbeRun {
  int status = -1;
  std::string output;  // smpirun's and the program's stdout and stderr
  std::string json;    // the --output file
};

class TwinProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"HETSCALE_MPI_WAIT", "HETSCALE_MACHINE_SET", "HETSCALE_EXPERIMENT"}) unsetenv(name);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ProbeRun run(const std::string& platform, const std::string& hostfile, int ranks, const std::string& args) {
    const fs::path out = dir_ / "probe.commbench.json";
    fs::remove(out);
    const std::string command =
        std::string(HETSCALE_SMPIRUN) + " -no-privatize -platform " + platform + " -hostfile " + hostfile + " -np " +
        std::to_string(ranks) +
        " --cfg=smpi/coll-selector:ompi --cfg=smpi/bcast:binomial_tree --cfg=smpi/wtime:0 --log=root.thres:warning " +
        HETSCALE_TWIN_COMMBENCH + " " + args + " --output " + out.string() + " 2>&1";
    ProbeRun r;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return r;
    char buffer[4096];
    for (std::size_t got; (got = fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.output.append(buffer, got);
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (fs::exists(out)) r.json = read_regular_file(out, 64 << 20);
    return r;
  }

  fs::path dir_ = fs::temp_directory_path() / ("hetscale-twin-probe-" + std::to_string(getpid()));
};

TEST_F(TwinProbe, StarFindsSmpisRegimesAndNoContention) {
  const ProbeRun r = run(fixtures + "star8.xml", fixtures + "hosts-8", 8,
                         "--site " + fixtures + "site.toml --experiment star --machine-set 3 --budget-seconds 1000");
  ASSERT_EQ(r.status, 0) << r.output;
  const CommbenchOutput out = parse_commbench_output(r.json, "probe");
  ASSERT_TRUE(out.probe);
  const NetworkProbe& p = *out.probe;
  EXPECT_EQ(p.engine, "simgrid");
  EXPECT_EQ(p.experiment, "star");
  EXPECT_EQ(p.site, "star8");
  EXPECT_EQ(p.machine_set, 3);
  EXPECT_EQ(p.processes(), 8);
  EXPECT_EQ(p.local_absent, "every rank is on its own node");
  ASSERT_TRUE(p.remote);
  EXPECT_EQ(p.remote->second_host, "n2");
  // With a budget of 1000 simulated seconds the sweep reaches 1 GiB (a round trip of 19 s on
  // these links), every size once (the twin build's default).
  EXPECT_EQ(p.remote->samples.back().bytes, 1 << 30);
  EXPECT_GE(p.remote->samples.size(), 40u);
  // SMPI multiplies a message's latency and bandwidth by factors that change with its size
  // (docs/kernels.md): the fit has more than one regime, and from 65,472 bytes up the
  // route's latency (two links of 50 us) times 11.64 and its bandwidth (125 MB/s) times
  // 0.940694, of which SimGrid's cross-traffic (the acknowledgements' 5% of a link shared
  // by both directions) leaves 1 / 1.05.
  const auto& segments = p.remote->fit.segments;
  ASSERT_GE(segments.size(), 2u);
  EXPECT_GT(segments.back().first_bytes, 65472);
  EXPECT_LE(segments.back().first_bytes, 400000);
  EXPECT_NEAR(1 / segments.back().seconds_per_byte, 125e6 * 0.940694 / 1.05, 0.01 * 125e6);
  EXPECT_NEAR(segments.back().latency_seconds, 11.64 * 100e-6, 0.02 * 11.64 * 100e-6);
  EXPECT_LT(p.remote->fit.relative_rms, 0.02);
  // A private link per host: concurrent flows do not share one.
  ASSERT_TRUE(p.saturation);
  EXPECT_EQ(p.saturation->pairing, "groups");
  ASSERT_EQ(p.saturation->points.size(), 3u);  // 1, 2 and 4 flows
  for (const SaturationPoint& s : p.saturation->points)
    EXPECT_NEAR(p.saturation->per_flow_share(s.flows), 1, 0.02) << s.flows;
  ASSERT_TRUE(p.saturation->alltoall);
  EXPECT_EQ(p.saturation->alltoall->processes, 8);
  // Every collective at every process count from 2 to 8.
  for (const MessagePattern pattern : {MessagePattern::broadcast, MessagePattern::scatterv, MessagePattern::gatherv,
                                       MessagePattern::allreduce, MessagePattern::barrier, MessagePattern::alltoall})
    for (int processes = 2; processes <= 8; ++processes)
      EXPECT_TRUE(std::any_of(p.collectives.begin(), p.collectives.end(),
                              [&](const CollectiveSample& c) {
                                return c.pattern == pattern && c.processes == processes && c.seconds > 0;
                              }))
          << to_string(pattern) << " on " << processes;
  // The linear models of the analytic prediction are there too.
  ASSERT_TRUE(out.models);
  EXPECT_GT(out.models->send.slope, 0);

  // The same simulation gives the same figures (only the time it started differs).
  const ProbeRun again = run(fixtures + "star8.xml", fixtures + "hosts-8", 8,
                             "--site " + fixtures + "site.toml --experiment star --machine-set 3 --budget-seconds 1000");
  ASSERT_EQ(again.status, 0) << again.output;
  nlohmann::json first = nlohmann::json::parse(r.json), second = nlohmann::json::parse(again.json);
  first.erase("measured_at");
  second.erase("measured_at");
  EXPECT_EQ(first, second);
}

TEST_F(TwinProbe, FlowsAcrossASharedBackboneShareIt) {
  // Two groups of four hosts, 1000 MB/s each, their switches joined by one 1000 MB/s
  // backbone: the pairs join the groups, so k flows share the backbone, 1000 / k each.
  const std::string site_text =
      "[site]\nname = \"two-switches\"\nspeed_unit = \"Mflops\"\n"
      "[network]\ntopology = \"switch-per-group\"\nlatency_us = 2\nbandwidth_MBps = 1000\n"
      "backbone_latency_us = 2\nbackbone_bandwidth_MBps = 1000\n"
      "[[group]]\nname = \"a\"\nmarked_speed = 1000\n[[group]]\nname = \"b\"\nmarked_speed = 1000\n"
      "[[node]]\nname = \"a[1-4]\"\ngroup = \"a\"\n[[node]]\nname = \"b[1-4]\"\ngroup = \"b\"\n";
  std::ofstream(dir_ / "site.toml") << site_text;
  const TwinPlatform platform = make_twin_platform(parse_site_table(site_text, "site.toml"));
  std::ofstream(dir_ / "platform.xml") << platform.xml;
  // Ranks in an order that interleaves the groups: rank halves would pair hosts of one group.
  std::ofstream(dir_ / "hosts") << "a1\nb1\na2\nb2\na3\nb3\na4\nb4\n";
  const ProbeRun r = run((dir_ / "platform.xml").string(), (dir_ / "hosts").string(), 8,
                         "--site " + (dir_ / "site.toml").string() +
                             " --max-bytes 1048576 --collective-max-bytes 4096 --saturation-bytes 16777216");
  ASSERT_EQ(r.status, 0) << r.output;
  const NetworkProbe p = *parse_commbench_output(r.json, "probe").probe;
  ASSERT_TRUE(p.saturation);
  EXPECT_EQ(p.saturation->pairing, "groups");
  for (const auto& [from, to] : p.saturation->pairs) EXPECT_NE(from.front(), to.front()) << from << " " << to;
  ASSERT_EQ(p.saturation->points.size(), 3u);
  for (const SaturationPoint& s : p.saturation->points)
    EXPECT_NEAR(p.saturation->per_flow_share(s.flows), 1.0 / s.flows, 0.05 / s.flows) << s.flows;
  // The all-to-all's flows cross the backbone too: each gets far less than a lone flow.
  ASSERT_TRUE(p.saturation->alltoall);
  EXPECT_LT(p.saturation->per_flow_share(8), 0.5);
}

TEST_F(TwinProbe, TwoRanksOfAHostGiveTheProbeWithinANode) {
  std::ofstream(dir_ / "hosts") << "n1\nn1\nn2\nn2\n";
  const ProbeRun r = run(fixtures + "star8.xml", (dir_ / "hosts").string(), 4,
                         "--max-bytes 1048576 --collective-max-bytes 4096");
  ASSERT_EQ(r.status, 0) << r.output;
  const NetworkProbe p = *parse_commbench_output(r.json, "probe").probe;
  ASSERT_TRUE(p.local);
  ASSERT_TRUE(p.remote);
  EXPECT_EQ(p.local->second_rank, 1);
  EXPECT_EQ(p.remote->second_rank, 2);
  EXPECT_TRUE(p.local_absent.empty());
  // Within a host no link is crossed: a large message is faster there.
  EXPECT_LT(p.local->fit.at(1 << 20), p.remote->fit.at(1 << 20));
  // Two nodes: one pair of flows.
  ASSERT_TRUE(p.saturation);
  EXPECT_EQ(p.saturation->points.size(), 1u);
}

TEST_F(TwinProbe, LoadIsRefusedOnTheTwin) {
  const ProbeRun r = run(fixtures + "star8.xml", fixtures + "hosts-8", 2, "--load spin");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("hetscale-commbench: error: --load: the twin models no work beside its messages"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace hetscale
