#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "hetscale/base/sha256.hpp"

namespace hetscale::cli::testing {
namespace {

namespace fs = std::filesystem;

std::string site_fixture(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/site/" + name;
}

class TwinPlatformCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test: ctest -j runs the cases of this class side by side.
    dir_ = fs::path(::testing::TempDir()) /
           ("twin-platform-cli-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())) /
           "out";
    fs::remove_all(dir_.parent_path());
  }
  void TearDown() override { fs::remove_all(dir_.parent_path()); }
  fs::path dir_;
};

TEST_F(TwinPlatformCommand, WritesThePlatformHostFileAndHash) {
  const auto r = run_cli({"twin", "platform", "--site",
                          site_fixture("good-network-switch-per-group.toml"), "-o", dir_.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // the table has a [network]
  const std::string xml = read_file(dir_ / "platform.xml");
  const std::string hash = to_hex(sha256(xml));
  EXPECT_EQ(r.out, "platform: " + (dir_ / "platform.xml").string() +
                       " (5 hosts, switch-per-group)\nhostfile: " + (dir_ / "hostfile").string() +
                       "\nsha256: " + hash + "\n");
  EXPECT_NE(xml.find(R"(<host id="mid1" speed="12500000000f" core="1"/>)"), std::string::npos);
  EXPECT_EQ(read_file(dir_ / "hostfile"), "fast-01\nfast-02\nmid1\nslow1\nslow2\n");
  EXPECT_EQ(read_file(dir_ / "platform.sha256"), hash + "  platform.xml\n");
}

TEST_F(TwinPlatformCommand, SaysWhenItUsesTheDefaultNetwork) {
  const std::string site = site_fixture("good-three-groups.toml");
  const auto r = run_cli({"twin", "platform", "--site", site, "-o", dir_.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "hetscale twin platform: " + site +
                       " has no [network]; using the defaults: topology star, latency 1.5 us, "
                       "bandwidth 1250 MBps per host link\n");
  EXPECT_NE(r.out.find("(6 hosts, star)"), std::string::npos) << r.out;
}

TEST_F(TwinPlatformCommand, BadSiteTableIsAnErrorWithItsPlaceAndWritesNothing) {
  const std::string site = site_fixture("bad-network-unknown-key.toml");
  const auto r = run_cli({"twin", "platform", "--site", site, "-o", dir_.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale twin platform: " + site +
                       ":7:1: unknown key 'bandwidth_Mbps' in [network] (expected topology, "
                       "latency_us, bandwidth_MBps, backbone_latency_us, backbone_bandwidth_MBps, "
                       "barrier_overhead_us, barrier_overhead_us_per_rank, broadcast_overhead_us, "
                       "broadcast_overhead_us_per_rank, allreduce_overhead_us, "
                       "allreduce_overhead_us_per_rank, barrier_overhead_max_ranks, "
                       "broadcast_overhead_max_ranks or allreduce_overhead_max_ranks)\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(TwinPlatformCommand, NonOperationUnitSaysHowToConvert) {
  const std::string site = site_fixture("good-speed-factor.toml");
  const auto r = run_cli({"twin", "platform", "--site", site, "-o", dir_.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("hetscale twin platform: " + site +
                            ":4:14: speed_unit 'speed-factor' is no operation rate, so marked "
                            "speeds cannot become flop/s; give the flop/s of one 'speed-factor' "
                            "with --flops-per-unit (operation rates: flops, Kflops,",
                        0),
            0u)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_));

  const auto given = run_cli(
      {"twin", "platform", "--site", site, "-o", dir_.string(), "--flops-per-unit", "2.5e10"});
  ASSERT_EQ(given.code, 0) << given.err;
  EXPECT_NE(given.err.find("hetscale twin platform: 1 speed-factor = 25000000000 flop/s "
                           "(--flops-per-unit)\n"),
            std::string::npos)
      << given.err;
  EXPECT_NE(read_file(dir_ / "platform.xml").find(R"(<host id="n1" speed="25000000000f")"),
            std::string::npos);
}

TEST_F(TwinPlatformCommand, BadUsage) {
  const std::string site = site_fixture("good-speed-factor.toml");
  auto r =
      run_cli({"twin", "platform", "--site", site, "-o", dir_.string(), "--flops-per-unit", "-3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale twin platform: --flops-per-unit must be positive and finite, not -3 (see "
            "--help)\n");
  r = run_cli({"twin", "platform", "--site", site});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--output is required"), std::string::npos) << r.err;
  r = run_cli({"twin"});
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(TwinPlatformCommand, AvailabilityProfiles) {
  const std::string site = site_fixture("good-network-star.toml");
  const std::vector<std::string> args = {"twin", "platform", "--site", site, "-o", dir_.string(),
                                         "--availability", "0.9:0.05", "--availability",
                                         "slow=0.5:0.2", "--max-interval", "10", "--seed", "7"};
  auto r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("availability: 3 of 3 hosts profiled (intervals uniform in [0, 10] s, "
                       "repeating every 3600 s, seed 7)\n"),
            std::string::npos)
      << r.out;
  const std::string xml = read_file(dir_ / "platform.xml");
  EXPECT_NE(xml.find(R"(<prop id="hetscale.availability" value="0.9:0.05 slow=0.5:0.2"/>)"),
            std::string::npos);
  EXPECT_NE(xml.find(R"(<trace_connect kind="SPEED" trace="speed:s1" element="s1"/>)"),
            std::string::npos);
  // Same options, same bytes.
  r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(dir_ / "platform.xml"), xml);
}

TEST_F(TwinPlatformCommand, BadAvailability) {
  const std::string site = site_fixture("good-network-star.toml");
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"twin", "platform", "--site", site, "-o", dir_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  auto r = with({"--availability", "slow=0.5:0.4"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale twin platform: --availability 'slow=0.5:0.4': availability would leave "
            "[0, 1] (mean 0.5, sd 0.4: a +/- sqrt(3) sd reaches [-0.1928, 1.193]) (see --help)\n");
  r = with({"--availability", "1.5:0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("mean availability must be in (0, 1]"), std::string::npos) << r.err;
  r = with({"--availability", "gpu=0.5:0.1"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale twin platform: availability for group 'gpu': the site table " + site +
                       " has no such group (its groups: fast, slow)\n");
  r = with({"--availability", "0.5:0.1", "--max-interval", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--max-interval must be positive and finite, not 0"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_));
}

// `twin study`: the paths that need no simulation (SimGrid's runs are tested in tests/twin).
class TwinStudyCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            (std::string("twin-study-cli-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string spec(const std::string& code) const {
    const fs::path file = root_ / "spec.toml";
    std::ofstream(file) << "[experiment]\nname = \"tw\"\ntarget_efficiency = 0.5\n\n[code]\n" << code
                        << "\n\n[parameter]\nvalues = [100, 200]\n\n[machine_sets]\nstart = 2\nmax = 4\n";
    return file.string();
  }
  fs::path root_;
};

TEST_F(TwinStudyCommand, WithSbatchWritesTheStudyAndAnArrayScriptAndRunsNothing) {
  const fs::path dir = root_ / "out";
  const auto r = run_cli({"twin", "study", spec("kernel = \"ge\""), "--site", site_fixture("good-three-groups.toml"),
                          "-o", dir.string(), "--sbatch", "--kernel-dir", "/opt/hetscale/bin",
                          "--availability", "blade=0.5:0.1", "--seed", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  // Sets of 2 and 4 nodes, 2 sizes each, 1 repetition: 4 runs.
  EXPECT_NE(r.out.find("(experiment tw-twin, 2 sets, 4 runs, platform "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("submit: cd " + dir.string() + " && sbatch twin.sbatch\n"), std::string::npos) << r.out;
  const std::string script = read_file(dir / "twin.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-3\n"), std::string::npos) << script;
  EXPECT_NE(script.find("${HETSCALE_BIN_DIR:-/opt/hetscale/bin}"), std::string::npos) << script;
  EXPECT_TRUE(fs::exists(dir / "plan.json"));
  EXPECT_TRUE(fs::exists(dir / "hosts" / "set1.txt"));
  EXPECT_TRUE(fs::is_empty(dir / "records"));
  // The availability options make the study's platform one with speed profiles.
  EXPECT_NE(read_file(dir / "platform.xml").find("<trace_connect kind=\"SPEED\""), std::string::npos);
}

TEST_F(TwinStudyCommand, ACommandSpecIsRefusedAtItsKeyAndNothingIsWritten) {
  const fs::path dir = root_ / "out";
  const std::string file = spec("command = \"./solver {N}\"\nworkload = \"N^3\"");
  const auto r = run_cli({"twin", "study", file, "--site", site_fixture("good-three-groups.toml"), "-o", dir.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("hetscale twin study: " + file + ":6:11: the twin runs the bundled kernels", 0), 0u) << r.err;
  EXPECT_FALSE(fs::exists(dir));
}

TEST_F(TwinStudyCommand, MissingSmpirunIsAClearErrorBeforeAnythingIsWritten) {
  const fs::path dir = root_ / "out";
  const auto r = run_cli({"twin", "study", spec("kernel = \"mm\""), "--site", site_fixture("good-three-groups.toml"),
                          "-o", dir.string(), "--smpirun", "/nonexistent/smpirun"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("hetscale twin study: '/nonexistent/smpirun' not found: the twin needs SimGrid's smpirun"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir));
  ASSERT_EQ(run_cli({"twin", "study", spec("kernel = \"mm\""), "--site", site_fixture("good-three-groups.toml"),
                     "-o", dir.string(), "--sbatch"})
                .code,
            0);
  const auto run = run_cli({"twin", "run", dir.string(), "--smpirun", "/nonexistent/smpirun"});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find("hetscale twin run: '/nonexistent/smpirun' not found"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace hetscale::cli::testing
