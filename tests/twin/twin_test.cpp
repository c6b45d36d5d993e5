// The twin kernels (hetscale-twin-*) under smpirun on tests/fixtures/twin/star8.xml: 8
// single-core hosts on a star, n1-n4 at 2 Gflop/s and n5-n8 at 1 Gflop/s. Real mode must
// verify; charged mode (--compute flops) must match the flop model, be deterministic, and
// follow the weights; every run record is read back by the site library's reader.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "hetscale/model/workload.hpp"
#include "hetscale/site/run_record.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/twin/twin_platform.hpp"

namespace hetscale {
namespace {

const std::string fixtures = std::string(HETSCALE_FIXTURES_DIR) + "/twin/";
const std::map<std::string, std::string> programs = {
    {"mm", HETSCALE_TWIN_MM}, {"ge", HETSCALE_TWIN_GE}, {"conv2d", HETSCALE_TWIN_CONV2D},
    {"lu", HETSCALE_TWIN_LU}};
const char* const hash = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";

double host_speed(const std::string& host) {  // flop/s, as in star8.xml
  return host <= "n4" ? 2e9 : 1e9;
}

struct TwinRun {
  int status = -1;
  std::string output;
  RunRecord record;
};

class Twin : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name :
         {"HETSCALE_WEIGHT", "HETSCALE_RECORD", "HETSCALE_WEIGHTS_SOURCE", "HETSCALE_MARKED_SPEED",
          "HETSCALE_SYSTEM_SPEED", "HETSCALE_SITE", "HETSCALE_MPI_WAIT", "HETSCALE_EXPERIMENT"}) {
      unsetenv(name);
    }
  }
  void TearDown() override { std::filesystem::remove(record_file_); }

  // smpirun -platform star8.xml -hostfile <hosts> -np <ranks> hetscale-twin-<kernel> args.
  TwinRun run(const std::string& kernel, int ranks, const std::string& hosts,
              const std::string& args) {
    return run_on(fixtures + "star8.xml", fixtures + hosts, kernel, ranks, args);
  }

  TwinRun run_on(const std::string& platform, const std::string& hostfile,
                 const std::string& kernel, int ranks, const std::string& args) {
    std::filesystem::remove(record_file_);
    const std::string command =
        std::string(HETSCALE_SMPIRUN) + " -no-privatize -platform " + platform + " -hostfile " +
        hostfile + " -np " + std::to_string(ranks) +
        " --cfg=smpi/coll-selector:ompi --cfg=smpi/bcast:binomial_tree --cfg=smpi/wtime:0 --log=root.thres:warning " +
        smpirun_options_ +
        programs.at(kernel) + " " + args + " --record " + record_file_.string() + " 2>&1";
    TwinRun out;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return out;
    char buffer[4096];
    for (std::size_t got; (got = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      out.output.append(buffer, got);
    const int status = pclose(pipe);
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (std::filesystem::exists(record_file_)) {
      RunRecordFile file = read_run_records(record_file_, OnInvalid::fail);
      if (file.records.size() == 1) out.record = std::move(file.records.front().record);
    }
    return out;
  }

  std::string smpirun_options_;  // more --cfg=... for smpirun, each followed by a space
  std::filesystem::path record_file_ = std::filesystem::temp_directory_path() /
                                       ("hetscale_twin_" + std::to_string(getpid()) + ".jsonl");
};

// Sum over ranks of the flops their compute phases took: simulated compute seconds x host speed.
double charged_flops(const RunRecord& record) {
  double total = 0;
  for (const RankTiming& rank : record.ranks) total += rank.compute_seconds * host_speed(rank.host);
  return total;
}

double max_compute_seconds(const RunRecord& record) {
  double most = 0;
  for (const RankTiming& rank : record.ranks) most = std::max(most, rank.compute_seconds);
  return most;
}

TEST_F(Twin, RealModeVerifiesEveryKernel) {
  for (const std::string kernel : {"mm", "ge", "conv2d", "lu"}) {
    const TwinRun r =
        run(kernel, 8, "hosts-8",
            "-N 40 --compute real --weights equal --platform-hash " + std::string(hash));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("hetscale-twin-" + kernel + ": N=40 ranks=8"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find(" verified ("), std::string::npos) << r.output;
    EXPECT_TRUE(r.record.verified) << kernel;
    EXPECT_EQ(r.record.engine, "simgrid");
    EXPECT_EQ(r.record.platform_hash, hash);
    EXPECT_EQ(r.record.code, kernel);
    ASSERT_EQ(r.record.ranks.size(), 8u);
    for (std::size_t i = 0; i < 8; ++i)
      EXPECT_EQ(r.record.ranks[i].host, "n" + std::to_string(i + 1));
    EXPECT_EQ(r.record.fingerprint["software"]["compute"], "real");
  }
}

// 3 ranks: SMPI's own pairwise alltoallv (its Open MPI selection's choice there) refuses a
// number of ranks that is not a power of two; 7 ranks: the point-to-point scatterv and
// gatherv with ranks whose parts differ in size. Each answer is checked.
TEST_F(Twin, RealModeVerifiesEveryKernelOnRanksThatAreNoPowerOfTwo) {
  for (const std::string kernel : {"mm", "ge", "conv2d", "lu"}) {
    for (int ranks : {3, 7}) {
      const TwinRun r = run(kernel, ranks, "hosts-8",
                            "-N 40 --compute real --weights equal --platform-hash " + std::string(hash));
      ASSERT_EQ(r.status, 0) << kernel << " on " << ranks << ": " << r.output;
      EXPECT_NE(r.output.find(" verified ("), std::string::npos) << r.output;
      EXPECT_TRUE(r.record.verified) << kernel << " on " << ranks;
      EXPECT_EQ(r.record.ranks.size(), static_cast<std::size_t>(ranks));
    }
  }
  // Charged, the exchange of conv2d on 3 ranks takes simulated time like any other.
  const TwinRun charged =
      run("conv2d", 3, "hosts-8", "-N 64 --compute flops --weights equal --platform-hash " + std::string(hash));
  ASSERT_EQ(charged.status, 0) << charged.output;
  EXPECT_GT(charged.record.wall_seconds, 0);
}

TEST_F(Twin, ChargedRunsMatchTheFlopModel) {
  for (const std::string kernel : {"mm", "ge", "conv2d", "lu"}) {
    const TwinRun r = run(kernel, 8, "hosts-8", "-N 300 --weights equal");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(" unverified ("), std::string::npos) << r.output;
    EXPECT_FALSE(r.record.verified);
    EXPECT_EQ(r.record.engine, "simgrid");
    EXPECT_FALSE(r.record.platform_hash.has_value());
    EXPECT_EQ(r.record.fingerprint["software"]["compute"], "flops");
    // Every rank computed exactly its charge at its host's speed, and the charges sum to W;
    // each timed phase adds SMPI's cost of two MPI_Wtime calls (smpi/wtime, 10 ns each).
    const double w = Workload::parse(kernel).evaluate(ParameterValues{{"N", 300.0}});
    // lu at N = 300 on 8 ranks: NB = 8, per panel one phase on its owner and one for each
    // rank's update.
    const double phases = kernel == "mm"       ? 1
                          : kernel == "conv2d" ? 3
                          : kernel == "lu"     ? 2 * (300 / 8 + 1) + 1
                                               : 2 * 300 + 1;
    EXPECT_NEAR(charged_flops(r.record), w, 1e-9 * w + phases * 8 * 2 * 10e-9 * 2e9) << kernel;
    // The run takes at least its slowest rank's compute time, plus communication.
    EXPECT_GT(r.record.wall_seconds, max_compute_seconds(r.record)) << kernel;
    EXPECT_LT(r.record.wall_seconds, 10 * max_compute_seconds(r.record) + 0.5) << kernel;
  }
}

TEST_F(Twin, ChargedRunsAreDeterministic) {
  for (const std::string kernel : {"mm", "ge", "conv2d", "lu"}) {
    const TwinRun first = run(kernel, 8, "hosts-8", "-N 200 --weights 3,1,1,1,2,2,1,1");
    const TwinRun second = run(kernel, 8, "hosts-8", "-N 200 --weights 3,1,1,1,2,2,1,1");
    ASSERT_EQ(first.status, 0) << first.output;
    ASSERT_EQ(second.status, 0) << second.output;
    EXPECT_EQ(first.record.wall_seconds, second.record.wall_seconds) << kernel;
    for (std::size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(first.record.ranks[i].compute_seconds, second.record.ranks[i].compute_seconds)
          << kernel;
      EXPECT_EQ(first.record.ranks[i].wall_seconds, second.record.ranks[i].wall_seconds) << kernel;
    }
  }
}

TEST_F(Twin, AHalfSpeedHostMakesTheRunLonger) {
  for (const std::string kernel : {"mm", "ge", "conv2d", "lu"}) {
    const TwinRun fast = run(kernel, 4, "hosts-fast-4", "-N 256 --weights equal");
    const TwinRun mixed =
        run(kernel, 4, "hosts-mixed-4", "-N 256 --weights equal");  // rank 3 on n5
    ASSERT_EQ(fast.status, 0) << fast.output;
    ASSERT_EQ(mixed.status, 0) << mixed.output;
    EXPECT_GT(mixed.record.wall_seconds, fast.record.wall_seconds) << kernel;
    // Rank 3's charge takes twice as long on n5 (up to the MPI_Wtime costs of the phases).
    const double on_fast = fast.record.ranks[3].compute_seconds;
    EXPECT_NEAR(mixed.record.ranks[3].compute_seconds, 2 * on_fast, 0.01 * on_fast) << kernel;
  }
}

TEST_F(Twin, WaitModesGiveTheSameTimes) {
  // Under SMPI both modes wait with MPI_Wait: no simulated polling.
  const TwinRun spin = run("ge", 8, "hosts-8", "-N 120 --weights equal");
  setenv("HETSCALE_MPI_WAIT", "sleep", 1);
  const TwinRun sleep = run("ge", 8, "hosts-8", "-N 120 --weights equal");
  setenv("HETSCALE_MPI_WAIT", "nap", 1);
  const TwinRun bad = run("ge", 8, "hosts-8", "-N 120 --weights equal");
  ASSERT_EQ(spin.status, 0) << spin.output;
  ASSERT_EQ(sleep.status, 0) << sleep.output;
  EXPECT_EQ(spin.record.wall_seconds, sleep.record.wall_seconds);
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("HETSCALE_MPI_WAIT: expected spin or sleep, not 'nap'"),
            std::string::npos)
      << bad.output;
}

TEST_F(Twin, WeightsFileByRankChangesThePerRankWork) {
  const TwinRun equal = run("mm", 8, "hosts-8", "-N 480 --weights equal");
  const TwinRun file =
      run("mm", 8, "hosts-8", "-N 480 --weights-file " + fixtures + "by-rank.toml");
  ASSERT_EQ(equal.status, 0) << equal.output;
  ASSERT_EQ(file.status, 0) << file.output;
  EXPECT_EQ(file.record.weights_source, "file");
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_DOUBLE_EQ(file.record.ranks[i].weight, i < 4 ? 2.0 / 12 : 1.0 / 12);
    // 480 rows: 80 per fast rank, 40 per slow one: the same compute time everywhere.
    EXPECT_NEAR(file.record.ranks[i].compute_seconds, 2.0 * 80 * 480 * 480 / 2e9, 1e-6);
  }
  // Work in proportion to speed ends sooner than equal shares (the slow hosts wait for nothing).
  EXPECT_LT(max_compute_seconds(file.record), max_compute_seconds(equal.record));
}

TEST_F(Twin, WeightsFileByNodeUsesTheSimulatedHosts) {
  const TwinRun r =
      run("conv2d", 8, "hosts-8", "-N 100 --weights-file " + fixtures + "by-node.toml");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_DOUBLE_EQ(r.record.ranks[0].weight, 0.3);
  for (std::size_t i = 1; i < 8; ++i) EXPECT_DOUBLE_EQ(r.record.ranks[i].weight, 0.1);
}

TEST_F(Twin, MarkedWeightsFromTheSiteTable) {
  const TwinRun r =
      run("ge", 8, "hosts-8", "-N 120 --weights marked --site " + fixtures + "site.toml");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.record.weights_source, "marked");
  EXPECT_DOUBLE_EQ(r.record.marked_speed, 12000);
  EXPECT_EQ(r.record.speed_unit, "Mflops");
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_DOUBLE_EQ(r.record.ranks[i].weight, i < 4 ? 2.0 / 12 : 1.0 / 12);
    EXPECT_DOUBLE_EQ(r.record.ranks[i].marked_speed, i < 4 ? 2000 : 1000);
  }
  // A partition file keeps the table's marked speeds.
  const TwinRun file =
      run("mm", 8, "hosts-8",
          "-N 64 --weights-file " + fixtures + "by-node.toml --site " + fixtures + "site.toml");
  ASSERT_EQ(file.status, 0) << file.output;
  EXPECT_EQ(file.record.weights_source, "file");
  EXPECT_DOUBLE_EQ(file.record.ranks[0].weight, 0.3);
  EXPECT_DOUBLE_EQ(file.record.ranks[7].marked_speed, 1000);
  EXPECT_DOUBLE_EQ(file.record.marked_speed, 12000);
}

TEST_F(Twin, MarkedWeightsNeedASiteTable) {
  const TwinRun r = run("mm", 8, "hosts-8", "-N 64 --weights marked");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("hetscale-twin-mm: error: --weights marked: needs a site table (--site "
                          "FILE or HETSCALE_SITE)"),
            std::string::npos)
      << r.output;
}

// A message of 2 GiB or more (N = 16500: B is 2178000000 bytes, one message) is sent
// synchronously, and SMPI leaves it in the folded buffers: the run works, and costs the
// simulating machine no more memory than the folded region of the ranks' rows (sent as an
// ordinary send, SMPI read its size as a negative int and copied it into real memory for
// every rank that received it).
TEST_F(Twin, MessagesOf2GiBOrMoreStayFolded) {
  const TwinRun below = run("mm", 2, "hosts-8", "-N 16000");
  ASSERT_EQ(below.status, 0) << below.output;
  const TwinRun above = run("mm", 2, "hosts-8", "-N 16500");
  ASSERT_EQ(above.status, 0) << above.output;
  ASSERT_EQ(above.record.ranks.size(), 2u);
  // The message still takes its whole simulated time: B's broadcast and the scatter and
  // gather of N^2 doubles grow with N^2.
  EXPECT_GT(above.record.ranks[1].communication_seconds, below.record.ranks[1].communication_seconds * 1.05);
  rusage children{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &children), 0);
  // The region: each rank's rows of A, 8 N^2 / 2 bytes (1.09 GB); a copied B would add 2.18 GB.
  EXPECT_LT(static_cast<double>(children.ru_maxrss) * 1024, 8.0 * 16500 * 16500 / 2 + 1e9);
}

// Sent synchronously, with the kernel's own binomial-tree broadcast (what a message of 2
// GiB or more takes), every message of every kernel gives SMPI's own times to the last
// bit: here every message so (--synchronous-send-bytes 0), on uneven ranks, against the
// ordinary calls, with no send eager in either run (smpi/send-is-detached-thresh 0: SMPI
// sends every message from 64 KiB up synchronously anyway).
TEST_F(Twin, SynchronousSendsAndTheKernelsOwnBroadcastGiveSMPIsTimes) {
  smpirun_options_ = "--cfg=smpi/send-is-detached-thresh:0 ";
  for (const std::string kernel : {"mm", "ge", "lu"}) {
    const std::string args = "-N 300 --weights 3,1,1,1,2,2,1,1";
    const TwinRun ordinary = run(kernel, 8, "hosts-8", args);
    const TwinRun synchronous = run(kernel, 8, "hosts-8", args + " --synchronous-send-bytes 0");
    ASSERT_EQ(ordinary.status, 0) << ordinary.output;
    ASSERT_EQ(synchronous.status, 0) << synchronous.output;
    EXPECT_EQ(synchronous.record.wall_seconds, ordinary.record.wall_seconds) << kernel;
    ASSERT_EQ(synchronous.record.ranks.size(), 8u);
    for (std::size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(synchronous.record.ranks[i].communication_seconds, ordinary.record.ranks[i].communication_seconds)
          << kernel << " rank " << i;
      EXPECT_EQ(synchronous.record.ranks[i].wall_seconds, ordinary.record.ranks[i].wall_seconds) << kernel;
    }
  }
}

// No whole matrix is made in a charged run: not rank 0's (what it generates, scatters,
// gathers and solves with), nor mm's B on every rank (one item, its broadcast's pieces
// reaching past it). The folded region stays
// as large as the largest buffer a rank holds, here an eighth of the matrix. Peak RSS
// counts every page of the region's mappings (SMPI maps them populated), so it reads the
// region's size: with a whole matrix it was above N^2 doubles (1.15 GB at N = 12,000), now
// it must stay below half of that.
TEST_F(Twin, NoRankHoldsAWholeMatrixWhenCharging) {
  // mm and ge first: RUSAGE_CHILDREN holds the largest of the runs so far.
  for (const std::string kernel : {"mm", "ge", "lu"}) {
    const double n = kernel == "lu" ? 12000 : 8000;
    const TwinRun r = run(kernel, 8, "hosts-8", "-N " + std::to_string(static_cast<int>(n)) + " --weights equal");
    ASSERT_EQ(r.status, 0) << r.output;
    rusage children{};
    ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &children), 0);
    const double peak_bytes = static_cast<double>(children.ru_maxrss) * 1024;  // ru_maxrss is in KiB
    EXPECT_LT(peak_bytes, 0.5 * 8 * n * n) << kernel;
    EXPECT_GT(peak_bytes, 8 * n * n / 8) << kernel << ": the ranks' own parts are folded and counted";
  }
}

// What still cannot work is said at once: a folded region beyond the address space
// (N = 8,000,000 on 2 equal ranks: each rank's rows of A, 2.56e14 bytes, more than the 128
// TiB a process can map on x86-64).
TEST_F(Twin, AFoldedBufferTheMachineCannotMapIsAClearError) {
  const TwinRun r = run("mm", 2, "hosts-8", "-N 8000000 --weights equal");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("hetscale-twin-mm: error: the twin cannot map a folded buffer of 256000000000000 bytes "
                          "on this machine"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(r.record.ranks.empty()) << "no record";
}

// The collectives' overheads of a site's [network]: every rank waits after each call, so
// a 2-rank run is longer by exactly the calls' overheads on its critical path. mm calls
// three rooted collectives in its timed region (scatterv, broadcast, gatherv: the
// broadcast's overhead), ge an all-reduce and a broadcast per column. The broadcast's is
// a line in the ranks, -1000 + 1000 p us: 1 ms on 2 ranks.
TEST_F(Twin, CollectiveOverheadsAreWaitedAfterEachCall) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hetscale_twin_overheads_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path site = dir / "site.toml";
  {
    std::ofstream out(site);
    out << "[site]\nname = \"two\"\nspeed_unit = \"Mflops\"\n"
           "[network]\ntopology = \"star\"\nlatency_us = 5\nbandwidth_MBps = 1000\n"
           "[[group]]\nname = \"g\"\nmarked_speed = 1000.0\n"
           "[[node]]\nname = \"h[1-2]\"\ngroup = \"g\"\n";
  }
  SiteTable table = load_site_table(site);
  const TwinPlatformFiles plain = write_twin_platform(make_twin_platform(table), dir / "plain");
  table.network->broadcast_overhead = {-1000, 1000, 0};
  table.network->allreduce_overhead = {250, 0, 0};
  table.network->barrier_overhead = {100000, 0, 0};  // before the timed region only
  const TwinPlatformFiles slowed = write_twin_platform(make_twin_platform(table), dir / "slowed");
  std::map<std::string, std::pair<double, double>> walls;
  for (const std::string kernel : {"mm", "ge"}) {
    SCOPED_TRACE(kernel);
    const TwinRun a = run_on(plain.platform.string(), plain.hostfile.string(), kernel, 2, "-N 64 --weights equal");
    const TwinRun b = run_on(slowed.platform.string(), slowed.hostfile.string(), kernel, 2, "-N 64 --weights equal");
    ASSERT_EQ(a.status, 0) << a.output;
    ASSERT_EQ(b.status, 0) << b.output;
    walls[kernel] = {a.record.wall_seconds, b.record.wall_seconds};
    // The compute charges do not move (up to the rounding of clock readings later in time).
    EXPECT_NEAR(a.record.ranks[1].compute_seconds, b.record.ranks[1].compute_seconds, 1e-12);
  }
  EXPECT_NEAR(walls["mm"].second - walls["mm"].first, 3 * 1e-3, 1e-9);
  // ge: 64 columns of (all-reduce + broadcast), and the scatter and gather around them
  // where they fall within the timed region.
  const double per_column = 64 * (250e-6 + 1e-3);
  const double ge_added = walls["ge"].second - walls["ge"].first;
  EXPECT_GE(ge_added, per_column - 1e-9);
  EXPECT_LE(ge_added, per_column + 2e-3 + 1e-9);
  // Deterministic like every charged run.
  const TwinRun again = run_on(slowed.platform.string(), slowed.hostfile.string(), "mm", 2, "-N 64 --weights equal");
  EXPECT_EQ(again.record.wall_seconds, walls["mm"].second);
  std::filesystem::remove_all(dir);
}

// Two hosts of 1 Gflop/s from a generated platform; "half" has a speed profile of constant
// availability 0.5 when `half_available`: the same charge takes it twice as long.
TEST_F(Twin, AvailabilityHalfDoublesTheTime) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hetscale_twin_availability_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path site = dir / "site.toml";
  {
    std::ofstream out(site);
    out << "[site]\nname = \"two\"\nspeed_unit = \"Mflops\"\n"
           "[[group]]\nname = \"full\"\nmarked_speed = 1000.0\n"
           "[[group]]\nname = \"half\"\nmarked_speed = 1000.0\n"
           "[[node]]\nname = \"h1\"\ngroup = \"full\"\n"
           "[[node]]\nname = \"h2\"\ngroup = \"half\"\n";
  }
  const SiteTable table = load_site_table(site);
  TwinAvailability half;
  half.groups = {{"half", {0.5, 0}}};
  const TwinPlatformFiles constant = write_twin_platform(make_twin_platform(table), dir / "full");
  const TwinPlatformFiles profiled =
      write_twin_platform(make_twin_platform(table, {std::nullopt, half}), dir / "half");
  for (const std::string kernel : {"mm", "ge", "lu"}) {
    SCOPED_TRACE(kernel);
    const TwinRun full = run_on(constant.platform.string(), constant.hostfile.string(), kernel, 2,
                                "-N 256 --weights equal");
    const TwinRun slowed = run_on(profiled.platform.string(), profiled.hostfile.string(), kernel, 2,
                                  "-N 256 --weights equal");
    ASSERT_EQ(full.status, 0) << full.output;
    ASSERT_EQ(slowed.status, 0) << slowed.output;
    ASSERT_EQ(slowed.record.ranks.size(), 2u);
    EXPECT_EQ(slowed.record.ranks[1].host, "h2");
    // h1 keeps its time; h2's charge takes twice as long (up to the MPI_Wtime costs).
    EXPECT_NEAR(slowed.record.ranks[0].compute_seconds, full.record.ranks[0].compute_seconds,
                1e-3 * full.record.ranks[0].compute_seconds)
        << kernel;
    EXPECT_NEAR(slowed.record.ranks[1].compute_seconds, 2 * full.record.ranks[1].compute_seconds,
                1e-3 * full.record.ranks[1].compute_seconds)
        << kernel;
    EXPECT_GT(slowed.record.wall_seconds, full.record.wall_seconds) << kernel;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetscale
