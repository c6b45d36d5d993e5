// Slurm's answers to hetscale's questions, as recorded from 22.05, 24.11 and 26.05 (the
// command that made each file is in tests/fixtures/slurm/<release>/README.md).
#include "hetscale/slurm/queries.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hetscale/base/error.hpp"
#include "hetscale/slurm/sacct.hpp"
#include "recorded.hpp"

namespace hetscale::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::recorded;
using test::releases;

TEST(SlurmAnswers, SbatchTestOnlyAcceptsAndRefusesInEveryRelease) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    EXPECT_EQ(test_only_outcome(0, recorded(release, "sbatch-test-only-accepted.txt")).status,
              SubmissionTest::Status::accepted);
    const auto qos = test_only_outcome(1, recorded(release, "sbatch-test-only-refused-qos.txt"));
    EXPECT_EQ(qos.status, SubmissionTest::Status::refused);
    EXPECT_EQ(qos.detail, "allocation failure: Invalid qos specification");
    const auto partition = test_only_outcome(1, recorded(release, "sbatch-test-only-refused-partition.txt"));
    EXPECT_EQ(partition.status, SubmissionTest::Status::refused);
    EXPECT_EQ(partition.detail, "allocation failure: Invalid partition name specified");
  }
  EXPECT_EQ(test_only_outcome(1, "sbatch: error: Batch job submission failed: Unable to contact slurm controller")
                .status,
            SubmissionTest::Status::unreachable);
  EXPECT_EQ(test_only_outcome(-1, "sbatch gave no answer within 10 s").status, SubmissionTest::Status::unreachable);
}

TEST(SlurmAnswers, SbatchParsableGivesTheJobIdInEveryRelease) {
  for (std::string_view release : releases) {
    EXPECT_EQ(parsable_job_id(recorded(release, "sbatch-parsable.txt")), 3U) << release;
    EXPECT_EQ(parsable_job_id(recorded(release, "sbatch-parsable-dependency.txt")), 9U) << release;
  }
  EXPECT_EQ(parsable_job_id("12;cluster2\n"), 12U);
  EXPECT_FALSE(parsable_job_id("sbatch: error: invalid partition specified").has_value());
  EXPECT_FALSE(parsable_job_id("").has_value());
}

TEST(SlurmAnswers, SqueueListsEachArrayOnceInEveryRelease) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const auto ids = squeue_job_ids(recorded(release, "squeue-active.txt"));
    EXPECT_EQ(ids.size(), 7U);  // the array (7) listed once for its running and pending tasks
    EXPECT_EQ(std::count(ids.begin(), ids.end(), 7U), 1);
    EXPECT_TRUE(squeue_job_ids(recorded(release, "squeue-ended.txt")).empty());
    EXPECT_THAT(recorded(release, "squeue-unknown-job.txt.stderr"), HasSubstr("Invalid job id"));
  }
  EXPECT_THROW((void)squeue_job_ids("7\nJOBID\n"), Error);
}

TEST(SlurmAnswers, SacctWithoutAccountingIsToldApartInEveryRelease) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const auto none = accounting_outcome(1, "", recorded(release, "sacct-json-accounting-none.txt"));
    EXPECT_EQ(none.status, AccountingQuery::Status::disabled);
    EXPECT_EQ(none.detail, "Slurm accounting storage is disabled");
    const auto answered = accounting_outcome(0, recorded(release, "sacct-json-jobs.json"), "");
    EXPECT_EQ(answered.status, AccountingQuery::Status::answered);
    EXPECT_FALSE(answered.json.empty());
  }
  EXPECT_EQ(accounting_outcome(1, "", "sacct: error: Problem talking to the database: Connection refused").status,
            AccountingQuery::Status::unreachable);
}

// sbatch ended without saying whether Slurm took the job: only then is the job looked up.
TEST(SlurmAnswers, ASubmissionWhoseOutcomeIsNotKnownIsToldApart) {
  using End = ProgramOutput::End;
  EXPECT_TRUE(submission_outcome_unknown(End::timed_out, -1, "sbatch gave no answer within 120 s"));
  EXPECT_TRUE(submission_outcome_unknown(End::too_much_output, -1, ""));
  EXPECT_TRUE(submission_outcome_unknown(End::exited, 128 + 9, ""));  // killed
  EXPECT_TRUE(submission_outcome_unknown(
      End::exited, 1, "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation"));
  EXPECT_TRUE(submission_outcome_unknown(End::exited, 1, "sbatch: error: Zero Bytes were transmitted or received"));
  EXPECT_FALSE(submission_outcome_unknown(End::exited, 0, "7\n"));
  EXPECT_FALSE(submission_outcome_unknown(End::not_started, -1, "sbatch: No such file or directory"));
  for (std::string_view release : releases)
    EXPECT_FALSE(submission_outcome_unknown(End::exited, 1, recorded(release, "sbatch-test-only-refused-qos.txt")))
        << release;
  EXPECT_FALSE(submission_outcome_unknown(
      End::exited, 1, "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)"));
}

// The names recording's array (job 6, two tasks), submitted held with a comment: squeue
// lists it once by the array's id beside its comment; sacct, whose accounting keeps no job
// comments there, by its name and submission time.
TEST(SlurmAnswers, ASubmittedJobIsFoundByItsCommentInEveryRelease) {
  for (std::string_view release : releases) {
    SCOPED_TRACE(release);
    const std::string queued = recorded(release, "names/squeue-comment.txt");
    EXPECT_EQ(squeue_job_with_comment(queued, "hetscale-0123abcd-1"), 6U);
    EXPECT_FALSE(squeue_job_with_comment(queued, "hetscale-0123abcd-2").has_value());
    EXPECT_FALSE(squeue_job_with_comment("", "hetscale-0123abcd-1").has_value());
    const auto jobs = read_sacct_json(recorded(release, "names/sacct-json-commented.json"), "sacct").jobs;
    ASSERT_EQ(jobs.size(), 2U);
    const std::string submitted = *jobs[0].submit_time;
    EXPECT_EQ(sacct_job_with_comment(jobs, "commented", "hetscale-0123abcd-1", submitted), 6U);
    EXPECT_FALSE(sacct_job_with_comment(jobs, "other", "hetscale-0123abcd-1", submitted).has_value());
    // Where the accounting keeps job comments, a job of another comment is another's.
    auto commented = jobs;
    for (JobRecord& job : commented) {
      std::erase_if(job.fields, [](const auto& field) { return field.first == "comment.job"; });
      job.fields.emplace_back("comment.job", "hetscale-0123abcd-9");
    }
    EXPECT_FALSE(sacct_job_with_comment(commented, "commented", "hetscale-0123abcd-1", submitted).has_value());
    EXPECT_EQ(sacct_job_with_comment(commented, "commented", "hetscale-0123abcd-9", submitted), 6U);
    // Submitted before the time asked from: another submission's.
    EXPECT_FALSE(sacct_job_with_comment(jobs, "commented", "hetscale-0123abcd-1", "2099-01-01T00:00:00").has_value());
  }
  EXPECT_THROW((void)squeue_job_with_comment("x|hetscale-0123abcd-1\n", "hetscale-0123abcd-1"), Error);
}

// The outcome of a round's submit.sh as submit_round reads it: a script killed by a signal
// (as at its bound) or one whose sbatch lost its answer may have submitted sets, so it
// throws SubmissionOutcomeUnknown naming jobs.txt; one Slurm refused throws a plain Error.
TEST(SubmitRound, AScriptThatEndsWithoutAnAnswerLeavesTheOutcomeUnknown) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hetscale-submit-round-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto outcome_of = [&](const std::string& body) {
    {
      std::ofstream script(dir / "submit.sh");
      script << "#!/bin/sh\n" << body << "\n";
    }
    fs::permissions(dir / "submit.sh", fs::perms::owner_all);
    try {
      (void)submit_round(dir.string());
    } catch (const SubmissionOutcomeUnknown& e) {
      return "unknown: " + std::string(e.what());
    } catch (const Error& e) {
      return "error: " + std::string(e.what());
    }
    return std::string("submitted");
  };
  EXPECT_EQ(outcome_of("echo 'set 0: job 12'; kill -KILL $$"),
            "unknown: submitting " + dir.string() +
                " ended without saying whether Slurm took every set (submit.sh exited with status 137: set 0: job "
                "12): " +
                (dir / "jobs.txt").string() +
                " names the sets submitted before it ended, and a set it does not name may be in Slurm too (squeue "
                "--me); submitting again may run a set twice");
  EXPECT_THAT(outcome_of("echo 'sbatch: error: Batch job submission failed: Socket timed out on send/recv "
                         "operation' >&2; exit 1"),
              ::testing::StartsWith("unknown: "));
  EXPECT_EQ(outcome_of("echo 'sbatch: error: invalid partition specified: x' >&2; exit 1"),
            "error: submitting " + dir.string() + " failed: sbatch: error: invalid partition specified: x\n");
  EXPECT_EQ(outcome_of("echo 'set 0: job 12'"), "submitted");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetscale::slurm
