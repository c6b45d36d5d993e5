#include "hetscale/study/study_state.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "hetscale/base/error.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/study/study_step.hpp"

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

StudyState example() {
  StudyState s;
  s.spec = "/s/testbed.toml";
  s.site = "/s/site.toml";
  s.db = "postgresql:///x";
  s.kernel_dir = "/bin";
  s.partitions = "/p";
  s.hetscale = "/bin/hetscale";
  s.phase = Phase::measure;
  s.round = 1;
  s.arrays = {{"mm", 0, 12, "/d/mm/round1"}, {"mm", 1, 13, "/d/mm/round1"}};
  s.controller = 14;
  s.study_token = "5e7a90c2";
  record(s, "submitted", "round 1");
  return s;
}

TEST(StudyState, RoundTripsThroughItsFile) {
  const fs::path dir = fs::temp_directory_path() / ("study-state-" + std::to_string(::getpid()));
  const StudyState s = example();
  save_state(dir, s);
  const StudyState back = load_state(dir);
  EXPECT_EQ(state_json(back), state_json(s));
  EXPECT_EQ(back.array_job_ids(), (std::vector<std::uint64_t>{12, 13}));
  EXPECT_EQ(back.controller, std::optional<std::uint64_t>(14));
  EXPECT_EQ(back.study_token, "5e7a90c2");
  ASSERT_EQ(back.history.size(), 1u);
  EXPECT_EQ(back.history[0].stage, "submitted");
  fs::remove_all(dir);
}

TEST(StudyState, ItsFileHoldsNoPasswordAndIsTheOwnersOnly) {
  const fs::path dir = fs::temp_directory_path() / ("study-state-pw-" + std::to_string(::getpid()));
  StudyState s = example();
  s.db = "postgresql://alice:s3cret@db.example:5432/hetscale?password=other&sslmode=require";
  s.failure = "collect: cannot connect to postgresql://alice:s3cret@db.example/hetscale";
  save_state(dir, s);
  const std::string text = read_text_file(state_path(dir), "study state");
  EXPECT_EQ(text.find("s3cret"), std::string::npos) << text;
  EXPECT_EQ(text.find("other"), std::string::npos) << text;
  EXPECT_EQ(load_state(dir).db, "postgresql://alice@db.example:5432/hetscale?sslmode=require");
  EXPECT_EQ(fs::status(state_path(dir)).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  fs::remove_all(dir);
}

TEST(StudyState, KeepsTheTwinNodesGivenOnlyWhenGiven) {
  StudyState s = example();
  EXPECT_EQ(state_json(s).find("twin_nodes"), std::string::npos);
  EXPECT_FALSE(parse_state(state_json(s), "x").twin_nodes.has_value());
  s.twin_nodes = 0;  // --twin-nodes 0: no twin stage
  EXPECT_EQ(parse_state(state_json(s), "x").twin_nodes, std::optional<std::uint32_t>(0));
}

// A submission whose job id is not recorded (sbatch's outcome unknown) and the count that
// numbers the comments are kept; a state without them (a study begun before) reads as none.
TEST(StudyState, KeepsAPendingSubmission) {
  StudyState s = example();
  EXPECT_EQ(state_json(s).find("pending"), std::string::npos);
  s.submissions = 3;
  PendingSubmission p;
  p.kind = PendingSubmission::Kind::array;
  p.job_name = "mm-5e7a90c2-r1-set2";
  p.comment = "hetscale-5e7a90c2-3";
  p.attempted = 1796514504;
  p.experiment = "mm";
  p.set_index = 2;
  p.directory = "/d/mm/round1";
  s.pending = p;
  const StudyState back = parse_state(state_json(s), "x");
  EXPECT_EQ(state_json(back), state_json(s));
  ASSERT_TRUE(back.pending.has_value());
  EXPECT_EQ(back.pending->comment, "hetscale-5e7a90c2-3");
  EXPECT_EQ(back.pending->set_index, 2U);
  EXPECT_EQ(back.submissions, 3U);
  s.pending->kind = PendingSubmission::Kind::controller;
  EXPECT_EQ(parse_state(state_json(s), "x").pending->kind, PendingSubmission::Kind::controller);
  std::string text = state_json(s);
  text.replace(text.find("\"controller\","), 13, "\"anything\",");
  EXPECT_THROW((void)parse_state(text, "x"), Error);
}

// A study begun without a token has jobs named without one: its state says none.
TEST(StudyState, KeepsTheStudyTokenWhenItHasOne) {
  StudyState s = example();
  s.study_token.clear();
  EXPECT_EQ(state_json(s).find("study_token"), std::string::npos);
  EXPECT_EQ(parse_state(state_json(s), "x").study_token, "");
  std::string text = state_json(example());
  text.replace(text.find("\"5e7a90c2\""), 10, "\"5e7a90c2 && x\"");
  try {
    (void)parse_state(text, "x.json");
    FAIL() << "a token that is none was read";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "x.json: study_token must be 8 lowercase hexadecimal digits");
  }
}

TEST(StudyState, KeepsTheStageWhoseStepFailed) {
  StudyState s = example();
  EXPECT_EQ(state_json(s).find("failed_stage"), std::string::npos);
  s.phase = Phase::failed;
  s.failed_phase = Phase::rerun;
  const StudyState back = parse_state(state_json(s), "x");
  EXPECT_EQ(back.phase, Phase::failed);
  EXPECT_EQ(back.failed_phase, std::optional<Phase>(Phase::rerun));
}

TEST(StudyState, RefusesWhatIsNoState) {
  EXPECT_THROW((void)parse_state("{}", "x.json"), Error);
  StudyState s = example();
  std::string text = state_json(s);
  text.replace(text.find("\"measure\""), 9, "\"dancing\"");
  try {
    (void)parse_state(text, "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "x.json: unknown stage 'dancing'");
  }
  EXPECT_THROW((void)load_state(fs::temp_directory_path() / "no-such-study-dir"), Error);
}

TEST(StudyStep, ResumeDecisions) {
  StudyState s = example();
  EXPECT_EQ(resume_action(s, true, true), ResumeAction::controller_active);
  EXPECT_EQ(resume_action(s, false, true), ResumeAction::wait_for_arrays);
  EXPECT_EQ(resume_action(s, false, false), ResumeAction::step_now);
  s.phase = Phase::done;
  EXPECT_EQ(resume_action(s, true, true), ResumeAction::finished);
  s.phase = Phase::failed;
  EXPECT_EQ(resume_action(s, false, false), ResumeAction::finished);  // no stage to take again
  // A failed step is taken again, as its stage.
  s.failed_phase = Phase::measure;
  EXPECT_EQ(resume_action(s, false, false), ResumeAction::step_now);
  EXPECT_EQ(resume_action(s, false, true), ResumeAction::wait_for_arrays);
  EXPECT_EQ(resume_action(s, true, false), ResumeAction::controller_active);
}

TEST(StudyStep, RunsAsControllerOnlyInsideTheStatesControllerJob) {
  StudyState s = example();  // controller 14
  EXPECT_TRUE(runs_as_controller(s, 14));
  EXPECT_FALSE(runs_as_controller(s, std::nullopt));  // outside any job: by hand
  EXPECT_FALSE(runs_as_controller(s, 15));            // inside another job: by hand too
  s.controller.reset();
  EXPECT_FALSE(runs_as_controller(s, 14));
}

TEST(StudyStep, AfterARound) {
  EXPECT_EQ(after_round(0, 2, false), AfterRound::refine);
  EXPECT_EQ(after_round(1, 2, true), AfterRound::refine);
  EXPECT_EQ(after_round(2, 2, false), AfterRound::finish);
  EXPECT_EQ(after_round(2, 2, true), AfterRound::rerun);
  EXPECT_EQ(after_round(0, 0, true), AfterRound::rerun);
}

}  // namespace
}  // namespace hetscale::study
