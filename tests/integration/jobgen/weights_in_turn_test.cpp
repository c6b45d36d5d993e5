// `[slurm] weights = ["marked", "equalized"]` on the local cluster: one array task of the
// generated script runs every repetition once with marked and once with equalized weights,
// in turn; collected, the database holds each step as a run of its own, with its weights.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "hetscale/base/text_file.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* spec_text = R"(
[experiment]
name = "weights-in-turn"
target_efficiency = 0.3
repetitions = 2

[code]
kernel = "mm"

[parameter]
values = [48, 64]

[machine_sets]
start = 2
max = 2

[slurm]
time_limit = "5"
tasks_per_node = 1
weights = ["marked", "equalized"]
)";

std::string read(const fs::path& path) { return read_text_file(path, "test file"); }

// The value of the script's "#SBATCH --<option>=" line ("" when it has none).
std::string sbatch_value(const std::string& script, const std::string& option) {
  const std::string prefix = "#SBATCH --" + option + "=";
  const auto at = script.find(prefix);
  if (at == std::string::npos) return "";
  const auto start = at + prefix.size();
  return script.substr(start, script.find('\n', start) - start);
}

// The state the jobcomp log gives array task `task` of `array_job`, "" until it ended.
std::string task_state(const Testbed& tb, const std::string& array_job, int task) {
  for (const std::string& line : split_lines(read(tb.jobcomp_log()))) {
    if (line.find(" ArrayJobId=" + array_job + " ") == std::string::npos ||
        line.find(" ArrayTaskId=" + std::to_string(task) + " ") == std::string::npos)
      continue;
    const auto at = line.find(" JobState=");
    return line.substr(at + 10, line.find(' ', at + 10) - at - 10);
  }
  return "";
}

TEST(WeightsInTurn, EachRepetitionRunsMarkedThenEqualizedAndBothAreStored) {
  const Testbed tb = Testbed::from_env();
  ASSERT_TRUE(tb.has_pmix()) << "this Slurm has no mpi/pmix plugin (Debian's 26.05): the study's mm steps cannot "
                                "start; scripts/test-slurm-releases.sh leaves this test out on such a release";
  const fs::path dir = fs::path(HETSCALE_BINARY_DIR) / "testbed" / "weights-in-turn";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "experiment.toml") << spec_text;
  const fs::path study = dir / "study";
  auto r = run_command({HETSCALE_EXECUTABLE, "jobgen", "--site", tb.site_table().string(), "--experiment",
                        (dir / "experiment.toml").string(), "-o", study.string(), "--kernel-dir", HETSCALE_KERNEL_DIR},
                       60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string script = read(study / "set0.sbatch");
  EXPECT_EQ(sbatch_value(script, "hetscale-weights"), "") << "the job asks for none: each step asks for its own";

  // The site's equalized partition of the set's nodes (the testbed's plugin reads
  // <cluster dir>/partitions): shares 1:3, unlike the marked speeds of any two nodes.
  const std::string nodes = sbatch_value(script, "nodelist");
  const auto plan = json::parse(read(study / "plan.json"));
  const auto members = plan["machine_sets"][0]["nodes"].get<std::vector<std::string>>();
  ASSERT_EQ(members.size(), 2U);
  const std::map<std::string, double> equalized = {{members[0], 0.25}, {members[1], 0.75}};
  fs::create_directories(tb.dir / "partitions");
  const fs::path partition = tb.dir / "partitions" / (nodes + ".toml");
  std::ofstream(partition) << "[partition]\nby = \"node\"\n\n[[node]]\nname = \"" << members[0]
                           << "\"\nweight = 1\n\n[[node]]\nname = \"" << members[1] << "\"\nweight = 3\n";

  // The script once: array task 0, submitted from the study directory as submit.sh does.
  r = run_command({"sh", "-c", "cd \"$0\" && mkdir -p logs records && sbatch --parsable --array=0 set0.sbatch",
                   study.string()},
                  30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string job = split_lines(r.out).at(0);
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (task_state(tb, job, 0).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(200ms);
  fs::remove(partition);
  ASSERT_EQ(task_state(tb, job, 0), "COMPLETED") << "array job " << job << "; log in " << (study / "logs").string();

  // Four records in one file, in the order the steps ran.
  const auto lines = split_lines(read(study / "records" / ("set0-" + job + "_0.jsonl")));
  ASSERT_EQ(lines.size(), 4U);
  const std::vector<std::pair<int, std::string>> expected = {{0, "marked"}, {0, "equalized"}, {1, "marked"},
                                                              {1, "equalized"}};
  const double c = plan["machine_sets"][0]["marked_speed"].get<double>();
  std::map<std::string, double> speed;  // per-processor marked speed of each site node
  for (const auto& node : plan["site"]["nodes"]) speed[node["name"]] = node["marked_speed"].get<double>();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    SCOPED_TRACE(lines[i]);
    const auto record = json::parse(lines[i]);
    EXPECT_EQ(record["repetition"], expected[i].first);
    EXPECT_EQ(record["weights_source"], expected[i].second);
    for (const auto& rank : record["ranks"]) {
      const std::string host = rank["host"];
      const double weight = expected[i].second == "marked" ? speed.at(host) / c : equalized.at(host);
      EXPECT_NEAR(rank["weight"].get<double>(), weight, 1e-12) << host;
    }
  }

  TestDatabase db;
  db.migrate();
  r = run_command({HETSCALE_EXECUTABLE, "collect", "--db", db.uri(), study.string()}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  // Stored as four runs, whose weights alternate in the order of their start times, each
  // a step of its own in the one array task.
  EXPECT_EQ(db.scalar("SELECT string_agg(repetition || ' ' || weights_source, ', ' ORDER BY start_time) "
                      "FROM hetscale.runs"),
            "0 marked, 0 equalized, 1 marked, 1 equalized");
  EXPECT_EQ(db.scalar("SELECT count(DISTINCT slurm_step_id) || ' ' || count(DISTINCT slurm_array_task_id) "
                      "FROM hetscale.runs"),
            "4 1");
  EXPECT_EQ(db.scalar("SELECT bool_and(next_start >= end_time) FROM (SELECT end_time, lead(start_time) OVER "
                      "(ORDER BY start_time) AS next_start FROM hetscale.runs) steps WHERE next_start IS NOT NULL"),
            "t");
  EXPECT_EQ(db.scalar("SELECT string_agg(weights_source || ' ' || runs, ', ' ORDER BY weights_source) "
                      "FROM hetscale.weights_comparison WHERE experiment = 'weights-in-turn'"),
            "equalized 2, marked 2");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetscale::test
