// Accounting on the testbed (docs/testbed.md, "Accounting"): slurmdbd with MariaDB records
// every job, `sacct --json` reports it, and associations are enforced, so Slurm refuses an
// unknown QOS or account at submission. `up --accounting none` runs without them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <thread>

#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string submit(const std::vector<std::string>& options, const std::string& command) {
  std::vector<std::string> argv{"sbatch", "--parsable", "--output=/dev/null", "--chdir=/tmp"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--wrap", command});
  const auto r = run_command(argv, 30s);
  if (!r.ok()) throw std::runtime_error("sbatch failed: " + r.describe());
  return split_lines(r.out).at(0);
}

json sacct_json(const std::string& job) {
  const auto r = run_command({"sacct", "--json", "-j", job}, 30s);
  if (!r.ok()) throw std::runtime_error("sacct failed: " + r.describe());
  return json::parse(r.out);
}

bool finished(const json& job) {
  const std::string state = job.at("state").at("current").get<std::string>();
  return state != "PENDING" && state != "RUNNING" && state != "COMPLETING";
}

// The records of a job (an array job: one per task) once `count` of them have reached a
// final state: slurmctld sends them to slurmdbd after the job ends, so they arrive a
// moment later. Throws when they do not within 60 s.
json wait_for_records(const std::string& job, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  json jobs;
  for (;;) {
    jobs = sacct_json(job).at("jobs");
    std::size_t done = 0;
    for (const auto& j : jobs) done += finished(j) ? 1 : 0;
    if (jobs.size() == count && done == count) return jobs;
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("job " + job + ": " + std::to_string(done) + " of " +
                               std::to_string(count) + " records final after 60 s: " + jobs.dump());
    std::this_thread::sleep_for(200ms);
  }
}

TEST(Accounting, ACompletedJobIsInSacctJsonWithItsNodeAndCluster) {
  const Testbed tb = Testbed::from_env();
  const auto node = tb.nodes.back().name;
  const std::string job = submit({"-w", node}, "hostname");
  const json jobs = wait_for_records(job, 1);
  const json& j = jobs.at(0);
  EXPECT_EQ(j.at("job_id").get<long>(), std::stol(job));
  EXPECT_EQ(j.at("state").at("current"), "COMPLETED") << j.dump(1);
  EXPECT_EQ(j.at("nodes"), node);
  EXPECT_EQ(j.at("cluster"), "hetscale");
  EXPECT_EQ(j.at("account"), "hetscale");
  EXPECT_EQ(j.at("exit_code").at("return_code"), 0);
}

// Slurm 22.05's `sacct --json` reports the state FAILED but loses the exit code (it
// reports return code 0, status SUCCESS); `sacct -o ExitCode` has it.
TEST(Accounting, AFailedJobIsFailedInSacctJsonButItsExitCodeIsOnlyInSacctExitCode) {
  const std::string job = submit({}, "exit 3");
  const json j = wait_for_records(job, 1).at(0);
  EXPECT_EQ(j.at("state").at("current"), "FAILED") << j.dump(1);
  EXPECT_EQ(j.at("exit_code"), json::parse(R"({"status": "SUCCESS", "return_code": 0})"))
      << j.dump(1);
  const auto r = run_command({"sacct", "-n", "-P", "-X", "-o", "State,ExitCode", "-j", job}, 30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, "FAILED|3:0\n");
}

TEST(Accounting, EveryTaskOfAnArrayIsInSacctJsonWithItsTaskId) {
  const std::string job = submit({"--array=0-2"}, "hostname");
  const json jobs = wait_for_records(job, 3);
  std::set<long> tasks;
  for (const auto& j : jobs) {
    EXPECT_EQ(j.at("state").at("current"), "COMPLETED") << j.dump(1);
    EXPECT_EQ(j.at("array").at("job_id").get<long>(), std::stol(job)) << j.dump(1);
    EXPECT_EQ(j.at("cluster"), "hetscale");
    tasks.insert(j.at("array").at("task_id").get<long>());
  }
  EXPECT_EQ(tasks, (std::set<long>{0, 1, 2}));
}

TEST(Accounting, AJobOfTheUnprivilegedTestUserIsAccountedToIt) {
  const std::string job = submit({"--uid=hetscale-test"}, "true");
  const json j = wait_for_records(job, 1).at(0);
  EXPECT_EQ(j.at("state").at("current"), "COMPLETED") << j.dump(1);
  EXPECT_EQ(j.at("user"), "hetscale-test");
  EXPECT_EQ(j.at("association").at("account"), "hetscale");
}

TEST(Accounting, SlurmdbdConfIsReadableAndWritableByItsOwnerOnly) {
  const Testbed tb = Testbed::from_env();
  namespace fs = std::filesystem;
  EXPECT_EQ(fs::status(tb.dir / "slurmdbd.conf").permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(Accounting, SbatchRefusesAnUnknownQos) {
  const auto r = run_command({"sbatch", "--qos=no-such-qos", "--output=/dev/null", "--chdir=/tmp",
                              "--wrap", "true"},
                             30s);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(r.err, "sbatch: error: Batch job submission failed: Invalid qos specification\n")
      << r.describe();
}

TEST(Accounting, SbatchRefusesAnUnknownAccount) {
  const auto r = run_command({"sbatch", "--account=no-such-account", "--output=/dev/null",
                              "--chdir=/tmp", "--wrap", "true"},
                             30s);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: Invalid account or account/partition "
            "combination specified\n")
      << r.describe();
}

// A second, one-node cluster of its own next to the fixture's, without accounting.
TEST(Accounting, WithAccountingNoneSacctSaysAccountingIsDisabled) {
  const std::string script = HETSCALE_SOURCE_DIR "/scripts/cluster.sh";
  // Short: unix socket paths under the run dir are limited (cluster.sh allows 70 chars).
  const auto dir = std::filesystem::path(HETSCALE_BINARY_DIR) / "testbed" / "acct-none";
  const auto layout = dir.parent_path() / "acct-none.layout";
  std::ofstream(layout) << "m1 group=tiny cpus=1 speed=0.25\n";
  const std::vector<std::string> env{"SLURM_CONF=" + (dir / "slurm.conf").string()};
  const auto up = run_command({script, "restart", "--run-dir", dir.string(), "--layout",
                               layout.string(), "--accounting", "none"},
                              60s, env);
  ASSERT_TRUE(up.ok()) << up.describe();
  const auto sacct = run_command({"sacct", "--json"}, 30s, env);
  const auto sbatch = run_command({"sbatch", "--parsable", "--qos=no-such-qos",
                                   "--output=/dev/null", "--chdir=/tmp", "--wrap", "true"},
                                  30s, env);
  const auto down = run_command({script, "down", "--run-dir", dir.string()}, 60s, env);
  std::ifstream conf(dir / "slurm.conf");
  const std::string text{std::istreambuf_iterator<char>(conf), {}};
  std::filesystem::remove_all(dir);
  std::filesystem::remove(layout);

  EXPECT_EQ(sacct.exit_code, 1) << sacct.describe();
  EXPECT_EQ(sacct.out, "") << sacct.describe();
  EXPECT_EQ(sacct.err, "Slurm accounting storage is disabled\n") << sacct.describe();
  // Without associations nothing checks the QOS: the job is accepted.
  EXPECT_TRUE(sbatch.ok()) << sbatch.describe();
  EXPECT_NE(text.find("AccountingStorageType=accounting_storage/none\n"), std::string::npos);
  EXPECT_NE(text.find("JobCompType=jobcomp/filetxt\n"), std::string::npos);
  EXPECT_EQ(text.find("slurmdbd"), std::string::npos);
  EXPECT_TRUE(down.ok()) << down.describe();
}

}  // namespace
}  // namespace hetscale::test
