// The rounds of one experiment as hetscale jobgen writes them (study/rounds.hpp), without a
// Slurm to ask (SLURM_CONF names no file: every check says what it could not check) and
// without a database: round 0 written with its inputs, the rounds so far read back from
// their directories and records, the next round planned and written, or nothing to refine.
#include "hetscale/study/rounds.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <utility>

#include "hetscale/base/text_file.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/site/site_table.hpp"
#include "round_records.hpp"

namespace hetscale::study {
namespace {

const std::string study_token = "0a1b2c3d";  // fixed: the same job names on every run

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::StartsWith;

const fs::path site_file = fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "site-example.toml";
const fs::path spec_file = fs::path(HETSCALE_SOURCE_DIR) / "examples" / "experiments" / "mm.toml";

// Everything a call says, in order.
struct Said {
  std::vector<std::pair<LineKind, std::string>> lines;
  [[nodiscard]] Say say() {
    return [this](LineKind kind, const std::string& line) { lines.emplace_back(kind, line); };
  }
};

class Rounds : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  [[nodiscard]] std::string no_slurm() const {
    return "Slurm not reachable (SLURM_CONF names no file: " + (root_ / "no-slurm.conf").string() + ")";
  }

  // Round 0 of mm on the example site, written into `dir` as `hetscale jobgen` writes it.
  jobgen::Round first_round(const fs::path& dir, Said& said) const {
    const jobgen::Round planned =
        jobgen::plan_round(jobgen::load_experiment_spec(spec_file), load_site_table(site_file), study_token);
    return write_new_round(planned, jobgen_round_check(planned, "", false), {dir, [] { return std::string("/opt/k"); }},
                           {{"experiment.toml", read_text_file(spec_file, "experiment spec"), false},
                            {"site.toml", read_text_file(site_file, "site table"), false}},
                           said.say());
  }

  fs::path root_ = fs::temp_directory_path() / ("hetscale-study-rounds-" + std::to_string(::getpid()));
  test::NoSlurm no_slurm_{root_ / "no-slurm.conf"};
};

TEST_F(Rounds, RoundSummaryCountsTheSetsWithSizesToRun) {
  jobgen::Round round = jobgen::plan_round(jobgen::load_experiment_spec(spec_file), load_site_table(site_file), study_token);
  ASSERT_EQ(round.sets.size(), 3U);
  EXPECT_EQ(round_summary(round, "d"), "wrote d: 3 machine sets (2, 4, 8 nodes), 15 array tasks x 2 repetitions; "
                                       "submit with d/submit.sh\n");
  round.sets[1].parameter_values.clear();
  round.sets[2].parameter_values.clear();
  round.spec.repetitions = 1;
  EXPECT_EQ(round_summary(round, "d"), "wrote d: 1 machine set (2 nodes), 5 array tasks x 1 repetition; submit with "
                                       "d/submit.sh\n");
}

TEST_F(Rounds, ANewRoundIsWrittenWithItsInputsAndSaysWhatSlurmCouldNotCheck) {
  Said said;
  const fs::path dir = root_ / "mm";
  const jobgen::Round round = first_round(dir, said);
  EXPECT_EQ(round.number, 0U);
  ASSERT_EQ(said.lines.size(), 2U);
  EXPECT_EQ(said.lines[0], std::make_pair(LineKind::note,
                                          "hetscale jobgen: note: " + no_slurm() +
                                              "; machine sets not checked against its node states and partition "
                                              "'batch', scripts not tested with sbatch --test-only\n"));
  EXPECT_EQ(said.lines[1], std::make_pair(LineKind::result, round_summary(round, dir.string())));
  for (const char* file : {"set0.sbatch", "set2.sbatch", "submit.sh", "plan.json", "experiment.toml", "site.toml"})
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  EXPECT_TRUE(fs::is_directory(dir / "records"));
  EXPECT_NE(read_text_file(dir / "set0.sbatch", "script").find("/opt/k"), std::string::npos);
  // A directory that is not empty is refused, with nothing written.
  Said again;
  EXPECT_THROW((void)first_round(dir, again), Error);
}

TEST_F(Rounds, TheRoundsSoFarComeFromTheirDirectoriesAndTheNextRoundFromTheirRuns) {
  Said said;
  const fs::path first = root_ / "mm";
  (void)first_round(first, said);
  test::write_mm_records(first / "records" / "set0-10_0.jsonl", 0, 100, {400, 566, 800, 1131, 1600});
  test::write_mm_records(first / "records" / "set1-11_0.jsonl", 1, 200, {800, 1000, 1200});
  std::ofstream(first / "records" / "other.jsonl") << R"({"experiment": "other", "machine_set": 7})" << '\n';

  const RefinementInput input = refinement_from_directories("mm-scaling", {first}, "");
  EXPECT_EQ(input.latest.number, 0U);
  EXPECT_EQ(input.latest.spec.name, "mm-scaling");
  EXPECT_EQ(input.runs.size(), 8U);  // not the other experiment's
  ASSERT_EQ(input.inputs.size(), 2U);
  EXPECT_EQ(input.inputs[0].path, "experiment.toml");
  EXPECT_EQ(input.inputs[1].content, read_text_file(site_file, "site table"));
  // Two directories: the round is the second's number.
  EXPECT_EQ(refinement_from_directories("mm-scaling", {first, first}, "").latest.number, 1U);

  Said planned;
  const jobgen::Round next = next_round(input.latest, input.runs, planned.say());
  EXPECT_EQ(next.number, 1U);
  ASSERT_EQ(planned.lines.size(), 3U);
  EXPECT_THAT(planned.lines[0].second, StartsWith("set 0: the fitted curve reaches 0.3 at "));
  EXPECT_EQ(planned.lines[1].second, "set 1: E_s = 0.3 at 1000 is within 2% of the target 0.3\n");
  EXPECT_EQ(planned.lines[2].second, "set 2: no runs collected\n");
  EXPECT_EQ(next.sets[0].parameter_values.size(), 5U);
  EXPECT_TRUE(next.sets[1].parameter_values.empty());
  EXPECT_TRUE(jobgen::has_jobs(next));
}

TEST_F(Rounds, ARefinedRoundIsWrittenOrThereIsNothingToRefine) {
  Said said;
  const fs::path first = root_ / "mm";
  (void)first_round(first, said);
  test::write_mm_records(first / "records" / "set0-10_0.jsonl", 0, 100, {400, 566, 800, 1131, 1600});
  const fs::path next = root_ / "round1";
  Said refined;
  const auto round =
      write_refined_round(refinement_from_directories("mm-scaling", {first}, ""),
                          {next, [] { return std::string("/opt/k"); }}, refined.say());
  ASSERT_TRUE(round);
  EXPECT_EQ(round->number, 1U);
  ASSERT_EQ(refined.lines.size(), 5U);  // three sets, the note, the summary
  EXPECT_EQ(refined.lines[3].first, LineKind::note);
  EXPECT_THAT(refined.lines[3].second, StartsWith("hetscale jobgen: note: " + no_slurm() + "; machine sets not"));
  EXPECT_EQ(refined.lines[4], std::make_pair(LineKind::result, round_summary(*round, next.string())));
  EXPECT_TRUE(fs::exists(next / "set0.sbatch"));
  EXPECT_FALSE(fs::exists(next / "set1.sbatch"));

  // Runs that reach the target on the one set measured: nothing to refine, nothing
  // written, and the kernel directory never asked for.
  fs::remove_all(first / "records");
  fs::create_directories(first / "records");
  test::write_mm_records(first / "records" / "set0-10_0.jsonl", 0, 100, {1000});
  Said nothing;
  const auto none = write_refined_round(refinement_from_directories("mm-scaling", {first}, ""),
                                        {root_ / "round1b", []() -> std::string { throw Error("asked"); }},
                                        nothing.say());
  EXPECT_FALSE(none);
  ASSERT_FALSE(nothing.lines.empty());
  EXPECT_EQ(nothing.lines.back(),
            std::make_pair(LineKind::result, std::string("nothing to refine: no files written\n")));
  EXPECT_FALSE(fs::exists(root_ / "round1b"));
}

TEST_F(Rounds, TheRoundsSoFarMustBeOfTheExperimentNamed) {
  Said said;
  const fs::path first = root_ / "mm";
  (void)first_round(first, said);
  try {
    (void)refinement_from_directories("ge-chain", {first}, "");
    FAIL() << "no error";
  } catch (const OptionValueError& e) {
    EXPECT_EQ(std::string(e.what()), first.string() + " holds experiment 'mm-scaling', not 'ge-chain'");
  }
}

}  // namespace
}  // namespace hetscale::study
