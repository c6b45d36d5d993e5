// jobcomp/filetxt lines of Slurm 22.05, 24.11 and 26.05, as recorded from the real releases
// (tests/fixtures/slurm/<release>/jobcomp.log and README.md), and the lines of jobs whose
// names a user chose to break them (tests/fixtures/slurm/<release>/names/).
#include "hetscale/slurm/jobcomp.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <sstream>

#include "hetscale/base/error.hpp"
#include "recorded.hpp"

namespace hetscale::slurm {
namespace {

using test::recorded;
using test::releases;

JobcompFile read_recorded(std::string_view release, std::string_view file) {
  std::istringstream in(recorded(release, file));
  return read_jobcomp(in, std::string(file));
}

const JobRecord* job_of(const JobcompFile& file, std::uint64_t id) {
  for (const JobRecord& job : file.jobs)
    if (job.job_id == id) return &job;
  return nullptr;
}

// The recorded line of job `id` (names/ has ids from 1).
std::string line_of(std::string_view release, std::string_view file, std::uint64_t id) {
  std::istringstream in(recorded(release, file));
  const std::string start = "JobId=" + std::to_string(id) + " ";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(start, 0) == 0) return line;
  throw std::runtime_error("no line of job " + std::to_string(id));
}

// The number of the recorded line that starts with `start` (names/ has ids from 1).
std::uint32_t number_of_line(std::string_view release, std::string_view file, const std::string& start) {
  std::istringstream in(recorded(release, file));
  std::uint32_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind(start, 0) == 0) return number;
  }
  throw std::runtime_error("no line starting " + start);
}

// Line `number` (from 1) of a recorded file.
std::string nth_line(std::string_view release, std::string_view file, std::uint32_t number) {
  std::istringstream in(recorded(release, file));
  std::string line;
  for (std::uint32_t i = 0; i < number && std::getline(in, line); ++i) {
  }
  return line;
}

// The message a line of the file was set aside with; empty when it was not.
std::string set_aside_at(const JobcompFile& file, std::uint32_t line) {
  for (const SetAsideLine& aside : file.set_aside)
    if (aside.where.line == line) return aside.message;
  return {};
}

// The line with field `name`'s value replaced, rebuilt from its one reading.
std::string with_value(const std::string& line, const std::string& name, const std::string& value) {
  const auto readings = jobcomp_readings(line);
  if (readings.size() != 1) throw std::runtime_error("not a line that reads one way: " + line);
  std::string out;
  for (const auto& [key, old] : readings.front()) out += key + "=" + (key == name ? value : old) + " ";
  return out;
}

TEST(Jobcomp, EveryReleasesLinesGiveTheSameJobs) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const JobcompFile file = read_recorded(release, "jobcomp.log");
    EXPECT_TRUE(file.set_aside.empty());
    EXPECT_EQ(file.replaced_bytes, 0U);
    const auto& jobs = file.jobs;
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

// Every line Slurm writes reads exactly one way, its fields in Slurm's order.
TEST(Jobcomp, EveryRecordedLineReadsOneWay) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    std::istringstream in(recorded(release, "jobcomp.log"));
    for (std::string line; std::getline(in, line);) {
      const auto readings = jobcomp_readings(line);
      ASSERT_EQ(readings.size(), 1U) << line;
      EXPECT_EQ(readings[0].front().first, "JobId");
      EXPECT_EQ(readings[0][3].first, "Name");
      EXPECT_EQ(readings[0].back().first, "ExitCode");
    }
  }
}

// A job named `a JobState=COMPLETED ExitCode=0:0 Cluster=x` that exits 3 (job 3 of the
// names recording): its name stays its name, and its state, exit code and cluster are
// Slurm's.
TEST(Jobcomp, ANameThatReadsAsFieldsSuppliesNone) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const JobcompFile file = read_recorded(release, "names/jobcomp.log");
    const JobRecord* spoof = job_of(file, 3);
    ASSERT_NE(spoof, nullptr);
    EXPECT_EQ(spoof->job_name, "a JobState=COMPLETED ExitCode=0:0 Cluster=x");
    EXPECT_EQ(spoof->state, "FAILED");
    EXPECT_EQ(spoof->exit_code, 3);
    EXPECT_EQ(spoof->cluster, "hetscale");
    EXPECT_EQ(spoof->node_list, "n2");
  }
}

// Job 4's name fakes every field from JobState= to WorkDir=: the line reads two ways (the
// fake fields with the real ones in WorkDir, or the real ones), so it is set aside,
// naming the job and the fields in doubt; the other jobs of the file are read.
TEST(Jobcomp, ALineThatReadsTwoWaysIsSetAside) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const JobcompFile file = read_recorded(release, "names/jobcomp.log");
    EXPECT_EQ(job_of(file, 4), nullptr);
    bool named = false;
    for (const SetAsideLine& line : file.set_aside) {
      if (line.message.rfind("job 4: ", 0) != 0) continue;
      named = true;
      EXPECT_EQ(line.where.line, 4U);
      EXPECT_EQ(line.message,
                "job 4: the line reads more than one way, with different Name, JobState, StartTime, EndTime, "
                "NodeList, WorkDir: a value a user chose (a job name, a working directory) holds text that reads as "
                "the fields after it");
    }
    EXPECT_TRUE(named);
    EXPECT_NE(job_of(file, 2), nullptr);
    EXPECT_NE(job_of(file, 3), nullptr);
  }
}

// A working directory that reads as the fields after it makes the line read two ways too;
// the fields after the last chosen value (Cluster, times, exit codes) are Slurm's in both.
TEST(Jobcomp, AWorkingDirectoryThatReadsAsFieldsMakesTheLineReadTwoWays) {
  const std::string line =
      with_value(line_of("22.05", "jobcomp.log", 3), "WorkDir",
                 "/tmp/x ReservationName= Tres=cpu=1 Account=fake QOS=fake WcKey= Cluster=fake "
                 "SubmitTime=2026-01-01T00:00:00 EligibleTime=2026-01-01T00:00:00 DerivedExitCode=0:0 "
                 "ExitCode=0:0");
  const auto readings = jobcomp_readings(line);
  ASSERT_EQ(readings.size(), 2U);
  for (const auto& fields : readings) {
    for (const auto& [name, value] : fields) {
      if (name == "Cluster") {
        EXPECT_EQ(value, "hetscale");
      } else if (name == "ExitCode") {
        EXPECT_EQ(value, "0:0");
      }
    }
  }
}

// Every job the reader takes from the names recording's jobcomp file (slurmctld's own
// text) is the job slurmdbd has: the same name, state, exit code and working directory as
// `sacct -P` prints them (names/sacct-parsable.txt), an independent reader of the same jobs.
// But for one documented limit (jobcomp.hpp): job 9's working directory holds a whole
// line's tail, a line break and a forged line, so the text before the break reads as a
// complete line of job 9 with the tail its user wrote, and only sacct has the rest of the
// working directory.
TEST(Jobcomp, TheNamesRecordingsJobsAreTheJobsSacctPrints) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const auto rows = test::sacct_parsable_rows(release);
    const JobcompFile file = read_recorded(release, "names/jobcomp.log");
    // Jobs 2, 3 and 9; the others' lines are set aside (BadBytesAndLineBreaksInNamesFailNothing).
    ASSERT_EQ(file.jobs.size(), 3U);
    for (const JobRecord& job : file.jobs) {
      const std::string id = test::sacct_parsable_id(job);
      SCOPED_TRACE(id);
      ASSERT_EQ(rows.count(id), 1U);
      const auto& row = rows.at(id);
      EXPECT_EQ(test::as_slurmdbd_stores(job.job_name), row.name);
      EXPECT_EQ(job.state, row.state);
      ASSERT_TRUE(job.exit_code && job.exit_signal);
      EXPECT_EQ(std::to_string(*job.exit_code) + ":" + std::to_string(*job.exit_signal), row.exit_code);
      if (job.job_id != 9) {
        EXPECT_EQ(test::as_slurmdbd_stores(job.work_dir), row.work_dir);
        continue;
      }
      const std::string read = test::as_slurmdbd_stores(job.work_dir);
      EXPECT_EQ(row.work_dir.substr(0, read.size()), read);
      EXPECT_EQ(row.work_dir.substr(read.size(), 18), " ReservationName= ");
      EXPECT_NE(row.work_dir.find("\nJobId=1 "), std::string::npos);
    }
  }
}

// The byte that is not UTF-8 in job 1's name and job 2's working directory is read as
// U+FFFD and counted; a name or working directory with a line break splits its job's line
// in two (jobs 5 and 8), and every piece that is no job completion line is set aside while
// the rest is read.
TEST(Jobcomp, BadBytesAndLineBreaksInNamesFailNothing) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const JobcompFile file = read_recorded(release, "names/jobcomp.log");
    EXPECT_EQ(file.replaced_bytes, 2U);
    std::istringstream first_line(line_of(release, "names/jobcomp.log", 1));
    const JobcompFile job_1 = read_jobcomp(first_line, "job 1");
    ASSERT_EQ(job_1.jobs.size(), 1U);
    EXPECT_EQ(job_1.jobs[0].job_name, "bad\xEF\xBF\xBDname");
    ASSERT_NE(job_of(file, 2), nullptr);
    EXPECT_EQ(job_of(file, 2)->work_dir.substr(job_of(file, 2)->work_dir.size() - 9), "dir\xEF\xBF\xBD" "bad");
    EXPECT_EQ(job_of(file, 5), nullptr);
    EXPECT_EQ(job_of(file, 8), nullptr);
    std::size_t broken = 0;
    for (const SetAsideLine& line : file.set_aside)
      if (line.message.rfind("not a jobcomp/filetxt line: ", 0) == 0) ++broken;
    EXPECT_EQ(broken, 3U);
    // 2, 3 and 9; 1 has a forged second line (AJobWhoseLinesNameTwoUsersIsSetAside), the
    // array's tasks are next to a line break (ALineAfterALineBreakIsSetAsideWithItsNeighbours).
    std::vector<std::uint64_t> ids;
    for (const JobRecord& job : file.jobs) ids.push_back(job.job_id);
    EXPECT_EQ(ids, (std::vector<std::uint64_t>{2, 3, 9}));
  }
}

// Job 8's working directory holds a line break and after it the head of a jobcomp line of
// job 2 as hetscale-test's; Slurm's tail of job 8's line completes it. That line reads,
// one way, as another user's job: it is set aside because the line before it (job 8's,
// cut short inside its working directory) is no job completion line, and so is the line
// on the other side (an array task of job 6). Job 5's name does the same with a line that
// does not read, and job 7, an array task, next to it, is set aside too.
TEST(Jobcomp, ALineAfterALineBreakIsSetAsideWithItsNeighbours) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const std::string log = "names/jobcomp.log";
    const JobcompFile file = read_recorded(release, log);
    const std::uint32_t cut = number_of_line(release, log, "JobId=8 ");
    const std::uint32_t forged = number_of_line(release, log, "JobId=2 UserId=hetscale-test(");
    ASSERT_EQ(forged, cut + 1);
    // The forgery is complete: on its own the line reads one way, as hetscale-test's job 2.
    std::istringstream alone(nth_line(release, log, forged));
    const JobcompFile forged_alone = read_jobcomp(alone, "forged");
    ASSERT_EQ(forged_alone.jobs.size(), 1U);
    EXPECT_EQ(forged_alone.jobs[0].job_id, 2U);
    EXPECT_EQ(forged_alone.jobs[0].user_name, "hetscale-test");
    EXPECT_EQ(forged_alone.jobs[0].state, "COMPLETED");
    // Beside the broken line it is not stored, and says why.
    EXPECT_EQ(set_aside_at(file, forged),
              "job 2: next to line " + std::to_string(cut) +
                  ", which is no jobcomp/filetxt line (where a line break in a job name or working directory falls): "
                  "a user can write a whole line of any job beside such a break, so this line cannot be told from "
                  "Slurm's");
    // The line before the broken one, an array task of job 6, is set aside too.
    EXPECT_EQ(set_aside_at(file, cut - 1).rfind("job 6: next to line " + std::to_string(cut) + ", ", 0), 0U)
        << set_aside_at(file, cut - 1);
    for (const JobRecord& job : file.jobs) EXPECT_EQ(job.user_name, "root") << job.job_id;
    // Job 2's own line is stored as Slurm wrote it.
    ASSERT_NE(job_of(file, 2), nullptr);
    EXPECT_EQ(job_of(file, 2)->job_name, "bad-dir");
    // Job 5's line break: the lines on both sides of its two pieces.
    const std::uint32_t five = number_of_line(release, log, "JobId=5 ");
    EXPECT_EQ(set_aside_at(file, five + 2).rfind("job 7: next to line " + std::to_string(five + 1) + ", ", 0), 0U)
        << set_aside_at(file, five + 2);
    EXPECT_EQ(job_of(file, 7), nullptr);
  }
}

// Job 9's working directory fakes the rest of its own line before a line break, and after
// it writes job 1's line as hetscale-test's: both of its lines read. Job 1 then has two
// lines naming different users, and which is Slurm's cannot be told: both are set aside.
// (Job 9's own line is stored as it reads, fake tail and all: jobcomp/filetxt cannot vouch
// for it, docs/collector.md.)
TEST(Jobcomp, AJobWhoseLinesNameTwoUsersIsSetAside) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const std::string log = "names/jobcomp.log";
    const JobcompFile file = read_recorded(release, log);
    const std::uint32_t forged = number_of_line(release, log, "JobId=1 UserId=hetscale-test(");
    EXPECT_EQ(job_of(file, 1), nullptr);
    const std::string said = set_aside_at(file, 1);
    EXPECT_EQ(said.rfind("job 1 of cluster hetscale: its lines name different users (line 1 root(0), line " +
                             std::to_string(forged) + " hetscale-test(",
                         0),
              0U)
        << said;
    EXPECT_NE(said.find("): a user can write a line of another user's job after a line break in a job name or "
                        "working directory, so which is Slurm's cannot be told"),
              std::string::npos)
        << said;
    EXPECT_EQ(set_aside_at(file, forged), said);
    ASSERT_NE(job_of(file, 9), nullptr);
    EXPECT_EQ(*job_of(file, 9)->submit_time, "2026-01-01T00:00:00");  // faked: nothing tells
  }
  // A requeued job's lines name one user: both are stored.
  const std::string line = line_of("22.05", "jobcomp.log", 4);
  std::istringstream requeued(line + "\n" + with_value(line, "StartTime", "2026-01-01T00:00:00") + "\n");
  EXPECT_EQ(read_jobcomp(requeued, "j.log").jobs.size(), 2U);
}

TEST(Jobcomp, WhatIsNoJobCompletionIsNamedByFileLineAndColumn) {
  const std::string good = line_of("22.05", "jobcomp.log", 4);
  auto error_of = [](const std::string& text) {
    std::istringstream in(text);
    try {
      (void)read_jobcomp(in, "j.log");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("garbage line\n"),
            "j.log:1:1: not a jobcomp/filetxt line: expected 'JobId=' here (Slurm writes JobId= UserId= GroupId= "
            "Name= JobState= Partition= TimeLimit= StartTime= EndTime= NodeList= NodeCnt= ProcCnt= WorkDir= "
            "ReservationName= Tres= Account= QOS= WcKey= Cluster= SubmitTime= EligibleTime= [ArrayJobId= "
            "ArrayTaskId=] [HetJobId= HetJobOffset=] DerivedExitCode= ExitCode=)");
  // The job's line cut short after its state.
  const std::string cut = good.substr(0, good.find(" Partition="));
  const std::string said = error_of(cut + "\n");
  EXPECT_EQ(said.rfind("j.log:1:" + std::to_string(cut.size() + 1) +
                           ": not a jobcomp/filetxt line: expected 'Partition=' here (",
                       0),
            0U)
      << said;
  EXPECT_EQ(error_of(with_value(good, "JobId", "x1")), "j.log:1: JobId: expected an integer, got 'x1'");
  EXPECT_EQ(error_of(with_value(good, "StartTime", "2026-11-21")),
            "j.log:1: StartTime: expected a time YYYY-MM-DDTHH:MM:SS, got '2026-11-21'");
  EXPECT_EQ(error_of(with_value(good, "StartTime", "Unknown")),
            "j.log:1: StartTime: the job never started ('Unknown'); a completion needs its start time (the natural "
            "key)");
  EXPECT_EQ(error_of(with_value(good, "ExitCode", "3")), "j.log:1: ExitCode: expected code:signal, got '3'");
  // Among good lines, a bad one is set aside, the others read.
  std::istringstream mixed(good + "\n" + with_value(good, "ExitCode", "3") + "\n" + good + "\n");
  const JobcompFile file = read_jobcomp(mixed, "j.log");
  EXPECT_EQ(file.jobs.size(), 2U);
  ASSERT_EQ(file.set_aside.size(), 1U);
  EXPECT_EQ(file.set_aside[0].where.str(), "j.log:2");
  EXPECT_EQ(file.set_aside[0].message, "ExitCode: expected code:signal, got '3'");
}

// A working directory full of " ReservationName= Tres=t Account=a" and a line that reads
// no way (no SubmitTime=): every place the working directory may end is tried, and from
// each every place ReservationName may end, each asking how Account reads from there. Each
// answer is counted once and looked up by its field and position: the line is read in a
// moment, not in time cubic in its length (a sanity bound only).
TEST(Jobcomp, ALineFullOfFieldNamesReadsWithinASanityBound) {
  std::string line = "JobId=1 UserId=u(1) GroupId=g(1) Name=n JobState=COMPLETED Partition=p TimeLimit=1 "
                     "StartTime=2026-01-01T00:00:00 EndTime=2026-01-01T00:00:01 NodeList=n1 NodeCnt=1 ProcCnt=1 "
                     "WorkDir=/w";
  for (int i = 0; i < 3000; ++i) line += " ReservationName= Tres=t Account=a";
  line += " QOS=q WcKey= Cluster=c EligibleTime=2026-01-01T00:00:00 DerivedExitCode=0:0 ExitCode=0:0";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(jobcomp_readings(line).empty());
  // About 0.5 s optimized and 11 s in the sanitizer build (-O0, ASan); a reader cubic in
  // the line's length would take hours.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

}  // namespace
}  // namespace hetscale::slurm
