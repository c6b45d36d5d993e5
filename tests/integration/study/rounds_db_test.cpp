// The rounds of one experiment read from a database (study/rounds.hpp) on the fixture's
// PostgreSQL server, with no Slurm to ask: round 0 written and collected with its records,
// then what the next round is planned from is the same from the database alone, from the
// round's directory with the database's runs and from its records; and a resubmission
// refuses where Slurm keeps no accounting.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <utility>

#include "hetscale/base/text_file.hpp"
#include "hetscale/base/utc_time.hpp"
#include "hetscale/collector/collect.hpp"
#include "hetscale/collector/pg.hpp"
#include "hetscale/collector/slurm_jobs.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/jobgen/scripts.hpp"
#include "hetscale/jobgen/task_status.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/slurm/queries.hpp"
#include "hetscale/study/rounds.hpp"
#include "hetscale/study/stored_rounds.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

const std::string study_token = "0a1b2c3d";  // fixed: the same job names on every run

namespace fs = std::filesystem;

const fs::path site_file = fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "site-example.toml";
const fs::path spec_file = fs::path(HETSCALE_SOURCE_DIR) / "examples" / "experiments" / "mm.toml";

// 1/E_s = 2 + k/W with W = 2 N^3: the target 0.3 is reached at N = 1000.
double model_efficiency(double n) {
  constexpr double k = (1 / 0.3 - 2) * 2e9;
  return 1 / (2 + k / (2 * n * n * n));
}

class RoundsFromDatabase : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hetscale-study-rounds-db-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    first_ = root_ / "mm";
    db_.migrate();
    if (const char* conf = std::getenv("SLURM_CONF")) saved_conf_ = conf;
    ::setenv("SLURM_CONF", (root_ / "no-slurm.conf").c_str(), 1);  // mm.toml names partition "batch"
    const jobgen::Round planned =
        jobgen::plan_round(jobgen::load_experiment_spec(spec_file), load_site_table(site_file), study_token);
    round0_ = study::write_new_round(
        planned, study::jobgen_round_check(planned, "", false), {first_, [] { return std::string("/opt/k"); }},
        {{"experiment.toml", read_text_file(spec_file, "experiment spec"), false},
         {"site.toml", read_text_file(site_file, "site table"), false}},
        [](LineKind, const std::string&) {});
    for (const auto& set : round0_.sets) {
      std::vector<std::string> lines;
      for (double n : set.parameter_values) {
        const double work = 2 * n * n * n;
        const double seconds = work / (model_efficiency(n) * set.set.marked_speed * 1e6);
        lines.push_back(record_json("mm-scaling", n, static_cast<int>(set.set.index), 0, work, seconds,
                                    set.set.marked_speed, static_cast<int>(set.members.size()), serial_++)
                            .dump());
      }
      write_lines(first_ / "records" / ("set" + std::to_string(set.set.index) + ".jsonl"), lines);
    }
  }
  void TearDown() override {
    saved_conf_ ? ::setenv("SLURM_CONF", saved_conf_->c_str(), 1) : ::unsetenv("SLURM_CONF");
    fs::remove_all(root_);
  }

  void collect_first() const {
    collector::CollectOptions options;
    options.inputs = {first_.string()};
    std::istringstream no_stdin;
    std::ostringstream log;
    (void)collector::collect(db_.uri(), options, no_stdin, log);
  }

  fs::path root_;
  fs::path first_;
  TestDatabase db_;
  std::optional<std::string> saved_conf_;
  jobgen::Round round0_;
  int serial_ = 0;
};

TEST_F(RoundsFromDatabase, TheRoundsSoFarAreTheSameFromTheDatabaseAsFromTheirDirectory) {
  collect_first();
  const study::RefinementInput stored = study::refinement_from_database(db_.uri(), "mm-scaling");
  const study::RefinementInput with_db = study::refinement_from_directories("mm-scaling", {first_}, db_.uri());
  const study::RefinementInput records = study::refinement_from_directories("mm-scaling", {first_}, "");
  EXPECT_EQ(stored.latest.number, 0U);
  ASSERT_EQ(stored.latest.sets.size(), round0_.sets.size());
  for (std::size_t k = 0; k < round0_.sets.size(); ++k) {
    EXPECT_EQ(stored.latest.sets[k].set.nodes, round0_.sets[k].set.nodes);
    EXPECT_EQ(stored.latest.sets[k].parameter_values, round0_.sets[k].parameter_values);
  }
  EXPECT_EQ(stored.latest.spec.text, read_text_file(spec_file, "experiment spec"));
  // The database's round goes with the spec alone (its plan holds the site).
  ASSERT_EQ(stored.inputs.size(), 1U);
  EXPECT_EQ(stored.inputs[0].path, "experiment.toml");
  EXPECT_EQ(with_db.inputs.size(), 2U);
  ASSERT_EQ(stored.runs.size(), records.runs.size());
  ASSERT_EQ(with_db.runs.size(), records.runs.size());
  // The same next round from each.
  const auto quiet = [](LineKind, const std::string&) {};
  const jobgen::Round a = study::next_round(stored.latest, stored.runs, quiet);
  const jobgen::Round b = study::next_round(with_db.latest, with_db.runs, quiet);
  const jobgen::Round c = study::next_round(records.latest, records.runs, quiet);
  for (std::size_t k = 0; k < a.sets.size(); ++k) {
    EXPECT_EQ(a.sets[k].parameter_values, c.sets[k].parameter_values) << k;
    EXPECT_EQ(b.sets[k].parameter_values, c.sets[k].parameter_values) << k;
  }
}

// [refine] precision: a set with one run at each size that brackets the target gets one more
// repetition at each (docs/experiment-spec.md, "Repetitions by precision"), numbered after
// the stored one; collected, they are new runs of their own, and the round read back from
// the database lists them per task.
TEST_F(RoundsFromDatabase, ARoundThatAddsRepetitionsStoresThemAsNewRuns) {
  collect_first();
  study::RefinementInput input = study::refinement_from_database(db_.uri(), "mm-scaling");
  input.latest.spec.refine.precision = 0.05;
  // Round 0's sizes 800 and 1131 bracket N = 1000 a factor 1.41 apart: a widest step of 20%
  // (sizes up to 1.2 / 0.8 = 1.5 apart) lets the precision rule take them as they are.
  input.latest.spec.refine.steps = {0.2};
  const auto quiet = [](LineKind, const std::string&) {};
  const jobgen::Round next = study::next_round(input.latest, input.runs, quiet);
  ASSERT_EQ(next.number, 1U);
  const jobgen::RoundSet& set0 = next.sets[0];
  ASSERT_EQ(set0.parameter_values.size(), 2U);  // the two sizes around N = 1000
  EXPECT_LT(set0.parameter_values[0], 1000);
  EXPECT_GT(set0.parameter_values[1], 1000);
  EXPECT_EQ(set0.repetitions, (std::vector<std::vector<std::uint32_t>>{{1}, {1}}));
  const fs::path dir = root_ / "mm-round1";
  // Created after round 0, as a refinement is: the database takes the newest as the latest.
  jobgen::write_round_directory(dir, jobgen::round_files(next, {"/opt/k"}, utc_time_now()));
  std::size_t added = 0;
  for (const auto& set : next.sets) {
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < set.parameter_values.size(); ++i) {
      const double n = set.parameter_values[i];
      const double work = 2 * n * n * n;
      const double seconds = work / (model_efficiency(n) * 1.02 * set.set.marked_speed * 1e6);
      for (std::uint32_t rep : jobgen::task_repetitions(next, set, i))
        lines.push_back(record_json("mm-scaling", n, static_cast<int>(set.set.index), static_cast<int>(rep), work,
                                    seconds, set.set.marked_speed, static_cast<int>(set.members.size()), serial_++)
                            .dump());
    }
    added += lines.size();
    if (!lines.empty()) write_lines(dir / "records" / ("set" + std::to_string(set.set.index) + ".jsonl"), lines);
  }
  ASSERT_GT(added, 0U);
  const std::string runs_before = db_.scalar("SELECT count(*) FROM hetscale.runs");
  collector::CollectOptions options;
  options.inputs = {dir.string()};
  std::istringstream no_stdin;
  std::ostringstream log;
  (void)collector::collect(db_.uri(), options, no_stdin, log);
  EXPECT_EQ(std::stoul(db_.scalar("SELECT count(*) FROM hetscale.runs")), std::stoul(runs_before) + added);
  const std::string size = std::to_string(static_cast<long long>(set0.parameter_values[0]));
  EXPECT_EQ(db_.scalar("SELECT string_agg(repetition::text, ' ' ORDER BY repetition) FROM hetscale.runs "
                       "WHERE set_index = 0 AND (parameters ->> 'N')::float8 = " + size),
            "0 1");
  // The round as the database holds it: its tasks run the listed repetitions.
  const study::RefinementInput after = study::refinement_from_database(db_.uri(), "mm-scaling");
  EXPECT_EQ(after.latest.number, 1U);
  EXPECT_EQ(after.latest.sets[0].repetitions, set0.repetitions);
  for (const auto& task : jobgen::array_tasks(after.latest)) {
    if (task.set_index == 0) {
      EXPECT_EQ(task.repetitions, std::vector<std::uint32_t>{1});
    }
  }
  EXPECT_EQ(jobgen::next_repetitions(after.runs)[0][set0.parameter_values[0]], 2U);
}

TEST_F(RoundsFromDatabase, AnExperimentNotCollectedSaysWhatToCollect) {
  try {
    (void)study::refinement_from_database(db_.uri(), "mm-scaling");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "experiment 'mm-scaling' is not in the database (it holds no experiment): "
                                     "collect its study first (hetscale collect --db URI DIR)");
  }
  try {
    (void)study::refinement_from_directories("mm-scaling", {first_}, db_.uri());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "experiment 'mm-scaling' is not in the database: collect the study first "
                                     "(hetscale collect --db URI " + first_.string() + ")");
  }
}

TEST_F(RoundsFromDatabase, AResubmissionNeedsSlurmsAccounting) {
  collect_first();
  std::vector<std::pair<LineKind, std::string>> said;
  try {
    const study::RoundOutput output{root_ / "again", [] { return std::string("/opt/k"); }};
    (void)study::resubmit_round({db_.uri(), "mm-scaling", output, false},
                                [&](LineKind kind, const std::string& line) { said.emplace_back(kind, line); });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--resubmit needs Slurm's accounting (sacct)", 0), 0U) << e.what();
  }
  ASSERT_EQ(said.size(), 1U);
  EXPECT_EQ(said[0].first, LineKind::note);
  EXPECT_EQ(said[0].second.rfind("note: ", 0), 0U) << said[0].second;
  EXPECT_FALSE(fs::exists(root_ / "again"));
}

// A job of task 0 of an array of that name, collected from a jobcomp file (the job states
// where no accounting answers).
slurm::JobRecord stored_job(std::uint64_t id, const std::string& name, const std::string& user,
                            const std::string& state) {
  slurm::JobRecord job;
  job.cluster = "hetscale";
  job.job_id = id;
  job.array_job_id = id;
  job.array_task_id = 0;
  job.job_name = name;
  job.user_name = user;
  job.state = state;
  job.start_time = "2026-11-20T10:00:00";
  job.end_time = "2026-11-20T10:05:00";
  return job;
}

TEST_F(RoundsFromDatabase, TaskStatesComeFromTheInvokingUsersJobsOnly) {
  collect_first();
  // The study's own task 0 of set 0 and a newer job of another user with the same name
  // (job names are unique only per user).
  const std::string name = jobgen::array_job_name(round0_, round0_.sets[0]);
  const std::vector<slurm::JobRecord> jobs = {stored_job(100, name, slurm::invoking_user_name(), "COMPLETED"),
                                              stored_job(200, name, "someone-else", "FAILED")};
  auto conn = pg::Connection::open(db_.uri());
  (void)collector::load_slurm_jobs_batch(conn, jobs, "test");
  const study::ExperimentProgress progress =
      study::experiment_progress(db_.uri(), "mm-scaling", [](LineKind, const std::string&) {});
  EXPECT_EQ(progress.job_source, "slurm_jobs");
  bool seen = false;
  for (const auto& t : progress.tasks) {
    if (t.task.round != 0 || t.task.set_index != 0 || t.task.array_index != 0) continue;
    seen = true;
    EXPECT_EQ(t.job_id, std::optional<std::uint64_t>(100));
    EXPECT_EQ(t.slurm_state, "COMPLETED");
  }
  EXPECT_TRUE(seen);
}

// Another study of the same experiment by the same user (another directory, another study
// token): its jobs, however new, are none of this study's tasks.
TEST_F(RoundsFromDatabase, TaskStatesLeaveOutTheJobsOfAnotherStudyOfTheExperiment) {
  collect_first();
  jobgen::Round other = round0_;
  other.study_token = "ffff0000";
  const std::string user = slurm::invoking_user_name();
  const std::vector<slurm::JobRecord> jobs = {
      stored_job(100, jobgen::array_job_name(round0_, round0_.sets[0]), user, "COMPLETED"),
      stored_job(200, jobgen::array_job_name(other, other.sets[0]), user, "FAILED")};
  auto conn = pg::Connection::open(db_.uri());
  (void)collector::load_slurm_jobs_batch(conn, jobs, "test");
  const study::ExperimentProgress progress =
      study::experiment_progress(db_.uri(), "mm-scaling", [](LineKind, const std::string&) {});
  EXPECT_EQ(progress.job_source, "slurm_jobs");
  std::size_t with_jobs = 0;
  for (const auto& t : progress.tasks) {
    if (!t.job_id) continue;
    ++with_jobs;
    EXPECT_EQ(t.task.round, 0U);
    EXPECT_EQ(t.task.set_index, 0U);
    EXPECT_EQ(t.task.array_index, 0U);
    EXPECT_EQ(t.job_id, std::optional<std::uint64_t>(100));
    EXPECT_EQ(t.slurm_state, "COMPLETED");
  }
  EXPECT_EQ(with_jobs, 1U);
}

}  // namespace
}  // namespace hetscale::test
