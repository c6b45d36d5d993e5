// `sacct --json` as Slurm 22.05 writes it (tests/fixtures/sacct, recorded on the testbed
// with slurmdbd), read into slurm_jobs rows.
#include "hetscale/collector/sacct.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "hetscale/base/error.hpp"

namespace hetscale::collector {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(HETSCALE_FIXTURES_DIR) + "/sacct/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string error_of(std::string_view text) {
  try {
    read_sacct_json(text, "out.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const std::string* field(const JobCompletion& job, std::string_view name) {
  for (const auto& [key, value] : job.fields)
    if (key == name) return &value;
  return nullptr;
}

class SacctJson : public ::testing::Test {
 protected:
  // Times are stored as local times: the tests read them in UTC.
  void SetUp() override {
    if (const char* tz = std::getenv("TZ")) saved_tz_ = tz;
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }
  void TearDown() override {
    if (saved_tz_) {
      ::setenv("TZ", saved_tz_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }
  std::optional<std::string> saved_tz_;
};

TEST_F(SacctJson, ReadsAnArrayWithACancelledTask) {
  const auto jobs = read_sacct_json(fixture("array_job.json"), "array_job.json");
  ASSERT_EQ(jobs.size(), 4U);
  // The array's own id is its last task's (task 3, cancelled while it ran on n4).
  const JobCompletion& cancelled = jobs[0];
  EXPECT_EQ(cancelled.job_id, 1U);
  EXPECT_EQ(cancelled.line, 1U);
  EXPECT_EQ(cancelled.cluster, "hetscale");
  EXPECT_EQ(cancelled.job_name, "wrap");
  EXPECT_EQ(cancelled.state, "CANCELLED");
  EXPECT_EQ(cancelled.array_job_id, 1U);
  EXPECT_EQ(cancelled.array_task_id, 3U);
  EXPECT_EQ(cancelled.node_list, "n4");
  EXPECT_EQ(cancelled.node_count, 1);
  EXPECT_EQ(cancelled.proc_count, 1);
  EXPECT_EQ(cancelled.partition, "testbed");
  EXPECT_EQ(cancelled.user_name, "root");
  EXPECT_EQ(cancelled.time_limit, "UNLIMITED");  // no --time, partition MaxTime=INFINITE
  // 1795493723 s after the epoch, in UTC.
  EXPECT_EQ(cancelled.start_time, "2026-11-24T04:15:23");
  EXPECT_EQ(cancelled.end_time, "2026-11-24T04:15:24");
  EXPECT_TRUE(cancelled.pending_array_tasks.empty());
  ASSERT_NE(field(cancelled, "state.reason"), nullptr);
  EXPECT_EQ(*field(cancelled, "state.reason"), "None");
  EXPECT_EQ(field(cancelled, "steps"), nullptr);  // the steps are not kept
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(jobs[i].state, "COMPLETED");
    EXPECT_EQ(jobs[i].array_task_id, i - 1);
    EXPECT_EQ(jobs[i].node_list, "n" + std::to_string(i));
  }
  EXPECT_EQ(ended_jobs(jobs).size(), 4U);
}

TEST_F(SacctJson, ReadsAFailedJobThatIsNoArrayTask) {
  const auto jobs = read_sacct_json(fixture("failed_job.json"), "failed_job.json");
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_EQ(jobs[0].job_id, 2U);
  EXPECT_EQ(jobs[0].state, "FAILED");
  EXPECT_FALSE(jobs[0].array_job_id.has_value());
  EXPECT_FALSE(jobs[0].array_task_id.has_value());
  EXPECT_EQ(jobs[0].node_list, "n5");
  EXPECT_TRUE(is_final_job_state(jobs[0].state));
}

TEST_F(SacctJson, APendingArrayIsOneEntryWithItsTasksAndIsNotStored) {
  const std::string text = R"({"errors": [], "jobs": [
    {"job_id": 7, "cluster": "c1", "name": "mm-set0", "state": {"current": "PENDING"},
     "array": {"job_id": 7, "task_id": null, "task": "1-4%1"}, "nodes": "None assigned",
     "time": {"start": 0, "end": 0, "submission": 1795493720, "limit": 90}},
    {"job_id": 8, "cluster": "c1", "name": "mm-set0", "state": {"current": "RUNNING"},
     "array": {"job_id": 7, "task_id": 0}, "nodes": "n1",
     "time": {"start": 1795493721, "end": 0, "limit": 1500}},
    {"job_id": 9, "cluster": "c1", "name": "x", "state": {"current": "CANCELLED"},
     "array": {"job_id": 0, "task_id": null}, "time": {"start": 0, "end": 1795493730}}]})";
  const auto jobs = read_sacct_json(text, "out.json");
  ASSERT_EQ(jobs.size(), 3U);
  EXPECT_EQ(jobs[0].pending_array_tasks, "1-4%1");
  EXPECT_FALSE(jobs[0].node_list.has_value());
  EXPECT_TRUE(jobs[0].start_time.empty());
  EXPECT_EQ(jobs[0].time_limit, "01:30:00");
  EXPECT_EQ(jobs[1].time_limit, "1-01:00:00");
  const auto ended = ended_jobs(jobs);
  ASSERT_EQ(ended.size(), 1U);  // cancelled before it started: its end is its start
  EXPECT_EQ(ended[0].job_id, 9U);
  EXPECT_EQ(ended[0].start_time, "2026-11-24T04:15:30");
}

TEST_F(SacctJson, RefusesWhatIsNotSacctOutput) {
  EXPECT_EQ(error_of("sacct: error: Problem talking to the database"),
            "out.json: not the JSON of sacct --json: [json.exception.parse_error.101] parse error at line 1, "
            "column 1: syntax error while parsing value - invalid literal; last read: 's'");
  EXPECT_EQ(error_of("[]"), "out.json: not the JSON of sacct --json: not an object");
  // A number JSON allows but no double holds (found by the fuzzer).
  EXPECT_EQ(error_of(R"({"jobs": [{"job_id": 2E999}]})").rfind("out.json: not the JSON of sacct --json: ", 0), 0U);
  EXPECT_EQ(error_of(R"({"meta": {}})"), "out.json: not the JSON of sacct --json: no \"jobs\" array");
  EXPECT_EQ(error_of(R"({"errors": [{"error": "Unable to connect"}], "jobs": []})"),
            "out.json: sacct reported errors: [{\"error\":\"Unable to connect\"}]");
  EXPECT_EQ(error_of(R"({"jobs": [{"cluster": "c", "name": "n", "state": {"current": "FAILED"}}]})"),
            "out.json: jobs[0]: no job_id");
  EXPECT_EQ(error_of(R"({"jobs": [{"job_id": "7", "cluster": "c", "name": "n", "state": {"current": "X"}}]})"),
            "out.json: jobs[0]: job_id must be a non-negative integer, got \"7\"");
  EXPECT_EQ(error_of(R"({"jobs": [{"job_id": 7, "name": "n", "state": {"current": "FAILED"}}]})"),
            "out.json: jobs[0]: no cluster");
  EXPECT_EQ(error_of(R"({"jobs": [{"job_id": 7, "cluster": "c", "name": "n", "state": "FAILED"}]})"),
            "out.json: jobs[0]: no state.current");
  EXPECT_EQ(error_of(R"({"jobs": [{"job_id": 7, "cluster": "c", "name": "n", "state": {"current": "FAILED"},
                        "time": {"start": -5}}]})"),
            "out.json: jobs[0]: time.start must be a non-negative integer, got -5");
}

}  // namespace
}  // namespace hetscale::collector
