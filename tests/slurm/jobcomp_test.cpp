// jobcomp/filetxt lines of Slurm 22.05, 24.11 and 26.05, as recorded from the real releases
// (tests/fixtures/slurm/<release>/jobcomp.log and README.md).
#include "hetscale/slurm/jobcomp.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "recorded.hpp"

namespace hetscale::slurm {
namespace {

using test::recorded;
using test::releases;

TEST(Jobcomp, EveryReleasesLinesGiveTheSameJobs) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    std::istringstream in(recorded(release, "jobcomp.log"));
    const auto jobs = read_jobcomp(in, "jobcomp.log");
    ASSERT_EQ(jobs.size(), 10U);
    std::map<std::string, std::vector<JobRecord>> named;
    for (const JobRecord& job : jobs) {
      EXPECT_EQ(job.cluster, "hetscale");
      EXPECT_EQ(job.user_name, "root");
      EXPECT_FALSE(job.start_time.empty());
      EXPECT_TRUE(is_final_job_state(job.state));
      named[job.job_name].push_back(job);
    }
    EXPECT_EQ(named.at("timeout").at(0).state, "TIMEOUT");
    EXPECT_EQ(named.at("completed").at(0).exit_code, 0);
    // jobcomp keeps the exit code that 22.05's sacct --json loses.
    EXPECT_EQ(named.at("failed").at(0).exit_code, 3);
    EXPECT_EQ(named.at("failed").at(0).exit_signal, 0);
    EXPECT_EQ(named.at("signalled").at(0).exit_signal, 9);
    EXPECT_EQ(named.at("cancelled").at(0).state, "CANCELLED");
    EXPECT_EQ(named.at("held").at(0).state, "CANCELLED");
    EXPECT_EQ(named.at("held").at(0).start_time, *named.at("held").at(0).end_time);  // never ran
    EXPECT_EQ(named.at("step").at(0).node_count, 2);
    ASSERT_EQ(named.at("array").size(), 3U);
    for (const JobRecord& task : named.at("array")) EXPECT_EQ(task.array_job_id, 7U);
  }
}

}  // namespace
}  // namespace hetscale::slurm
