// A submission whose outcome was unknown, settled as Slurm answered (settle_pending_as):
// the job found goes into the chain it belongs to, the measured one's or the twin's.
#include "hetscale/study/study_submission.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/study/study_step.hpp"

namespace hetscale::study {
namespace {

StudyState twin_study() {
  StudyState s;
  s.study_token = "5e7a90c2";
  s.round = 1;
  s.arrays = {{"mm", 0, 12, "/d/mm/round1"}};
  s.controller = 14;
  s.twin = TwinChain{};
  return s;
}

PendingSubmission submission(PendingSubmission::Kind kind, const std::string& job_name, const std::string& experiment,
                             std::uint32_t set_index, std::uint32_t round, const std::string& directory) {
  return {.kind = kind,
          .job_name = job_name,
          .comment = "hetscale-5e7a90c2-9",
          .attempted = 1796514504,
          .experiment = experiment,
          .set_index = set_index,
          .round = round,
          .directory = directory};
}

PendingSubmission twin_job(PendingSubmission::Kind kind, const std::string& experiment, std::uint32_t round,
                           const std::string& directory) {
  const bool array = kind == PendingSubmission::Kind::twin_array;
  return submission(kind, array ? experiment + "-twin" : "study-twin-controller", experiment, 0, round, directory);
}

// A twin's first round whose sbatch gave no answer, found in Slurm: the experiment's array
// of the twin's chain, which now simulates (its controller follows, from resume); the
// measured chain's arrays and controller untouched.
TEST(SettlePendingSubmission, AdoptsATwinArrayIntoTheTwinsChain) {
  StudyState s = twin_study();
  s.pending = twin_job(PendingSubmission::Kind::twin_array, "mm", 0, "/d/mm/twin");
  const std::string said = settle_pending_as(s, 812);
  EXPECT_FALSE(s.pending.has_value());
  ASSERT_EQ(s.twin->arrays.size(), 1U);
  const TwinArray& a = s.twin->arrays[0];
  EXPECT_EQ(a.experiment, "mm");
  EXPECT_EQ(a.round, 0U);
  EXPECT_EQ(a.job_id, 812U);
  EXPECT_EQ(a.directory, "/d/mm/twin");
  EXPECT_FALSE(a.controller.has_value());
  EXPECT_EQ(s.twin->phase, TwinPhase::simulate);
  EXPECT_EQ(s.twin->begun, (std::vector<std::string>{"mm"}));  // not begun again by a step taken again
  EXPECT_EQ(s.array_job_ids(), (std::vector<std::uint64_t>{12}));
  EXPECT_EQ(s.controller, std::optional<std::uint64_t>(14));
  EXPECT_NE(said.find("job 812 of mm's twin round 0 (mm-twin) found in Slurm"), std::string::npos) << said;
  EXPECT_EQ(s.history.back().text, said);
}

// A later round of one experiment's twin takes the place of its round before; the other
// experiment's array and controller stay.
TEST(SettlePendingSubmission, AdoptsATwinsLaterRoundInPlaceOfItsRoundBefore) {
  StudyState s = twin_study();
  s.twin->phase = TwinPhase::simulate;
  s.twin->arrays = {{"mm", 0, 812, "/d/mm/twin", 813}, {"lu", 1, 820, "/d/lu/twin-round1", 821}};
  s.pending = twin_job(PendingSubmission::Kind::twin_array, "mm", 1, "/d/mm/twin-round1");
  (void)settle_pending_as(s, 830);
  ASSERT_EQ(s.twin->arrays.size(), 2U);
  EXPECT_EQ(s.twin->array_job_ids(), (std::vector<std::uint64_t>{830, 820}));
  EXPECT_EQ(s.twin->arrays[0].round, 1U);
  EXPECT_EQ(s.twin->arrays[0].directory, "/d/mm/twin-round1");
  EXPECT_FALSE(s.twin->arrays[0].controller.has_value());
  EXPECT_EQ(s.twin->controllers(), (std::vector<std::uint64_t>{821}));
}

// A twin controller found: the controller of its experiment's round, as the twin's chain
// knows its controllers (a step inside it runs as that chain's controller), not the
// measured chain's.
TEST(SettlePendingSubmission, AdoptsATwinControllerAsItsRoundsController) {
  StudyState s = twin_study();
  s.twin->phase = TwinPhase::simulate;
  s.twin->arrays = {{"mm", 1, 830, "/d/mm/twin-round1", std::nullopt}};
  s.pending = twin_job(PendingSubmission::Kind::twin_controller, "mm", 1, "");
  (void)settle_pending_as(s, 831);
  EXPECT_FALSE(s.pending.has_value());
  EXPECT_EQ(s.twin->arrays[0].controller, std::optional<std::uint64_t>(831));
  EXPECT_EQ(s.controller, std::optional<std::uint64_t>(14));
  EXPECT_TRUE(runs_as_controller(s, Chain::twin, 831));
  EXPECT_FALSE(runs_as_controller(s, Chain::measured, 831));
  EXPECT_EQ(awaited_controllers(s), (std::vector<std::uint64_t>{14, 831}));
}

// A twin controller whose round the chain does not hold has nowhere to go: an Error, the
// submission kept for a look at the state.
TEST(SettlePendingSubmission, RefusesATwinControllerWithoutItsRound) {
  StudyState s = twin_study();
  s.twin->phase = TwinPhase::simulate;
  s.twin->arrays = {{"mm", 2, 840, "/d/mm/twin-round2", std::nullopt}};
  s.pending = twin_job(PendingSubmission::Kind::twin_controller, "mm", 1, "");
  EXPECT_THROW((void)settle_pending_as(s, 831), Error);
  EXPECT_TRUE(s.pending.has_value());
  EXPECT_FALSE(s.twin->arrays[0].controller.has_value());
}

// Slurm has no such job: the submission is dropped, the twin's chain as it was (a first
// round's array lost leaves the chain waiting, to begin again).
TEST(SettlePendingSubmission, DropsATwinSubmissionSlurmDoesNotKnow) {
  StudyState s = twin_study();
  s.pending = twin_job(PendingSubmission::Kind::twin_array, "mm", 0, "/d/mm/twin");
  const std::string said = settle_pending_as(s, std::nullopt);
  EXPECT_FALSE(s.pending.has_value());
  EXPECT_TRUE(s.twin->arrays.empty());
  EXPECT_EQ(s.twin->phase, TwinPhase::waiting);
  EXPECT_NE(said.find("did not reach Slurm"), std::string::npos) << said;
}

// The measured chain's jobs go where they always went: a set's array into the phase's
// arrays, the controller as the study's controller; the twin's chain untouched.
TEST(SettlePendingSubmission, AdoptsTheMeasuredChainsJobsIntoIt) {
  StudyState s = twin_study();
  s.controller.reset();
  s.pending = submission(PendingSubmission::Kind::array, "mm-5e7a90c2-r1-set1", "mm", 1, 0, "/d/mm/round1");
  (void)settle_pending_as(s, 13);
  EXPECT_EQ(s.array_job_ids(), (std::vector<std::uint64_t>{12, 13}));
  EXPECT_EQ(s.arrays.back().set_index, 1U);
  s.pending = submission(PendingSubmission::Kind::controller, "study-controller", "", 0, 0, "");
  (void)settle_pending_as(s, 15);
  EXPECT_EQ(s.controller, std::optional<std::uint64_t>(15));
  EXPECT_TRUE(s.twin->arrays.empty());
  EXPECT_EQ(s.twin->phase, TwinPhase::waiting);
}

}  // namespace
}  // namespace hetscale::study
