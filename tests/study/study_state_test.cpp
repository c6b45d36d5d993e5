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

// A pending submission of the twin's chain keeps what it is and the experiment and round
// it goes to; one written before the twin's submissions were saved (no round) reads as
// round 0; a twin's submission in a study without the twin's chain is no state.
TEST(StudyState, KeepsAPendingTwinSubmission) {
  StudyState s = example();
  s.twin = TwinChain{};
  s.twin->phase = TwinPhase::simulate;
  s.twin->arrays = {{"mm", 1, 30, "/d/mm/twin-round1", 31}};
  s.submissions = 7;
  s.pending = PendingSubmission{.kind = PendingSubmission::Kind::twin_array,
                                .job_name = "mm-twin",
                                .comment = "hetscale-5e7a90c2-7",
                                .attempted = 1796514504,
                                .experiment = "mm",
                                .set_index = 0,
                                .round = 2,
                                .directory = "/d/mm/twin-round2"};
  const StudyState back = parse_state(state_json(s), "x");
  EXPECT_EQ(state_json(back), state_json(s));
  ASSERT_TRUE(back.pending.has_value());
  EXPECT_EQ(back.pending->kind, PendingSubmission::Kind::twin_array);
  EXPECT_EQ(back.pending->round, 2U);
  EXPECT_EQ(back.pending->experiment, "mm");
  s.pending->kind = PendingSubmission::Kind::twin_controller;
  EXPECT_EQ(parse_state(state_json(s), "x").pending->kind, PendingSubmission::Kind::twin_controller);
  std::string text = state_json(s);
  const std::string round = "\"round\": 2,";
  text.replace(text.find(round), round.size(), "");
  EXPECT_EQ(parse_state(text, "x").pending->round, 0U);
  s.twin.reset();
  EXPECT_THROW((void)parse_state(state_json(s), "x"), Error);
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
  EXPECT_TRUE(runs_as_controller(s, Chain::measured, 14));
  EXPECT_FALSE(runs_as_controller(s, Chain::measured, std::nullopt));  // outside any job: by hand
  EXPECT_FALSE(runs_as_controller(s, Chain::measured, 15));            // inside another job: by hand too
  EXPECT_FALSE(runs_as_controller(s, Chain::twin, 14));                // the study has no twin
  s.twin = TwinChain{};
  s.twin->arrays = {{"mm", 1, 20, "/d/mm/twin-round1", 21}, {"lu", 2, 22, "/d/lu/twin-round2", 23}};
  EXPECT_TRUE(runs_as_controller(s, Chain::twin, 21));
  EXPECT_TRUE(runs_as_controller(s, Chain::twin, 23));
  EXPECT_FALSE(runs_as_controller(s, Chain::twin, 14));  // the measured chain's controller is not the twin's
  EXPECT_FALSE(runs_as_controller(s, Chain::twin, 22));  // an array is no controller
  EXPECT_FALSE(runs_as_controller(s, Chain::measured, 21));
  s.controller.reset();
  EXPECT_FALSE(runs_as_controller(s, Chain::measured, 14));
}

// A study with a twin that runs beside the measured rounds: mm's twin in its round 1, lu's
// in its round 2, each with its controller.
StudyState with_twin() {
  StudyState s = example();
  s.twin = TwinChain{};
  s.twin->phase = TwinPhase::simulate;
  s.twin->arrays = {{"mm", 1, 29, "/d/mm/twin-round1", 31}, {"lu", 2, 30, "/d/lu/twin-round2", 32}};
  s.twin->begun = {"mm", "lu"};
  return s;
}

// A study spec of the experiments mm and lu, its twin starting `start`.
StudySpec mm_and_lu(TwinStart start) {
  StudySpec spec;
  spec.twin_start = start;
  for (const char* name : {"mm", "lu"}) {
    StudyExperiment e;
    e.spec.name = name;
    spec.experiments.push_back(e);
  }
  return spec;
}

TEST(StudyState, KeepsTheTwinsChain) {
  const StudyState s = with_twin();
  const StudyState back = parse_state(state_json(s), "x");
  ASSERT_TRUE(back.twin.has_value());
  EXPECT_EQ(back.twin->phase, TwinPhase::simulate);
  EXPECT_EQ(back.twin->array_job_ids(), (std::vector<std::uint64_t>{29, 30}));
  EXPECT_EQ(back.twin->controllers(), (std::vector<std::uint64_t>{31, 32}));
  EXPECT_EQ(back.twin->arrays[1].experiment, "lu");
  EXPECT_EQ(back.twin->arrays[1].round, 2u);
  EXPECT_EQ(back.twin->arrays[1].directory, "/d/lu/twin-round2");
  EXPECT_EQ(back.twin->begun, (std::vector<std::string>{"mm", "lu"}));
  EXPECT_EQ(state_json(back), state_json(s));
  // A study without a twin has no chain in its file.
  EXPECT_EQ(state_json(example()).find("twin_chain"), std::string::npos);
  EXPECT_FALSE(parse_state(state_json(example()), "x").twin.has_value());
  // An array whose controller is not submitted yet; a failed chain.
  StudyState waiting = s;
  waiting.phase = Phase::twin;
  waiting.twin->arrays[0].controller.reset();
  waiting.twin->phase = TwinPhase::failed;
  waiting.twin->failure = "twin collect (mm): 2 of 9 runs failed";
  const StudyState failed = parse_state(state_json(waiting), "x");
  EXPECT_EQ(failed.phase, Phase::twin);
  EXPECT_EQ(failed.twin->phase, TwinPhase::failed);
  EXPECT_EQ(failed.twin->failure, waiting.twin->failure);
  EXPECT_FALSE(failed.twin->arrays[0].controller.has_value());
  EXPECT_EQ(failed.twin->controllers(), (std::vector<std::uint64_t>{32}));
  std::string text = state_json(s);
  text.replace(text.find("\"simulate\""), 10, "\"dreaming\"");
  EXPECT_THROW((void)parse_state(text, "x"), Error);
}

TEST(StudyStep, TheTwinsArraysResume) {
  TwinChain t = with_twin().twin.value();
  EXPECT_EQ(twin_resume_action(t, true, true), ResumeAction::controller_active);
  EXPECT_EQ(twin_resume_action(t, false, true), ResumeAction::wait_for_arrays);
  EXPECT_EQ(twin_resume_action(t, false, false), ResumeAction::step_now);
  t.phase = TwinPhase::failed;  // its steps taken again
  EXPECT_EQ(twin_resume_action(t, false, false), ResumeAction::step_now);
  t.phase = TwinPhase::waiting;  // the measured chain begins it
  EXPECT_EQ(twin_resume_action(t, false, false), ResumeAction::finished);
  t.phase = TwinPhase::done;
  EXPECT_EQ(twin_resume_action(t, false, true), ResumeAction::finished);
  // The measured chain has nothing to resume once its rounds have ended.
  StudyState s = with_twin();
  s.phase = Phase::twin;
  EXPECT_EQ(resume_action(s, false, false), ResumeAction::finished);
}

// A twin controller's step takes its own array; one by hand every array whose controller
// has ended (or was never submitted).
TEST(StudyStep, TheTwinsArraysAStepTakes) {
  TwinChain t = with_twin().twin.value();  // mm: controller 31, lu: 32
  EXPECT_EQ(twin_arrays_to_step(t, 32, {31, 32}), (std::vector<std::size_t>{1}));
  EXPECT_EQ(twin_arrays_to_step(t, 31, {}), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(twin_arrays_to_step(t, 99, {}).empty());
  EXPECT_EQ(twin_arrays_to_step(t, std::nullopt, {31}), (std::vector<std::size_t>{1}));
  EXPECT_EQ(twin_arrays_to_step(t, std::nullopt, {}), (std::vector<std::size_t>{0, 1}));
  t.arrays[0].controller.reset();
  EXPECT_EQ(twin_arrays_to_step(t, std::nullopt, {32}), (std::vector<std::size_t>{0}));
}

TEST(StudyStep, TheControllersAStudyWaitsOnAndItsFailure) {
  StudyState s = with_twin();  // measured controller 14, the twin's 31 and 32
  EXPECT_EQ(awaited_controllers(s), (std::vector<std::uint64_t>{14, 31, 32}));
  EXPECT_TRUE(has_step(s, Chain::measured));
  EXPECT_TRUE(has_step(s, Chain::twin));
  EXPECT_FALSE(study_failure(s));
  s.phase = Phase::twin;  // the measured rounds have ended: the twin carries the study on
  EXPECT_EQ(awaited_controllers(s), (std::vector<std::uint64_t>{31, 32}));
  EXPECT_FALSE(has_step(s, Chain::measured));
  s.twin->phase = TwinPhase::failed;
  s.twin->failure = "twin refine (lu): no database";
  EXPECT_TRUE(awaited_controllers(s).empty());
  EXPECT_EQ(study_failure(s), std::optional<std::string>("twin: twin refine (lu): no database"));
  s.phase = Phase::failed;
  s.failure = "collect (measure round 1): job 3 ended FAILED";
  EXPECT_EQ(study_failure(s), std::optional<std::string>("collect (measure round 1): job 3 ended FAILED"));
  s = example();
  s.twin = TwinChain{};  // waiting: nothing to watch but the measured chain
  EXPECT_EQ(awaited_controllers(s), (std::vector<std::uint64_t>{14}));
  EXPECT_FALSE(has_step(s, Chain::twin));
}

// Beside: the measured chain's first step begins the twin's chain; after: once the
// measured rounds have ended. Whichever chain ends last writes the report.
TEST(StudyStep, WhenTheTwinsChainBeginsAndWhoWritesTheReport) {
  const StudySpec beside = mm_and_lu(TwinStart::beside);
  const StudySpec after = mm_and_lu(TwinStart::after);
  StudyState s = example();
  EXPECT_FALSE(twin_begins(s, beside, false));  // no twin
  EXPECT_EQ(after_measured(s), AfterMeasured::report);
  s.twin = TwinChain{};
  EXPECT_TRUE(twin_begins(s, beside, false));
  EXPECT_FALSE(twin_begins(s, after, false));
  EXPECT_TRUE(twin_begins(s, after, true));
  EXPECT_EQ(twin_experiments_to_begin(s, beside), (std::vector<std::string>{"mm", "lu"}));
  EXPECT_EQ(after_measured(s), AfterMeasured::wait_for_twin);
  s.twin->phase = TwinPhase::simulate;
  s.twin->begun = {"mm", "lu"};
  EXPECT_FALSE(twin_begins(s, beside, false));  // begun once only
  EXPECT_FALSE(twin_begins(s, after, true));
  EXPECT_EQ(after_measured(s), AfterMeasured::wait_for_twin);
  EXPECT_FALSE(twin_writes_report(s));  // the measured rounds still run: theirs writes it
  s.phase = Phase::twin;
  EXPECT_TRUE(twin_writes_report(s));
  s.twin->phase = TwinPhase::done;
  EXPECT_EQ(after_measured(s), AfterMeasured::report);
}

// A begin that failed partway (mm's first round submitted, lu's twin not begun: its plan
// or its sbatch failed, and so did the measured chain's step): the step taken again begins
// lu's twin alone, and the twin's chain does not end when mm's twin does while lu's is yet
// to begin.
TEST(StudyStep, ABeginThatFailedPartwayBeginsTheRestWhenTakenAgain) {
  const StudySpec beside = mm_and_lu(TwinStart::beside);
  const StudySpec after = mm_and_lu(TwinStart::after);
  StudyState s = example();
  s.phase = Phase::failed;
  s.failed_phase = Phase::measure;
  s.twin = TwinChain{};
  s.twin->phase = TwinPhase::simulate;
  s.twin->arrays = {{"mm", 0, 29, "/d/mm/twin", 31}};
  s.twin->begun = {"mm"};
  EXPECT_EQ(twin_experiments_to_begin(s, beside), (std::vector<std::string>{"lu"}));
  EXPECT_TRUE(twin_begins(s, beside, false));
  EXPECT_FALSE(twin_begins(s, after, false));  // after: once the measured rounds have ended
  EXPECT_TRUE(twin_begins(s, after, true));
  EXPECT_FALSE(twin_chain_ends(s, beside));
  s.twin->arrays.clear();  // mm's twin has ended: lu's is still to begin
  EXPECT_FALSE(twin_chain_ends(s, beside));
  EXPECT_TRUE(twin_begins(s, beside, false));
  s.twin->mark_begun("lu");
  s.twin->mark_begun("lu");  // once
  EXPECT_EQ(s.twin->begun, (std::vector<std::string>{"mm", "lu"}));
  EXPECT_TRUE(twin_chain_ends(s, beside));
  EXPECT_FALSE(twin_begins(s, beside, false));
  // The begun experiments are kept in the state file.
  EXPECT_EQ(parse_state(state_json(s), "x").twin->begun, (std::vector<std::string>{"mm", "lu"}));
}

TEST(StudyStep, ChainsByName) {
  EXPECT_EQ(chain_from("twin"), std::optional<Chain>(Chain::twin));
  EXPECT_EQ(chain_from(to_string(Chain::measured)), std::optional<Chain>(Chain::measured));
  EXPECT_FALSE(chain_from("Twin"));
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
