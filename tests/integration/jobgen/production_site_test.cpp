// A study as a production site runs it, on the local cluster with slurmdbd: the array
// tasks of a set never share its nodes with each other or with another job (sacct's start
// and end times), `hetscale status` counts what sacct says, a task killed with scancel is
// run again by `jobgen --resubmit`, a program that writes no record is timed from outside
// (a failed step stored, but neither an E_s nor collected), and Slurm's refusals are shown
// at the spec's line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "hetscale/slurm/sacct.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The study token of the round jobgen wrote into `dir`: in its job names.
std::string study_token_of(const fs::path& dir) {
  return json::parse(read(dir / "plan.json")).at("study_token").get<std::string>();
}

using Jobs = std::vector<slurm::JobRecord>;

// The jobs sacct reports with these names (every user, since yesterday), read as any
// release writes them.
Jobs sacct_jobs(const std::string& names) {
  const auto r = run_command({"sacct", "--json", "--allusers", "--starttime", "now-1days", "--name", names}, 60s);
  if (!r.ok()) throw std::runtime_error(r.describe());
  return slurm::read_sacct_json(r.out, "sacct --json").jobs;
}

bool all_ended(const Jobs& jobs) {
  for (const auto& job : jobs)
    if (!slurm::is_final_job_state(job.state)) return false;
  return true;
}

std::string dump(const Jobs& jobs) {
  std::string out;
  for (const auto& job : jobs)
    out += fmt::format("{{{} {} task {} {} {}..{} on {}}} ", job.job_id, job.job_name,
                       job.array_task_id ? std::to_string(*job.array_task_id) : "-", job.state, job.start_time,
                       job.end_time.value_or(""), job.node_list.value_or(""));
  return out;
}

// Waits until sacct shows `count` jobs of these names, all ended.
Jobs wait_for_jobs(const std::string& names, std::size_t count, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  Jobs jobs;
  do {
    jobs = sacct_jobs(names);
    if (jobs.size() >= count && all_ended(jobs)) return jobs;
    std::this_thread::sleep_for(500ms);
  } while (std::chrono::steady_clock::now() < deadline);
  ADD_FAILURE() << "sacct shows " << jobs.size() << " job(s) named " << names << ", not " << count << " ended: "
                << dump(jobs);
  return jobs;
}

// Times as "YYYY-MM-DDTHH:MM:SS": their order is the text's.
struct Interval {
  std::string start, end;
  std::string what;
};

// Nodes of a host-list sacct writes for one job (the testbed's are n1..n5: "n[1-2]", "n4").
std::set<std::string> nodes_of(const std::string& list) {
  std::set<std::string> out;
  if (list.rfind("n[", 0) != 0) {
    out.insert(list);
    return out;
  }
  std::stringstream ranges(list.substr(2, list.size() - 3));
  for (std::string item; std::getline(ranges, item, ',');) {
    const auto dash = item.find('-');
    const int first = std::stoi(item.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(item.substr(dash + 1));
    for (int i = first; i <= last; ++i) out.insert("n" + std::to_string(i));
  }
  return out;
}

bool overlap(const Interval& a, const Interval& b) { return a.start < b.end && b.start < a.end; }

class ProductionSite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(HETSCALE_BINARY_DIR) / "testbed" / "production-site" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  // jobgen on the testbed's site table; the spec's text as given.
  CommandResult jobgen(const std::string& spec, const fs::path& out, std::vector<std::string> more = {}) {
    std::ofstream(dir_ / "experiment.toml") << spec;
    std::vector<std::string> argv = {HETSCALE_EXECUTABLE, "jobgen", "--site", tb_.site_table().string(),
                                     "--experiment", (dir_ / "experiment.toml").string(), "-o", out.string(),
                                     "--kernel-dir", HETSCALE_KERNEL_DIR};
    argv.insert(argv.end(), more.begin(), more.end());
    return run_command(argv, 60s);
  }

  // The array tasks' run intervals of one set (from sacct), in task order.
  std::vector<Interval> task_intervals(const Jobs& jobs, const std::string& name) {
    std::map<std::uint64_t, Interval> by_task;
    for (const auto& job : jobs) {
      if (job.job_name != name || !job.array_task_id) continue;
      by_task[*job.array_task_id] = {job.start_time, job.end_time.value_or(""),
                                     name + "_" + std::to_string(*job.array_task_id)};
    }
    std::vector<Interval> out;
    for (const auto& [task, interval] : by_task) out.push_back(interval);
    return out;
  }

  Testbed tb_ = Testbed::from_env();
  fs::path dir_;
};

// Five tasks of 2 s each on the set {n1, n2} in the testbed's partition `shared` (jobs that
// ask --oversubscribe share CPUs there), and two foreign jobs of 2 s that ask it, aimed at
// n1 and n2 while the array runs. With the default whole nodes and throttle no two
// intervals on a node overlap; the same study without them (exclusive = false,
// array_throttle = 0, --oversubscribe) shows that the check can fail.
TEST_F(ProductionSite, TasksOfASetNeverOverlapAndNoForeignJobSharesTheirNodes) {
  for (const bool clean : {true, false}) {
    SCOPED_TRACE(clean ? "whole nodes, throttle 1" : "shared nodes, no throttle");
    const std::string name = clean ? "site-clean" : "site-shared";
    const std::string spec = "[experiment]\nname = \"" + name +
                             "\"\ntarget_efficiency = 0.3\n\n[code]\ncommand = \"sleep 2 # {N}\"\n"
                             "workload = \"N\"\n\n[parameter]\nvalues = [1, 2, 3, 4, 5]\n\n"
                             "[machine_sets]\nstart = 2\nmax = 2\nnodes = \"n[1-2]\"\n\n[slurm]\ntime_limit = \"5\"\n"
                             "partition = \"shared\"\nmpi = \"none\"\n" +
                             (clean ? std::string()
                                    : std::string("exclusive = false\narray_throttle = 0\n"
                                                  "sbatch_options = [\"--oversubscribe\"]\n"));
    const fs::path study = dir_ / name;
    auto r = jobgen(spec, study);
    ASSERT_TRUE(r.ok()) << r.describe();
    const std::string script = read(study / "set0.sbatch");
    EXPECT_EQ(script.find("#SBATCH --exclusive\n") != std::string::npos, clean) << script;
    r = run_command({(study / "submit.sh").string()}, 30s);
    ASSERT_TRUE(r.ok()) << r.describe();
    const std::string set0 = name + "-" + study_token_of(study) + "-set0";
    for (const char* node : {"n1", "n2"}) {
      r = run_command({"sbatch", "--parsable", "--job-name=" + name + "-foreign", "--partition=shared",
                       "--oversubscribe", "--nodelist", node, "--ntasks=1", "--output=/dev/null", "--wrap", "sleep 2"},
                      30s);
      ASSERT_TRUE(r.ok()) << r.describe();
    }
    const Jobs jobs = wait_for_jobs(set0 + "," + name + "-foreign", 7, 120s);
    const auto tasks = task_intervals(jobs, set0);
    ASSERT_EQ(tasks.size(), 5U) << dump(jobs);
    // A task that failed at once overlaps nothing: each must have run its 2 s.
    for (const auto& job : jobs) {
      if (job.job_name == set0) {
        EXPECT_EQ(job.state, "COMPLETED") << dump({job});
      }
    }
    std::size_t overlaps = 0;
    for (std::size_t i = 0; i < tasks.size(); ++i)
      for (std::size_t j = i + 1; j < tasks.size(); ++j) overlaps += overlap(tasks[i], tasks[j]) ? 1 : 0;
    for (const auto& job : jobs) {
      if (job.job_name != name + "-foreign") continue;
      EXPECT_EQ(job.state, "COMPLETED") << dump({job});
      const Interval foreign{job.start_time, job.end_time.value_or(""), "foreign " + std::to_string(job.job_id)};
      const auto nodes = nodes_of(job.node_list.value_or(""));
      ASSERT_EQ(nodes.size(), 1U);
      EXPECT_TRUE(*nodes.begin() == "n1" || *nodes.begin() == "n2") << dump({job});
      for (const auto& t : tasks) overlaps += overlap(foreign, t) ? 1 : 0;
    }
    if (clean) {
      EXPECT_EQ(overlaps, 0U) << dump(jobs);
    } else {
      EXPECT_GT(overlaps, 0U) << "nothing overlapped: the check could not fail; " << dump(jobs);
    }
  }
}

// mm on {n1, n2} at three sizes, two repetitions; task 2 (the largest, a few seconds a
// repetition) cancelled with scancel while it runs. status counts as sacct; --resubmit runs
// it as round 1; every (set, size, repetition) is stored exactly once. (A task cancelled
// while still pending in its array never reaches accounting: status calls it not
// submitted.)
TEST_F(ProductionSite, StatusMatchesSacctAndResubmitCompletesAKilledTask) {
  ASSERT_TRUE(tb_.has_pmix()) << "this Slurm has no mpi/pmix plugin (Debian's 26.05): the study's mm steps cannot "
                                 "start; scripts/test-slurm-releases.sh leaves this test out on such a release";
  TestDatabase db;
  db.migrate();
  const std::string spec =
      "[experiment]\nname = \"site-resubmit\"\ntarget_efficiency = 0.3\nrepetitions = 2\n\n[code]\nkernel = \"mm\"\n\n"
      "[parameter]\nvalues = [64, 96, 1600]\n\n[machine_sets]\nstart = 2\nmax = 2\nnodes = \"n[1-2]\"\n\n"
      "[slurm]\ntime_limit = \"5\"\n";
  const fs::path study = dir_ / "round0";
  auto r = jobgen(spec, study);
  ASSERT_TRUE(r.ok()) << r.describe();
  r = run_command({(study / "submit.sh").string()}, 30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  std::istringstream jobs_txt(read(study / "jobs.txt"));
  int set = -1;
  std::string array_job;
  jobs_txt >> set >> array_job;
  ASSERT_EQ(set, 0);
  // Task 2 killed once it runs.
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  bool running = false;
  while (!running && std::chrono::steady_clock::now() < deadline) {
    r = run_command({"squeue", "-h", "-j", array_job + "_2", "-o", "%T"}, 30s);
    running = r.ok() && r.out == "RUNNING\n";
    if (!running) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(running) << "array task 2 never ran: " << r.describe();
  r = run_command({"scancel", array_job + "_2"}, 30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string token = study_token_of(study);
  const Jobs jobs = wait_for_jobs("site-resubmit-" + token + "-set0", 3, 60s);

  r = run_command({HETSCALE_EXECUTABLE, "collect", "--db", db.uri(), study.string()}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  r = run_command({HETSCALE_EXECUTABLE, "status", "site-resubmit", "--db", db.uri(), "--format", "json"}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  json status = json::parse(r.out);
  EXPECT_EQ(status["job_states_from"], "sacct");
  ASSERT_EQ(status["sets"].size(), 1U) << r.out;
  // sacct's own counts of the set's tasks.
  std::map<std::string, int> by_state;
  for (const auto& job : jobs) ++by_state[job.state];
  EXPECT_EQ(by_state, (std::map<std::string, int>{{"CANCELLED", 1}, {"COMPLETED", 2}})) << dump(jobs);
  EXPECT_EQ(status["sets"][0]["tasks"], 3);
  EXPECT_EQ(status["sets"][0]["collected"], by_state["COMPLETED"]);
  EXPECT_EQ(status["sets"][0]["failed"], by_state["CANCELLED"]);
  EXPECT_EQ(status["sets"][0]["summary"], "round 0 set 0 (2 nodes): 3 tasks: 2 collected, 1 failed");

  const fs::path again = dir_ / "round1";
  r = run_command({HETSCALE_EXECUTABLE, "jobgen", "--resubmit", "--db", db.uri(), "--experiment", "site-resubmit",
                   "-o", again.string(), "--kernel-dir", HETSCALE_KERNEL_DIR},
                  60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_NE(r.out.find("round 0 set 0 array task 2 (N=1600): failed (CANCELLED, job"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("submitted set0.sbatch as job"), std::string::npos) << r.out;
  // The study's next round: its token, the next round's number.
  EXPECT_NE(read(again / "set0.sbatch").find("#SBATCH --job-name=site-resubmit-" + token + "-r1-set0\n"),
            std::string::npos);
  wait_for_jobs("site-resubmit-" + token + "-r1-set0", 1, 90s);
  r = run_command({HETSCALE_EXECUTABLE, "collect", "--db", db.uri(), again.string()}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();

  r = run_command({HETSCALE_EXECUTABLE, "status", "site-resubmit", "--db", db.uri(), "--format", "json"}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  status = json::parse(r.out);
  ASSERT_EQ(status["sets"].size(), 2U) << r.out;
  EXPECT_EQ(status["sets"][0]["summary"], "round 0 set 0 (2 nodes): 3 tasks: 3 collected");
  EXPECT_EQ(status["sets"][1]["summary"], "round 1 set 0 (2 nodes): 1 task: 1 collected");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.runs"), "6");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM (SELECT set_index, parameters, repetition FROM hetscale.runs "
                      "GROUP BY 1, 2, 3 HAVING count(*) <> 1) x"),
            "0");
  // Every run names its cluster and meets its job there once the jobs are collected: the
  // cancelled task's job (a repetition it finished before scancel, when it was quick enough,
  // is stored), every other run's job completed.
  r = run_command({HETSCALE_EXECUTABLE, "collect", "--db", db.uri(), "--sacct", "--since", "now-1days"}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string cancelled_task =
      fmt::format("slurm_array_job_id = {} AND slurm_array_task_id = 2", array_job);
  EXPECT_EQ(db.scalar("SELECT string_agg(DISTINCT cluster || ' ' || job_state, ',') FROM hetscale.run_slurm_jobs "
                      "WHERE NOT (" + cancelled_task + ")"),
            "hetscale COMPLETED");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.run_slurm_jobs WHERE " + cancelled_task +
                      " AND (job_state IS DISTINCT FROM 'CANCELLED' OR cluster IS DISTINCT FROM 'hetscale')"),
            "0");

  r = run_command({HETSCALE_EXECUTABLE, "jobgen", "--resubmit", "--db", db.uri(), "--experiment", "site-resubmit",
                   "-o", (dir_ / "round2").string()},
                  60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, "nothing to resubmit: every array task's records are collected; no files written\n");
  EXPECT_FALSE(fs::exists(dir_ / "round2"));
}

// A program that knows nothing of hetscale (a shell sleeping 0.N s, which exits 3 at N = 3)
// as a study's `command`: the generated script times each step from outside (`hetscale
// record step`), so every array task leaves a record with timed_by "step" and the step's
// exit status. Collected, the two steps that exited 0 have an E_s in run_efficiency (the
// one `hetscale efficiency` gives for the record's W, T and C); the failed one is stored
// with exit_status 3, has none, and is not collected for status and --resubmit.
TEST_F(ProductionSite, AProgramThatWritesNoRecordIsTimedFromOutside) {
  TestDatabase db;
  db.migrate();
  const std::string spec =
      "[experiment]\nname = \"site-step\"\ntarget_efficiency = 0.3\n\n[code]\n"
      "command = 'sh -c \"sleep 0.{N}; [ {N} -ne 3 ] || exit 3\"'\nworkload = \"1000*N\"\n\n"
      "[parameter]\nvalues = [1, 2, 3]\n\n[machine_sets]\nstart = 2\nmax = 2\nnodes = \"n[1-2]\"\n\n"
      "[slurm]\ntime_limit = \"5\"\nmpi = \"none\"\n";
  // The testbed's declared speeds are factors, which give no E_s: the same layout's site
  // table with the factors read as Mflops (`hetscale groups --declared`) gives one.
  const fs::path site = dir_ / "site-mflops.toml";
  auto r = run_command({HETSCALE_EXECUTABLE, "groups", "--declared", (tb_.dir / "layout.txt").string(),
                        "--site-name", "testbed-mflops", "--speed-unit", "Mflops", "-o", site.string()},
                       60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  std::ofstream(dir_ / "experiment.toml") << spec;
  const fs::path study = dir_ / "round0";
  r = run_command({HETSCALE_EXECUTABLE, "jobgen", "--site", site.string(), "--experiment",
                   (dir_ / "experiment.toml").string(), "-o", study.string(), "--kernel-dir",
                   HETSCALE_KERNEL_DIR},
                  60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string script = read(study / "set0.sbatch");
  EXPECT_NE(script.find("record step --code "), std::string::npos) << script;
  r = run_command({(study / "submit.sh").string()}, 30s);
  ASSERT_TRUE(r.ok()) << r.describe();
  std::istringstream jobs_txt(read(study / "jobs.txt"));
  int set = -1;
  std::string array_job;
  jobs_txt >> set >> array_job;
  ASSERT_EQ(set, 0);
  const Jobs jobs = wait_for_jobs("site-step-" + study_token_of(study) + "-set0", 3, 90s);
  std::map<std::uint64_t, std::string> state_of_task;
  for (const auto& job : jobs)
    if (job.array_task_id) state_of_task[*job.array_task_id] = job.state;
  EXPECT_EQ(state_of_task, (std::map<std::uint64_t, std::string>{{0, "COMPLETED"}, {1, "COMPLETED"}, {2, "FAILED"}}))
      << dump(jobs);

  // One record per task, written by the wrapper: the program wrote none.
  const auto plan = json::parse(read(study / "plan.json"));
  const double c = plan["machine_sets"][0]["marked_speed"].get<double>();
  std::map<double, json> by_n;
  for (int task = 0; task < 3; ++task) {
    const fs::path file = study / "records" / fmt::format("set0-{}_{}.jsonl", array_job, task);
    ASSERT_TRUE(fs::exists(file)) << file;
    std::istringstream lines(read(file));
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << file;
    const json record = json::parse(line);
    EXPECT_FALSE(std::getline(lines, line)) << "a second record in " << file << ": " << line;
    by_n[record["parameters"]["N"].get<double>()] = record;
  }
  ASSERT_EQ(by_n.size(), 3U);
  for (const auto& [n, record] : by_n) {
    SCOPED_TRACE(record.dump());
    EXPECT_EQ(record["timed_by"], "step");
    EXPECT_EQ(record["exit_status"], n == 3 ? 3 : 0);
    EXPECT_EQ(record["verified"], n != 3);
    EXPECT_EQ(record["work"].get<double>(), 1000 * n);
    EXPECT_EQ(record["marked_speed"].get<double>(), c);
    EXPECT_EQ(record["experiment"], "site-step");
    EXPECT_EQ(record["ranks"].size(), 2U);
    EXPECT_GE(record["wall_seconds"].get<double>(), n / 10) << "the step sleeps 0.N s";
    EXPECT_LT(record["wall_seconds"].get<double>(), 30);
  }

  r = run_command({HETSCALE_EXECUTABLE, "collect", "--db", db.uri(), study.string()}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(db.scalar("SELECT string_agg((parameters ->> 'N')::double precision || ' ' || timed_by || ' ' || "
                      "coalesce(exit_status::text, 'NULL'), ', ' ORDER BY (parameters ->> 'N')::double precision) "
                      "FROM hetscale.runs"),
            "1 step 0, 2 step 0, 3 step 3");
  // E_s of the steps that exited 0, none of the failed one.
  EXPECT_EQ(db.scalar("SELECT string_agg(parameter_value::text, ',' ORDER BY parameter_value) "
                      "FROM hetscale.run_efficiency WHERE experiment = 'site-step' AND speed_efficiency > 0"),
            "1,2");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.run_efficiency WHERE experiment = 'site-step'"), "2");
  for (const double n : {1.0, 2.0}) {
    const json& record = by_n.at(n);
    r = run_command({HETSCALE_EXECUTABLE, "efficiency", "--workload", "1000*N", "--speed", fmt::format("{:.17g}", c),
                     "--unit", record["speed_unit"].get<std::string>(), "--param", fmt::format("N={:g}", n),
                     "--seconds", fmt::format("{:.17g}", record["wall_seconds"].get<double>()), "--format", "json"},
                    30s);
    ASSERT_TRUE(r.ok()) << r.describe();
    const double expected = json::parse(r.out).at(0).at("speed_efficiency").get<double>();
    const double stored = std::stod(db.scalar(
        fmt::format("SELECT speed_efficiency FROM hetscale.run_efficiency WHERE parameter_value = {}", n)));
    EXPECT_NEAR(stored, expected, 1e-9 * expected) << "N = " << n;
  }

  // The failed step's task is not collected: status calls it failed, --resubmit runs it again.
  r = run_command({HETSCALE_EXECUTABLE, "status", "site-step", "--db", db.uri(), "--format", "json"}, 60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const json status = json::parse(r.out);
  ASSERT_EQ(status["sets"].size(), 1U) << r.out;
  EXPECT_EQ(status["sets"][0]["summary"], "round 0 set 0 (2 nodes): 3 tasks: 2 collected, 1 failed");
  r = run_command({HETSCALE_EXECUTABLE, "jobgen", "--resubmit", "--no-submit", "--db", db.uri(), "--experiment",
                   "site-step", "-o", (dir_ / "round1").string(), "--kernel-dir", HETSCALE_KERNEL_DIR},
                  60s);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_NE(r.out.find("round 0 set 0 array task 2 (N=3): failed (FAILED, job"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("array task 0 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("array task 1 "), std::string::npos) << r.out;
}

TEST_F(ProductionSite, AnUnknownQosIsSlurmsRefusalAtTheSpecsLine) {
  const std::string spec =
      "[experiment]\nname = \"site-qos\"\ntarget_efficiency = 0.3\n\n[code]\nkernel = \"mm\"\n\n"
      "[parameter]\nvalues = [64, 96]\n\n[machine_sets]\nstart = 2\nmax = 2\n\n[slurm]\ntime_limit = \"5\"\n"
      "qos = \"no-such-qos\"\n";
  const auto r = jobgen(spec, dir_ / "study");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(r.err, "hetscale jobgen: " + (dir_ / "experiment.toml").string() +
                       ":17:7: Slurm refuses set0.sbatch (sbatch --test-only): allocation failure: Invalid qos "
                       "specification\n");
  EXPECT_FALSE(fs::exists(dir_ / "study"));
}

// Where the site runs no accounting, sacct says so: collect names the fallback and status
// reads the ended jobs collected from jobcomp files.
TEST_F(ProductionSite, NoAccountingNamesTheFallback) {
  std::string conf = read(tb_.slurm_conf);
  const auto at = conf.find("AccountingStorageType=accounting_storage/slurmdbd");
  ASSERT_NE(at, std::string::npos);
  conf.replace(at, std::string("AccountingStorageType=accounting_storage/slurmdbd").size(),
               "AccountingStorageType=accounting_storage/none");
  std::ofstream(dir_ / "slurm.conf") << conf;
  const std::vector<std::string> env = {"SLURM_CONF=" + (dir_ / "slurm.conf").string()};
  TestDatabase db;
  db.migrate();
  const auto r = run_command({HETSCALE_EXECUTABLE, "collect", "--db", db.uri(), "--sacct"}, 60s, env);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(r.err,
            "hetscale collect: --sacct: this Slurm keeps no job accounting (Slurm accounting storage is disabled); "
            "load its job completion file instead: --jobcomp FILE (JobCompType=jobcomp/filetxt, JobCompLoc)\n");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.slurm_jobs"), "0");

  // status reads the collected jobs instead and says so; --resubmit refuses, since it
  // cannot tell failed tasks from pending or running ones.
  const std::string spec =
      "[experiment]\nname = \"site-fallback\"\ntarget_efficiency = 0.3\n\n[code]\nkernel = \"mm\"\n\n"
      "[parameter]\nvalues = [64, 96]\n\n[machine_sets]\nstart = 2\nmax = 2\n\n[slurm]\ntime_limit = \"5\"\n";
  auto g = jobgen(spec, dir_ / "study");
  ASSERT_TRUE(g.ok()) << g.describe();
  g = run_command({HETSCALE_EXECUTABLE, "collect", "--db", db.uri(), (dir_ / "study").string()}, 60s);
  ASSERT_TRUE(g.ok()) << g.describe();
  g = run_command({HETSCALE_EXECUTABLE, "status", "site-fallback", "--db", db.uri()}, 60s, env);
  ASSERT_TRUE(g.ok()) << g.describe();
  EXPECT_EQ(g.err, "note: this Slurm keeps no job accounting (Slurm accounting storage is disabled); job states are "
                   "the ended jobs collected into the database (hetscale collect --jobcomp FILE); pending and running "
                   "jobs are not seen\n");
  EXPECT_NE(g.out.find("round 0 set 0 (2 nodes): 2 tasks: 2 not submitted\n"), std::string::npos) << g.out;
  g = run_command({HETSCALE_EXECUTABLE, "jobgen", "--resubmit", "--db", db.uri(), "--experiment", "site-fallback", "-o",
                   (dir_ / "again").string()},
                  60s, env);
  EXPECT_EQ(g.exit_code, 1) << g.describe();
  EXPECT_NE(g.err.find("--resubmit needs Slurm's accounting (sacct)"), std::string::npos) << g.err;
  EXPECT_FALSE(fs::exists(dir_ / "again"));
}

}  // namespace
}  // namespace hetscale::test
