// Per-kind marked speeds: on a node of several CPU kinds, classify measures each kind on
// its own CPUs besides the node's figure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "hetscale/classifier/classify.hpp"
#include "hetscale/classifier/hwloc_handles.hpp"
#include "hetscale/classifier/markspeed_benchmark.hpp"

namespace hetscale {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string hybrid =
    std::string(HETSCALE_FIXTURES_DIR) + "/topologies/intel-i7-1370p-hybrid.xml";

// The i7-1370P's kinds: kind 0 the efficient cores (CPUs 12-19), kind 1 the performance
// cores (CPUs 0-11).
ClassifyOptions on_hybrid(std::vector<unsigned> cpus, std::uint32_t slurm_cpus = 0) {
  ClassifyOptions o;
  o.topology = {TopologySource::Kind::xml, hybrid};
  o.host = "laptop";
  o.time = "2026-11-21T06:00:00Z";
  o.cpus = std::move(cpus);
  o.slurm_cpus = slurm_cpus;
  return o;
}

TEST(ClassifyKinds, EachKindRunsOnTheCpusOfItsKindTheJobMayUse) {
  std::vector<BenchmarkRequest> seen;
  const NodeRecord r =
      classify_node(on_hybrid({0, 1, 12, 13}), [&](const BenchmarkRequest& request) {
        seen.push_back(request);
        const double speed = request.cpus.front() < 12 ? 2000.0 : 900.0;
        return BenchmarkOutcome{speed, "Mflops", 5, 0.01, 0.5, 1024, ""};
      });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_THAT(seen[0].cpus, ElementsAre(0, 1, 12, 13));  // the node's figure
  EXPECT_THAT(seen[1].cpus, ElementsAre(12, 13));        // kind 0
  EXPECT_THAT(seen[2].cpus, ElementsAre(0, 1));          // kind 1
  EXPECT_EQ(seen[1].unpinned_workers, 0u);
  EXPECT_EQ(seen[1].size, 1024u);  // the size the node's run used
  ASSERT_EQ(r.state, NodeState::ok) << r.reason;
  ASSERT_EQ(r.kind_speeds.size(), 2u);
  EXPECT_EQ(r.kind_speeds[0].kind, 0u);
  EXPECT_THAT(r.kind_speeds[0].cpus, ElementsAre(12, 13));
  EXPECT_EQ(r.kind_speeds[0].processors, 2u);
  EXPECT_DOUBLE_EQ(r.kind_speeds[0].marked_speed, 900);
  EXPECT_DOUBLE_EQ(r.kind_speeds[1].marked_speed, 2000);
  EXPECT_EQ(to_json(node_record_from_json(to_json(r))), to_json(r));
}

TEST(ClassifyKinds, AKindWithoutCpusOfTheJobHasNoFigure) {
  std::vector<BenchmarkRequest> seen;
  const NodeRecord r = classify_node(on_hybrid({2, 3}), [&](const BenchmarkRequest& request) {
    seen.push_back(request);
    return BenchmarkOutcome{2000, "Mflops", 5, 0.01, 0.5, 1024, ""};
  });
  ASSERT_EQ(seen.size(), 2u);
  ASSERT_EQ(r.kind_speeds.size(), 1u);
  EXPECT_EQ(r.kind_speeds[0].kind, 1u);
}

TEST(ClassifyKinds, UnpinnedWorkersStayOnTheirKind) {
  // Slurm bound nothing (1 CPU for the job, the whole node allowed).
  std::vector<unsigned> all(20);
  for (unsigned i = 0; i < 20; ++i) all[i] = i;
  std::vector<BenchmarkRequest> seen;
  classify_node(on_hybrid(all, 1), [&](const BenchmarkRequest& request) {
    seen.push_back(request);
    return BenchmarkOutcome{2000, "Mflops", 5, 0.01, 0.5, 1024, ""};
  });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].unpinned_workers, 1u);
  EXPECT_EQ(seen[1].cpus.size(), 8u);
  EXPECT_EQ(seen[2].unpinned_workers, 1u);
  EXPECT_EQ(seen[2].cpus.size(), 12u);
}

TEST(ClassifyKinds, AKindThatFailsExcludesTheNodeSayingWhich) {
  const NodeRecord r = classify_node(on_hybrid({0, 12}), [&](const BenchmarkRequest& request) {
    if (request.cpus == std::vector<unsigned>{12}) throw std::runtime_error("cannot pin to CPU 12");
    return BenchmarkOutcome{2000, "Mflops", 5, 0.01, 0.5, 1024, ""};
  });
  EXPECT_EQ(r.state, NodeState::excluded);
  EXPECT_EQ(r.reason, "benchmark dgemm on CPU kind 0 (CPUs 12) failed: cannot pin to CPU 12");
  EXPECT_TRUE(r.kind_speeds.empty());
}

// Processes that take most of one CPU until the test ends: real-time (SCHED_FIFO) above the
// benchmark, each busy 4 ms then asleep 1 ms, so that the CPU's other threads share the
// gaps, whatever else runs on this host.
class CpuHogs {
 public:
  CpuHogs(unsigned cpu, int count) {
    for (int i = 0; i < count; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
        const sched_param above{2};
        sched_setscheduler(0, SCHED_FIFO, &above);
        for (;;) {
          timespec start{}, now{};
          clock_gettime(CLOCK_MONOTONIC, &start);
          do {
            clock_gettime(CLOCK_MONOTONIC, &now);
          } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
                   4000000L);
          const timespec pause{0, 1000000L};
          nanosleep(&pause, nullptr);
        }
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  CpuHogs(const CpuHogs&) = delete;
  CpuHogs& operator=(const CpuHogs&) = delete;
  ~CpuHogs() {
    for (pid_t pid : pids_) kill(pid, SIGKILL);
    for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }

 private:
  std::vector<pid_t> pids_;
};

// This host's own topology with two CPU kinds registered through hwloc's API, one CPU each,
// and one CPU slowed by a process pinned to it: each kind's figure is measured on its own
// CPU, so the slowed kind reads slower. The test runs real-time (SCHED_FIFO, which needs
// CAP_SYS_NICE), and so do the benchmark's workers, which inherit it: no other process of
// this shared host takes their CPU, but the hog, above them, takes 4 ms of every 5 on its
// CPU. The slowed kind should read about 0.2 of the other; the bound (0.6) allows for a
// host that runs this virtual machine's CPUs unevenly.
TEST(ClassifyKinds, EachKindIsMeasuredOnItsOwnCpuWithinASanityBound) {
  const std::vector<unsigned> allowed = live_allowed_cpus();
  // The test command runs as root on a machine of at least two processors (README.md).
  ASSERT_GE(allowed.size(), 2u) << "needs two CPUs this process may use";
  const unsigned fast = allowed[0], slow = allowed[1];
  struct RealTime {
    bool on = [] {
      const sched_param priority{1};
      return sched_setscheduler(0, SCHED_FIFO, &priority) == 0;
    }();
    ~RealTime() {
      const sched_param normal{0};
      if (on) sched_setscheduler(0, SCHED_OTHER, &normal);
    }
  } real_time;
  ASSERT_TRUE(real_time.on) << "needs CAP_SYS_NICE (root) to run real-time: " << std::strerror(errno);
  const std::filesystem::path xml = std::filesystem::temp_directory_path() /
                                    ("hetscale-kinds-" + std::to_string(getpid()) + ".xml");
  {
    HwlocTopology live = HwlocTopology::live();
    for (const auto& [cpu, efficiency] : {std::pair{slow, 0}, std::pair{fast, 1}}) {
      HwlocBitmap set;
      hwloc_bitmap_only(set.get(), cpu);
      ASSERT_EQ(hwloc_cpukinds_register(live.get(), set.get(), efficiency, 0, nullptr, 0), 0);
    }
    ASSERT_EQ(hwloc_topology_export_xml(live.get(), xml.c_str(), 0), 0);
  }
  ClassifyOptions o;
  o.topology = {TopologySource::Kind::xml, xml.string()};
  o.host = "kinds";
  o.cpus = {fast, slow};
  o.seconds = 0.3;
  o.size = 256;
  NodeRecord r;
  {
    CpuHogs hog(slow, 1);
    r = classify_node(o, run_markspeed);
  }
  std::filesystem::remove(xml);
  ASSERT_EQ(r.state, NodeState::ok) << r.reason;
  ASSERT_EQ(r.kind_speeds.size(), 2u);
  const KindSpeed* on_slow = nullptr;
  const KindSpeed* on_fast = nullptr;
  for (const KindSpeed& k : r.kind_speeds) {
    EXPECT_EQ(k.processors, 1u);
    ASSERT_EQ(k.cpus.size(), 1u);
    EXPECT_EQ(r.hardware.cpu_kinds[k.kind].cpus, k.cpus);
    (k.cpus[0] == slow ? on_slow : on_fast) = &k;
  }
  ASSERT_TRUE(on_slow != nullptr && on_fast != nullptr);
  std::cout << "kind on the slowed CPU " << slow << ": " << on_slow->marked_speed
            << " Mflops, kind on CPU " << fast << ": " << on_fast->marked_speed << " Mflops, ratio "
            << on_slow->marked_speed / on_fast->marked_speed << "\n";
  EXPECT_LT(on_slow->marked_speed, 0.6 * on_fast->marked_speed);
}

}  // namespace
}  // namespace hetscale
