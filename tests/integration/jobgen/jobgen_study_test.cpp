// `hetscale jobgen` end to end on the local cluster: mm over sets of 2 and 4 nodes at 3
// sizes, submitted with the generated submit.sh.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* spec_text = R"(
[experiment]
name = "jobgen-integration"
target_efficiency = 0.3

[code]
kernel = "mm"

[parameter]
values = [64, 96, 128]

[machine_sets]
start = 2
max = 4

[slurm]
time_limit = "5"
)";

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Array tasks of `array_job` that the jobcomp log reports, with their states.
std::map<std::string, std::string> finished_tasks(const Testbed& tb, const std::string& array_job) {
  std::map<std::string, std::string> out;
  for (const std::string& line : split_lines(read(tb.jobcomp_log()))) {
    if (line.find(" ArrayJobId=" + array_job + " ") == std::string::npos) continue;
    const auto field = [&](const std::string& key) {
      const auto at = line.find(" " + key + "=");
      if (at == std::string::npos) return std::string();
      const auto start = at + key.size() + 2;
      return line.substr(start, line.find(' ', start) - start);
    };
    out[field("ArrayTaskId")] = field("JobState");
  }
  return out;
}

class JobgenStudy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(HETSCALE_BINARY_DIR) / "testbed" / "jobgen-study";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "experiment.toml") << spec_text;
  }
  fs::path dir_;
};

TEST_F(JobgenStudy, EveryArrayTaskCompletesAndLeavesTheRecordsThePlanPredicts) {
  const Testbed tb = Testbed::from_env();
  const fs::path study = dir_ / "study";
  auto r = run_command({HETSCALE_EXECUTABLE, "jobgen", "--site", tb.site_table().string(), "--experiment",
                        (dir_ / "experiment.toml").string(), "-o", study.string(), "--kernel-dir", HETSCALE_KERNEL_DIR},
                       30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  if (!HETSCALE_WITH_PLUGIN) {
    // Without the SPANK plugin sbatch does not know --hetscale-weights: drop that line.
    for (const char* script : {"set0.sbatch", "set1.sbatch"}) {
      std::string text = read(study / script);
      text.erase(text.find("#SBATCH --hetscale-weights=marked\n"), 34);
      std::ofstream(study / script) << text;
    }
  }
  const auto plan = nlohmann::json::parse(read(study / "plan.json"));
  ASSERT_EQ(plan["machine_sets"].size(), 2U);
  ASSERT_EQ(plan["machine_sets"][0]["nodes"].size(), 2U);
  ASSERT_EQ(plan["machine_sets"][1]["nodes"].size(), 4U);

  r = run_command({(study / "submit.sh").string()}, 30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const auto jobs = split_lines(read(study / "jobs.txt"));
  ASSERT_EQ(jobs.size(), 2U) << read(study / "jobs.txt");

  std::map<int, std::string> array_job;  // set -> array job id
  for (const std::string& line : jobs) {
    std::istringstream fields(line);
    int set = -1;
    std::string job, script;
    fields >> set >> job >> script;
    EXPECT_EQ(script, "set" + std::to_string(set) + ".sbatch") << line;
    array_job[set] = job;
  }
  const auto deadline = std::chrono::steady_clock::now() + 100s;
  for (const auto& [set, job] : array_job) {
    while (finished_tasks(tb, job).size() < 3 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(200ms);
    EXPECT_EQ(finished_tasks(tb, job),
              (std::map<std::string, std::string>{{"0", "COMPLETED"}, {"1", "COMPLETED"}, {"2", "COMPLETED"}}))
        << "set " << set << ", array job " << job << "; logs in " << (study / "logs").string();
  }

  for (const auto& [set, job] : array_job) {
    const auto& planned = plan["machine_sets"][set];
    const double c = planned["marked_speed"].get<double>();
    std::map<std::string, double> speed;  // per-processor marked speed of each site node
    for (const auto& node : plan["site"]["nodes"]) speed[node["name"]] = node["marked_speed"].get<double>();
    for (int task = 0; task < 3; ++task) {
      const fs::path file = study / "records" / ("set" + std::to_string(set) + "-" + job + "_" + std::to_string(task) + ".jsonl");
      ASSERT_TRUE(fs::exists(file)) << file.string();
      const auto lines = split_lines(read(file));
      ASSERT_EQ(lines.size(), 1U) << file.string();  // one repetition
      const auto record = nlohmann::json::parse(lines[0]);
      EXPECT_EQ(record["experiment"], "jobgen-integration");
      EXPECT_EQ(record["machine_set"], set);
      EXPECT_EQ(record["repetition"], 0);
      EXPECT_EQ(record["parameters"]["N"].get<double>(), planned["parameter_values"][task].get<double>());
      EXPECT_EQ(record["slurm"]["array_job_id"].dump(), job);
      EXPECT_EQ(record["slurm"]["array_task_id"], task);
      ASSERT_EQ(record["ranks"].size(), planned["nodes"].size());
      std::set<std::string> hosts;
      for (const auto& rank : record["ranks"]) {
        const std::string host = rank["host"];
        hosts.insert(host);
        if (HETSCALE_WITH_PLUGIN) {
          // The plugin's weight is the rank's marked speed over the set's C (one rank per node here).
          EXPECT_NEAR(rank["weight"].get<double>(), speed.at(host) / c, 1e-12) << host;
        }
      }
      const auto members = planned["nodes"].get<std::vector<std::string>>();
      EXPECT_EQ(hosts, std::set<std::string>(members.begin(), members.end()));
      if (HETSCALE_WITH_PLUGIN) {
        EXPECT_EQ(record["weights_source"], "marked");
        EXPECT_NEAR(record["marked_speed"].get<double>(), c, 1e-12);
      }
    }
  }
  fs::remove_all(dir_);
}

}  // namespace
}  // namespace hetscale::test
