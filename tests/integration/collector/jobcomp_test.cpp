// Slurm job completions (jobcomp/filetxt): lines recorded on the testbed
// (tests/fixtures/collector/jobcomp-testbed.log: srun over 2 nodes, a 2-task array, a job
// exiting 3, a job named "a b", a job cancelled while held, one cancelled while running),
// loaded once, joined to runs; malformed lines named by file and line and set aside. Other
// lines are the recorded ones with some values changed (completion()).
#include "hetscale/slurm/jobcomp.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "hetscale/base/error.hpp"
#include "hetscale/collector/collect.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using slurm::JobRecord;

const fs::path sample = fs::path(HETSCALE_FIXTURES_DIR) / "collector/jobcomp-testbed.log";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const JobRecord& job(const std::vector<JobRecord>& jobs, std::uint64_t id) {
  for (const auto& j : jobs)
    if (j.job_id == id) return j;
  throw std::runtime_error("no job " + std::to_string(id));
}

// The recorded line of job `id` of the sample with the fields of `values` set, rebuilt from
// its one reading as Slurm writes a line.
std::string completion(std::uint64_t id, const std::map<std::string, std::string>& values) {
  std::ifstream in(sample);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("JobId=" + std::to_string(id) + " ", 0) != 0) continue;
    const auto readings = slurm::jobcomp_readings(line);
    if (readings.size() != 1) throw std::runtime_error("not a line that reads one way: " + line);
    std::string out;
    for (const auto& [key, value] : readings.front()) {
      const auto given = values.find(key);
      out += key + "=" + (given == values.end() ? value : given->second) + " ";
    }
    return out + "\n";
  }
  throw std::runtime_error("no job " + std::to_string(id));
}

TEST(Jobcomp, SplitsFieldsWhoseValuesHoldSpaces) {
  std::string line = completion(5, {});
  line.pop_back();  // the newline
  const auto readings = slurm::jobcomp_readings(line);
  ASSERT_EQ(readings.size(), 1u);
  const auto& fields = readings.front();
  EXPECT_EQ(fields[3], (std::pair<std::string, std::string>{"Name", "a b"}));
  EXPECT_EQ(fields[13], (std::pair<std::string, std::string>{"ReservationName", ""}));
  EXPECT_EQ(fields[14], (std::pair<std::string, std::string>{"Tres", "cpu=1,mem=1M,node=1,billing=1"}));
}

TEST(Jobcomp, ReadsTheTestbedsLines) {
  const auto jobs = slurm::read_jobcomp(sample).jobs;
  ASSERT_EQ(jobs.size(), 7u);
  const JobRecord& srun = job(jobs, 1);
  EXPECT_EQ(srun.line, 1u);
  EXPECT_EQ(srun.state, "COMPLETED");
  EXPECT_EQ(srun.user_name, "root");
  EXPECT_EQ(srun.partition, "testbed");
  EXPECT_EQ(srun.start_time, "2026-11-21T09:23:04");
  EXPECT_EQ(srun.node_list, "n[1-2]");
  EXPECT_EQ(srun.node_count, 2);
  EXPECT_EQ(srun.proc_count, 2);
  EXPECT_EQ(srun.exit_code, 0);
  EXPECT_FALSE(srun.array_job_id.has_value());
  // Array tasks: each its own job id, the array's id and the task index.
  EXPECT_EQ(job(jobs, 3).array_job_id, 2u);
  EXPECT_EQ(job(jobs, 3).array_task_id, 0u);
  EXPECT_EQ(job(jobs, 2).array_job_id, 2u);
  EXPECT_EQ(job(jobs, 2).array_task_id, 1u);
  EXPECT_EQ(job(jobs, 4).state, "FAILED");
  EXPECT_EQ(job(jobs, 4).exit_code, 3);
  EXPECT_EQ(job(jobs, 4).exit_signal, 0);
  EXPECT_EQ(job(jobs, 5).job_name, "a b");
  EXPECT_EQ(job(jobs, 5).time_limit, "1");
  const JobRecord& held = job(jobs, 6);  // cancelled before it ran
  EXPECT_EQ(held.state, "CANCELLED");
  EXPECT_FALSE(held.node_list.has_value());
  EXPECT_FALSE(held.eligible_time.has_value());
  EXPECT_EQ(held.node_count, 0);
}

TEST(Jobcomp, AMalformedLineIsNamedByFileAndLine) {
  std::istringstream bad_id(completion(1, {}) + "\n" + completion(4, {{"JobId", "x1"}}));
  const auto read = slurm::read_jobcomp(bad_id, "j.log");
  EXPECT_EQ(read.jobs.size(), 1u);
  ASSERT_EQ(read.set_aside.size(), 1u);
  EXPECT_EQ(read.set_aside[0].where.str() + ": " + read.set_aside[0].message,
            "j.log:3: JobId: expected an integer, got 'x1'");
  std::istringstream no_id("garbage line\n");
  EXPECT_EQ(error_of([&] { slurm::read_jobcomp(no_id, "j.log"); }).substr(0, 65),
            "j.log:1:1: not a jobcomp/filetxt line: expected 'JobId=' here (Sl");
  std::istringstream bad_time(completion(1, {{"StartTime", "2026-11-21"}}));
  EXPECT_EQ(error_of([&] { slurm::read_jobcomp(bad_time, "j.log"); }),
            "j.log:1: StartTime: expected a time YYYY-MM-DDTHH:MM:SS, got '2026-11-21'");
  std::istringstream never_started(completion(6, {{"StartTime", "Unknown"}}));
  EXPECT_EQ(error_of([&] { slurm::read_jobcomp(never_started, "j.log"); }),
            "j.log:1: StartTime: the job never started ('Unknown'); a completion needs its "
            "start time (the natural key)");
  std::istringstream bad_exit(completion(4, {{"ExitCode", "3"}}));
  EXPECT_EQ(error_of([&] { slurm::read_jobcomp(bad_exit, "j.log"); }),
            "j.log:1: ExitCode: expected code:signal, got '3'");
}

class JobcompLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.migrate();
    dir_ = fs::temp_directory_path() / ("hetscale-jobcomp-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  collector::CollectReport collect(std::vector<std::string> jobcomp,
                                   std::vector<std::string> inputs = {}, std::string cluster = "hetscale") {
    collector::CollectOptions options;
    options.jobcomp = std::move(jobcomp);
    options.cluster = std::move(cluster);
    options.inputs = std::move(inputs);
    std::istringstream no_stdin;
    std::ostringstream log;
    return collector::collect(db_.uri(), options, no_stdin, log);
  }

  TestDatabase db_;
  fs::path dir_;
};

TEST_F(JobcompLoad, LoadingAgainAddsNothing) {
  auto r = collect({sample.string()});
  EXPECT_EQ(r.jobs_read, 7u);
  EXPECT_EQ(r.jobs_added, 7);
  r = collect({sample.string()});
  EXPECT_EQ(r.jobs_added, 0);
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.slurm_jobs"), "7");
  EXPECT_EQ(db_.scalar("SELECT string_agg(job_id || ':' || array_task_id, ',' ORDER BY job_id) "
                       "FROM hetscale.slurm_jobs WHERE array_job_id = 2"),
            "2:1,3:0");
  EXPECT_EQ(db_.scalar("SELECT state || ' ' || exit_code || ' ' || start_time || ' ' || "
                       "source_line FROM hetscale.slurm_jobs WHERE job_id = 4"),
            "FAILED 3 2026-11-21 09:23:06 4");
  EXPECT_EQ(db_.scalar("SELECT fields ->> 'Tres' FROM hetscale.slurm_jobs WHERE job_id = 1"),
            "cpu=2,mem=2M,node=2,billing=2");
}

TEST_F(JobcompLoad, ALineThatSaysClusterUnknownTakesTheGivenName) {
  std::ofstream(dir_ / "other.log") << completion(1, {{"EndTime", "2026-11-21T09:23:05"}, {"Cluster", "other"}});
  collect({sample.string(), (dir_ / "other.log").string()});
  // Job 1 of two clusters is two jobs.
  EXPECT_EQ(db_.scalar("SELECT string_agg(cluster, ',' ORDER BY cluster) FROM hetscale.slurm_jobs "
                       "WHERE job_id = 1"),
            "hetscale,other");
  const std::string file = sample.string();
  EXPECT_EQ(error_of([&] { collect({file}, {}, ""); }),
            file + ":1: the job names no cluster (Cluster=unknown: slurmctld runs without accounting) and "
                   "Slurm's ClusterName is not known here: give it with --cluster NAME");
}

TEST_F(JobcompLoad, ARunMeetsTheJobOfItsOwnCluster) {
  std::ofstream(dir_ / "other.log") << completion(4, {{"JobState", "COMPLETED"},
                                                      {"StartTime", "2026-11-21T10:00:00"},
                                                      {"EndTime", "2026-11-21T10:01:00"},
                                                      {"Cluster", "other"},
                                                      {"ExitCode", "0:0"}});
  collect({sample.string(), (dir_ / "other.log").string()});
  nlohmann::json here = record_json("jobs", 100, 0, 0, 2e6, 1, 100, 2, 1);
  here["slurm"]["job_id"] = 4;
  here["slurm"]["cluster"] = "hetscale";
  nlohmann::json there = record_json("jobs", 100, 0, 1, 2e6, 1, 100, 2, 2);
  there["slurm"]["job_id"] = 4;
  there["slurm"]["cluster"] = "other";
  write_lines(dir_ / "runs.jsonl", dump_all({here, there}));
  collect({}, {(dir_ / "runs.jsonl").string()});
  EXPECT_EQ(db_.scalar("SELECT string_agg(cluster || ' ' || job_state, ',' ORDER BY repetition) "
                       "FROM hetscale.run_slurm_jobs"),
            "hetscale FAILED,other COMPLETED");
  EXPECT_EQ(db_.scalar("SELECT string_agg(slurm_cluster, ',' ORDER BY repetition) FROM hetscale.runs"),
            "hetscale,other");
}

TEST_F(JobcompLoad, ARequeuedJobIsKeptPerStartAndTheViewShowsTheLast) {
  std::ofstream(dir_ / "requeue.log") << completion(4, {{"JobState", "NODE_FAIL"},
                                                        {"StartTime", "2026-11-21T09:20:00"},
                                                        {"EndTime", "2026-11-21T09:21:00"},
                                                        {"ExitCode", "0:9"}});
  collect({sample.string(), (dir_ / "requeue.log").string()});
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.slurm_jobs WHERE job_id = 4"), "2");

  nlohmann::json run = record_json("jobs", 100, 0, 0, 2e6, 1, 100, 2, 1);
  run["slurm"]["job_id"] = 4;  // the testbed job that exited 3
  nlohmann::json unknown = record_json("jobs", 100, 0, 1, 2e6, 1, 100, 2, 2);
  unknown["slurm"]["job_id"] = 99;  // no completion loaded
  write_lines(dir_ / "runs.jsonl", dump_all({run, unknown}));
  collect({}, {(dir_ / "runs.jsonl").string()});
  EXPECT_EQ(db_.scalar("SELECT string_agg(slurm_job_id || ' ' || coalesce(job_state, 'none') || "
                       "' ' || coalesce(exit_code::text, '-'), ',' ORDER BY slurm_job_id) "
                       "FROM hetscale.run_slurm_jobs"),
            "4 FAILED 3,99 none -");
}

// Slurm writes job names as the user gave them, bytes and all: a name that is not UTF-8
// is stored with U+FFFD in place of its bad bytes, and the batch loads.
TEST_F(JobcompLoad, AJobNameThatIsNotUtf8Loads) {
  std::ofstream(dir_ / "latin1.log") << completion(5, {{"Name", "r\xe9sum\xe9"}});
  const auto r = collect({(dir_ / "latin1.log").string()});
  EXPECT_EQ(r.jobs_added, 1);
  EXPECT_EQ(r.replaced_bytes, 2u);
  EXPECT_EQ(db_.scalar("SELECT job_name || ' ' || (fields ->> 'Name') FROM hetscale.slurm_jobs WHERE job_id = 5"),
            "r\xef\xbf\xbdsum\xef\xbf\xbd r\xef\xbf\xbdsum\xef\xbf\xbd");
}

// A line that cannot be stored is set aside, named, and the rest of the file loads: a
// user's job name can break its own line, not the file.
TEST_F(JobcompLoad, AMalformedLineIsSetAsideAndTheRestLoads) {
  std::ifstream in(sample);
  std::ostringstream text;
  text << in.rdbuf() << completion(4, {{"JobId", "8"}, {"StartTime", "yesterday"}});
  std::ofstream(dir_ / "bad.log") << text.str();
  const std::string file = (dir_ / "bad.log").string();
  collector::CollectOptions options;
  options.jobcomp = {file};
  options.cluster = "hetscale";
  std::istringstream no_stdin;
  std::ostringstream log;
  const auto r = collector::collect(db_.uri(), options, no_stdin, log);
  EXPECT_EQ(r.jobs_added, 7);
  EXPECT_EQ(r.jobs_set_aside, 1u);
  EXPECT_EQ(log.str(), "collect: set aside " + file +
                           ":8: StartTime: expected a time YYYY-MM-DDTHH:MM:SS, got 'yesterday' (not stored)\n");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.slurm_jobs"), "7");
  // A file of which no line is a job completion is no jobcomp file: nothing loads.
  std::ofstream(dir_ / "none.log") << completion(4, {{"StartTime", "yesterday"}});
  const std::string none = (dir_ / "none.log").string();
  EXPECT_EQ(error_of([&] { collect({none}); }),
            none + ":1: StartTime: expected a time YYYY-MM-DDTHH:MM:SS, got 'yesterday'");
}

}  // namespace
}  // namespace hetscale::test
