// hetscale classify --availability on a testbed node whose CPU quota follows a known
// schedule: full quota and half of it in turn, every 2 s. The schedule's own availability,
// relative to the full quota, has mean 3/4 and standard deviation 1/4 over whole cycles,
// so TH = 1/3; what classify measures, relative to the speed its sampling reads at the full
// quota, must be within 10 % of both (docs/validation-availability.md). Apart, within a
// sanity bound: an unloaded node's availability against its own marked speed is about 1.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "hetscale/site/node_record.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The CPU-quota cgroup of a node's job steps: the one its slurmd runs in (cluster.sh starts
// it there; every step forks from it), read from /proc as availability-experiment.sh does.
struct QuotaFiles {
  fs::path quota;   // cpu.cfs_quota_us (v1) or cpu.max (v2)
  bool v2 = false;
  long period = 0;  // microseconds
  long full = 0;    // the node's own quota, microseconds per period
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return text.str();
}

QuotaFiles node_quota(const Testbed& tb, const std::string& node) {
  const long pid = std::stol(read_text(tb.dir / "pid" / ("slurmd-" + node + ".pid")));
  std::istringstream lines(read_text("/proc/" + std::to_string(pid) + "/cgroup"));
  std::string v1_path, v2_path;
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    const std::string path = line.substr(second + 1);
    if (controllers.find(",cpu,") != std::string::npos) v1_path = path;
    if (line.rfind("0::", 0) == 0) v2_path = path;
  }
  QuotaFiles q;
  if (!v1_path.empty()) {
    for (const char* root : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
      const fs::path dir = fs::path(root) / v1_path.substr(1);
      if (!fs::exists(dir / "cpu.cfs_quota_us")) continue;
      q.quota = dir / "cpu.cfs_quota_us";
      q.period = std::stol(read_text(dir / "cpu.cfs_period_us"));
      q.full = std::stol(read_text(q.quota));
      return q;
    }
  }
  const fs::path dir = fs::path("/sys/fs/cgroup") / v2_path.substr(1);
  if (v2_path.empty() || !fs::exists(dir / "cpu.max"))
    throw std::runtime_error("cannot find the CPU cgroup of the slurmd of " + node);
  q.quota = dir / "cpu.max";
  q.v2 = true;
  std::istringstream max(read_text(q.quota));
  max >> q.full >> q.period;
  return q;
}

void set_quota(const QuotaFiles& q, long quota) {
  std::ofstream out(q.quota);
  if (q.v2) {
    out << quota << ' ' << q.period << '\n';
  } else {
    out << quota << '\n';
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + q.quota.string());
}

// Switches the quota between full and half every `hold` while it lives; restores the full
// quota when it goes, whatever happened.
class QuotaSchedule {
 public:
  QuotaSchedule(QuotaFiles files, std::chrono::milliseconds hold)
      : files_(std::move(files)), thread_([this, hold](std::stop_token stop) {
          bool full = true;
          while (!stop.stop_requested()) {
            set_quota(files_, full ? files_.full : files_.full / 2);
            ++switches_;
            const auto until = std::chrono::steady_clock::now() + hold;
            while (!stop.stop_requested() && std::chrono::steady_clock::now() < until)
              std::this_thread::sleep_for(5ms);
            full = !full;
          }
        }) {}
  ~QuotaSchedule() {
    thread_.request_stop();
    thread_.join();
    set_quota(files_, files_.full);
  }
  QuotaSchedule(const QuotaSchedule&) = delete;
  QuotaSchedule& operator=(const QuotaSchedule&) = delete;
  [[nodiscard]] int switches() const { return switches_; }

 private:
  QuotaFiles files_;
  std::atomic<int> switches_{0};
  std::jthread thread_;
};

NodeRecord classify_availability(const std::string& node, const std::string& seconds,
                                 const std::string& marked_speed = "") {
  std::vector<std::string> argv{"srun",     "-N1",        "-n1",  "-w",          node,
                                HETSCALE_BIN, "classify", "--seconds", "1", "--availability",
                                seconds,    "--window",   "0.1"};
  if (!marked_speed.empty()) {
    argv.push_back("--marked-speed");
    argv.push_back(marked_speed);
  }
  const auto r = run_command(argv, 100s);
  if (!r.ok()) throw std::runtime_error("classify --availability on " + node + ": " + r.describe());
  return node_record_from_json(nlohmann::json::parse(r.out));
}

void print(const char* what, const NodeRecord& record) {
  const NodeAvailability& a = *record.availability;
  std::printf("%s: marked speed %.1f %s (reference %.1f, %s); %zu windows of %.2f s: "
              "a %.4f, sigma_A %.4f, TH %.4f, correlation %s s\n",
              what, record.marked_speed, record.speed_unit.c_str(), a.reference_speed,
              a.reference.c_str(), a.series.size(), a.window_seconds, a.mean, a.sd, a.th,
              a.correlation_seconds ? std::to_string(*a.correlation_seconds).c_str() : "none");
}

// At the full quota and no schedule: the slices the sampling runs go at the speed of the
// whole benchmark, so an unloaded node's availability is about 1. A sanity bound: the
// marked speed and the sampling are two timings one after the other on a shared host (on
// one host the first benchmark after an idle spell read 10 % below the next one).
TEST(ClassifyAvailability, UnloadedNodeReadsAboutItsMarkedSpeedWithinASanityBound) {
  const Testbed tb = Testbed::from_env();
  const std::string node = tb.node_with_speed(1.0).name;
  const NodeRecord steady = classify_availability(node, "4");
  ASSERT_EQ(steady.state, NodeState::ok) << steady.reason;
  ASSERT_TRUE(steady.availability.has_value());
  print("full quota", steady);
  EXPECT_EQ(steady.availability->reference, "measured");
  EXPECT_NEAR(steady.availability->mean, 1.0, 0.25);
  EXPECT_LT(steady.availability->th, 0.25);
}

TEST(ClassifyAvailability, QuotaScheduleOfFullAndHalfEveryTwoSecondsMeasuredWithinTenPercent) {
  const Testbed tb = Testbed::from_env();
  const std::string node = tb.node_with_speed(1.0).name;
  const QuotaFiles quota = node_quota(tb, node);
  ASSERT_GT(quota.full, 0) << "the node has no CPU quota to vary";

  // The full quota's speed, as the sampling reads it (the mean of its windows): what the
  // schedule's availability is relative to.
  const NodeRecord steady = classify_availability(node, "4");
  ASSERT_EQ(steady.state, NodeState::ok) << steady.reason;
  ASSERT_TRUE(steady.availability.has_value());
  print("full quota", steady);
  const double full_speed = steady.availability->mean * steady.availability->reference_speed;
  ASSERT_GT(full_speed, 0);

  // The schedule: 4 whole cycles of 4 s in the 16 s sampled, so its mean and standard
  // deviation over the period are 3/4 and 1/4 wherever in the cycle sampling starts.
  NodeRecord scheduled;
  int switches = 0;
  {
    QuotaSchedule schedule(quota, 2000ms);
    scheduled = classify_availability(node, "16", std::to_string(full_speed));
    switches = schedule.switches();
  }
  ASSERT_EQ(scheduled.state, NodeState::ok) << scheduled.reason;
  ASSERT_TRUE(scheduled.availability.has_value());
  print("full/half every 2 s", scheduled);
  const double schedule_mean = 0.75, schedule_sd = 0.25, schedule_th = schedule_sd / schedule_mean;
  const NodeAvailability& a = *scheduled.availability;
  std::printf("schedule: a %.4f, sigma_A %.4f, TH %.4f (%d switches); measured / schedule: "
              "a %.3f, TH %.3f\n",
              schedule_mean, schedule_sd, schedule_th, switches, a.mean / schedule_mean,
              a.th / schedule_th);
  RecordProperty("a_ratio", std::to_string(a.mean / schedule_mean));
  RecordProperty("th_ratio", std::to_string(a.th / schedule_th));
  EXPECT_NEAR(a.mean / schedule_mean, 1.0, 0.10);
  EXPECT_NEAR(a.th / schedule_th, 1.0, 0.10);
  // A square wave holding each level 2 s has an autocorrelation falling linearly from 1 to
  // -1 over 2 s: it crosses 1/e at 2 (1 - 1/e) / 2 = 0.63 s.
  ASSERT_TRUE(a.correlation_seconds.has_value());
  EXPECT_GT(*a.correlation_seconds, 0.3);
  EXPECT_LT(*a.correlation_seconds, 1.3);
}

}  // namespace
}  // namespace hetscale::test
