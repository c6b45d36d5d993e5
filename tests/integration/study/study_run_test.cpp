// `hetscale study` on the local cluster (with slurmdbd) and the throwaway PostgreSQL server:
// a two-round study finishes with no command typed in between, the stage-by-stage path
// gives the same plans, runs and report, a cancelled controller is resumed, a bad spec or
// a drained member of round 0 is refused before anything is submitted (or the member
// replaced on request), a drained member of a later round fails the step until the
// node is resumed, and a step by hand is refused while the study is being submitted or its
// controller is pending.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "hetscale/base/text_file.hpp"
#include "hetscale/slurm/sacct.hpp"
#include "support/drained_node.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

std::string read(const fs::path& path) { return read_text_file(path, "test output"); }

// The jobs sacct reports with this name (every user, since yesterday), as any release
// writes them.
std::vector<slurm::JobRecord> sacct_jobs(const std::string& name) {
  const auto r = run_command({"sacct", "--json", "--allusers", "--starttime", "now-1days", "--name", name}, 60s);
  if (!r.ok()) throw std::runtime_error(r.describe());
  return slurm::read_sacct_json(r.out, "sacct --json").jobs;
}

std::size_t queued(const std::string& name) {
  const auto r = run_command({"squeue", "--noheader", "--name", name}, 30s);
  if (!r.ok()) throw std::runtime_error(r.describe());
  return split_lines(r.out).size();
}

// The jobs sacct reports (every user, since yesterday) whose names start with `prefix`: an
// experiment's, whatever study token its names carry.
std::vector<slurm::JobRecord> sacct_jobs_named_from(const std::string& prefix) {
  const auto r = run_command({"sacct", "--json", "--allusers", "--starttime", "now-1days"}, 60s);
  if (!r.ok()) throw std::runtime_error(r.describe());
  std::vector<slurm::JobRecord> jobs = slurm::read_sacct_json(r.out, "sacct --json").jobs;
  std::erase_if(jobs, [&](const slurm::JobRecord& job) { return !job.job_name.starts_with(prefix); });
  return jobs;
}

// The jobs in the queue whose names start with `prefix`.
std::size_t queued_named_from(const std::string& prefix) {
  const auto r = run_command({"squeue", "--noheader", "--format=%200j"}, 30s);
  if (!r.ok()) throw std::runtime_error(r.describe());
  std::size_t n = 0;
  for (const std::string& line : split_lines(r.out))
    if (line.starts_with(prefix)) ++n;
  return n;
}

class StudyRun : public ::testing::Test {
 protected:
  void SetUp() override {
    test_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = fs::path(HETSCALE_BINARY_DIR) / "testbed" / "study-run" / test_;
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_.migrate();
    // The testbed's declared speed factors in a unit the refinement converts (Gflops).
    std::string site = read(tb_.site_table());
    const std::string unit = "speed_unit = \"speed-factor\"";
    ASSERT_NE(site.find(unit), std::string::npos) << site;
    site.replace(site.find(unit), unit.size(), "speed_unit = \"Gflops\"");
    std::ofstream(dir_ / "site.toml") << site;
  }

  // An mm experiment over the sets of 2 and 4 nodes with small sizes, refined once, without
  // weights (the plugin's site table of the fixture has no unit E_s can be computed in: the
  // records take the study's site table, in Gflops); and a
  // study of it with one refinement round. Names carry the test's name (sacct keeps every
  // test's jobs).
  fs::path write_specs(const std::string& extra_study = "") {
    experiment_ = "sr-" + test_;
    std::ofstream(dir_ / "mm.toml") << "[experiment]\nname = \"" << experiment_
                                    << "\"\ntarget_efficiency = 0.6\nrepetitions = 1\n\n[code]\nkernel = \"mm\"\n\n"
                                       "[parameter]\nmin = 100\nmax = 500\npoints = 3\npsi_floor = 0.2\n\n"
                                       "[machine_sets]\nstart = 2\nmax = 4\npolicy = \"stop\"\n\n"
                                       "[slurm]\ntime_limit = \"00:05:00\"\ntasks_per_node = 1\nweights = \"off\"\n\n"
                                       "[refine]\nsteps = [0.1]\nmax_rounds = 1\n";
    std::ofstream(dir_ / "study.toml") << "[study]\nname = \"" << experiment_ << "\"\ntitle = \"study run\"\n"
                                       << "max_rounds = 1\n\n[[experiment]]\nspec = \"mm.toml\"\n" << extra_study;
    return dir_ / "study.toml";
  }

  // The study spec of write_specs with `replace_unavailable = true` in [study].
  fs::path write_specs_replacing_unavailable() {
    const fs::path spec = write_specs();
    std::string text = read(spec);
    text.replace(text.find("max_rounds = 1\n"), 0, "replace_unavailable = true\n");
    std::ofstream(spec) << text;
    return spec;
  }

  // The study's token, from its state.
  [[nodiscard]] std::string study_token() const {
    return json::parse(read(dir_ / "study" / "study.state")).at("study_token").get<std::string>();
  }

  // The job name of a set's array in a round of the study (docs/experiment-spec.md).
  [[nodiscard]] std::string array_name(int set, int round = 0) const {
    return experiment_ + "-" + study_token() + (round == 0 ? "" : "-r" + std::to_string(round)) + "-set" +
           std::to_string(set);
  }

  // Cancels the study's jobs still queued (arrays and controllers), whatever their token.
  void cancel_jobs() {
    const auto r = run_command({"squeue", "--noheader", "--format=%F %200j"}, 30s);
    for (const std::string& line : split_lines(r.out)) {
      const auto space = line.find(' ');
      if (space != std::string::npos && line.substr(space + 1).starts_with(experiment_ + "-"))
        (void)run_command({"scancel", line.substr(0, space)}, 30s);
    }
    for (int i = 0; i < 60 && queued_named_from(experiment_ + "-") > 0; ++i) std::this_thread::sleep_for(500ms);
  }

  // Waits (up to `limit`) until round 0's arrays have left the queue.
  void wait_for_round_zero(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (queued(array_name(0)) + queued(array_name(1)) > 0) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "round 0's arrays still queued";
      std::this_thread::sleep_for(1s);
    }
  }

  CommandResult hetscale(std::vector<std::string> args, std::chrono::seconds limit = 120s) {
    args.insert(args.begin(), HETSCALE_EXECUTABLE);
    return run_command(args, limit);
  }

  CommandResult run_study(const fs::path& spec, const std::string& db, bool wait) {
    std::vector<std::string> args = {"study", "run", spec.string(), "--site", (dir_ / "site.toml").string(), "--db", db,
                                     "--dir", (dir_ / "study").string(), "--kernel-dir", HETSCALE_KERNEL_DIR};
    if (wait) args.push_back("--wait");
    return hetscale(args, 480s);
  }

  // Every run of the experiment stored once per (set, size, repetition), and some stored.
  void expect_each_run_once() {
    EXPECT_NE(db_.scalar("SELECT count(*) FROM hetscale.run_efficiency WHERE experiment = '" + experiment_ + "'"),
              "0");
    EXPECT_EQ(db_.scalar("SELECT count(*) FROM (SELECT 1 FROM hetscale.run_efficiency WHERE experiment = '" +
                         experiment_ + "' GROUP BY set_index, parameter_value, repetition HAVING count(*) > 1) d"),
              "0");
    // Collecting the study's directory again adds nothing.
    const auto again = hetscale({"collect", "--db", db_.uri(), (dir_ / "study").string()});
    ASSERT_TRUE(again.ok()) << again.describe();
    EXPECT_NE(again.out.find(": 0 runs added"), std::string::npos) << again.out;
  }

  Testbed tb_ = Testbed::from_env();
  TestDatabase db_;
  std::string test_;
  std::string experiment_;
  fs::path dir_;
};

// The HTML without its "generated <time> UTC" stamp.
std::string without_timestamp(const std::string& html) {
  return std::regex_replace(html, std::regex("generated [0-9-]+ [0-9:]+ UTC"), "generated");
}

// A plan without the time it was written.
json without_created(json plan) {
  plan.erase("created");
  return plan;
}

// Every stored run of the experiment, one line each, in a fixed order: what the two paths
// must agree on.
std::string stored_runs(const TestDatabase& db, const std::string& experiment) {
  return db.scalar(
      "SELECT string_agg(format('%s %s %s %s %s', set_index, parameter_value, repetition, work, wall_seconds), "
      "E'\\n' ORDER BY set_index, parameter_value, repetition) FROM hetscale.run_efficiency WHERE experiment = '" +
      experiment + "'");
}

TEST_F(StudyRun, TwoRoundStudyFinishesWithoutHelp) {
  const fs::path spec = write_specs();
  const auto r = run_study(spec, db_.uri(), true);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_NE(r.out.find("done: study done"), std::string::npos) << r.out;
  // The controllers ran as jobs, as sacct shows.
  const auto controllers = sacct_jobs(experiment_ + "-controller");
  ASSERT_GE(controllers.size(), 2u) << "one controller per round";
  for (const auto& job : controllers) EXPECT_EQ(job.state, "COMPLETED") << "job " << job.job_id;
  // Two rounds: mm at these sizes stays below the target on the testbed, so round 0 is refined.
  EXPECT_EQ(db_.scalar("SELECT max(round) FROM hetscale.plan_rounds"), "1");
  // Nothing left to refine, every run stored once.
  const auto refine = hetscale({"jobgen", "--refine", "--experiment", experiment_, "--db", db_.uri(), "-o",
                                (dir_ / "refine").string(), "--kernel-dir", HETSCALE_KERNEL_DIR});
  ASSERT_TRUE(refine.ok()) << refine.describe();
  EXPECT_FALSE(fs::exists(dir_ / "refine" / "submit.sh")) << refine.out;
  expect_each_run_once();
  // The psi table and the report, which `hetscale report` reproduces from the database.
  EXPECT_NE(read(dir_ / "study" / "psi.txt").find(experiment_), std::string::npos);
  const auto report = hetscale({"report", "--db", db_.uri(), "-o", (dir_ / "report").string(), "--title", "study run"});
  ASSERT_TRUE(report.ok()) << report.describe();
  EXPECT_EQ(without_timestamp(read(dir_ / "report" / "index.html")),
            without_timestamp(read(dir_ / "study" / "report" / "index.html")));
  const auto status = hetscale({"study", "status", "--dir", (dir_ / "study").string()});
  EXPECT_NE(status.out.find("stage done"), std::string::npos) << status.describe();
  // The forecast: stored and printed as `hetscale predict` prints it or, when the runs do
  // not give the required work at the target, not done and why, in the history and the file.
  const std::string forecast = read(dir_ / "study" / ("predict-" + experiment_ + ".txt"));
  if (forecast.starts_with("not done: ")) {
    EXPECT_NE(r.out.find("predict: " + experiment_ + ": " + forecast.substr(0, forecast.size() - 1)),
              std::string::npos)
        << r.out;
    EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.predictions"), "0");
  } else {
    EXPECT_TRUE(forecast.starts_with("experiment " + experiment_ + ": W = ")) << forecast;
    EXPECT_NE(r.out.find("predict: " + experiment_ + ": forecasts in predict-" + experiment_ + ".txt"),
              std::string::npos)
        << r.out;
    EXPECT_TRUE(forecast.ends_with("\nstored as prediction batch " +
                                   db_.scalar("SELECT max(batch) FROM hetscale.predictions") + "\n"))
        << forecast;
  }
}

// The stage-by-stage path a user takes by hand, on a second database fed the study's own
// round 0: collect, refine with jobgen, collect the round the study ran, analyze, predict,
// report.
// Its round 1 plan, stored runs and report are the study's.
TEST_F(StudyRun, TheStageByStagePathGivesTheStudysPlanRunsAndReport) {
  const fs::path spec = write_specs("\n[predict]\ndoublings = 2\n");
  const auto r = run_study(spec, db_.uri(), true);
  ASSERT_TRUE(r.ok()) << r.describe();
  const fs::path rounds = dir_ / "study" / experiment_;
  ASSERT_TRUE(fs::exists(rounds / "round1" / "plan.json")) << r.out;
  TestDatabase by_hand;
  by_hand.migrate();
  const auto round0 = hetscale({"collect", "--db", by_hand.uri(), (rounds / "round0").string()});
  ASSERT_TRUE(round0.ok()) << round0.describe();
  const auto refine = hetscale({"jobgen", "--refine", "--experiment", experiment_, "--db", by_hand.uri(), "-o",
                                (dir_ / "by-hand-round1").string(), "--kernel-dir", HETSCALE_KERNEL_DIR});
  ASSERT_TRUE(refine.ok()) << refine.describe();
  EXPECT_EQ(without_created(json::parse(read(dir_ / "by-hand-round1" / "plan.json"))),
            without_created(json::parse(read(rounds / "round1" / "plan.json"))));
  for (const auto& entry : fs::directory_iterator(rounds / "round1")) {
    if (entry.path().extension() != ".sbatch") continue;
    EXPECT_EQ(read(dir_ / "by-hand-round1" / entry.path().filename()), read(entry.path())) << entry.path();
  }
  const auto round1 = hetscale({"collect", "--db", by_hand.uri(), (rounds / "round1").string()});
  ASSERT_TRUE(round1.ok()) << round1.describe();
  EXPECT_EQ(stored_runs(by_hand, experiment_), stored_runs(db_, experiment_));
  EXPECT_NE(stored_runs(by_hand, experiment_), "");
  const auto analyze = hetscale({"analyze", "--db", by_hand.uri(), "--experiment", experiment_, "--target", "0.6"});
  ASSERT_TRUE(analyze.ok()) << analyze.describe();
  const auto predict = hetscale(
      {"predict", "--db", by_hand.uri(), "--experiment", experiment_, "--target", "0.6", "--doublings", "2"});
  ASSERT_TRUE(predict.ok()) << predict.describe();
  EXPECT_EQ(predict.out, read(dir_ / "study" / ("predict-" + experiment_ + ".txt")));
  const auto report =
      hetscale({"report", "--db", by_hand.uri(), "-o", (dir_ / "by-hand-report").string(), "--title", "study run"});
  ASSERT_TRUE(report.ok()) << report.describe();
  EXPECT_EQ(without_timestamp(read(dir_ / "by-hand-report" / "index.html")),
            without_timestamp(read(dir_ / "study" / "report" / "index.html")));
}

TEST_F(StudyRun, CancelledControllerIsResumed) {
  const fs::path spec = write_specs();
  const auto r = run_study(spec, db_.uri(), false);
  ASSERT_TRUE(r.ok()) << r.describe();
  const json state = json::parse(read(dir_ / "study" / "study.state"));
  const std::string controller = std::to_string(state["controller"].get<std::uint64_t>());
  // Pending on its dependency: cancelled before it runs.
  ASSERT_TRUE(run_command({"scancel", controller}, 30s).ok());
  for (int i = 0; i < 20 && queued(experiment_ + "-controller") > 0; ++i) std::this_thread::sleep_for(500ms);
  const auto resumed = hetscale({"study", "resume", "--dir", (dir_ / "study").string(), "--wait"}, 480s);
  ASSERT_TRUE(resumed.ok()) << resumed.describe();
  EXPECT_NE(resumed.out.find("done: study done"), std::string::npos) << resumed.out;
  expect_each_run_once();
  // Done: resuming again does nothing.
  const auto again = hetscale({"study", "resume", "--dir", (dir_ / "study").string()});
  EXPECT_NE(again.out.find("nothing to resume"), std::string::npos) << again.describe();
}

TEST_F(StudyRun, NoFileOfTheStudyHoldsThePassword) {
  // The server trusts the test's connections: a password in the URI is sent to no one, but
  // it must not be written anywhere either (study.state, the copy of the spec).
  const std::string password = "pw-" + test_ + "-s3cret";
  const fs::path spec = write_specs();
  {
    std::string text = read(dir_ / "mm.toml");
    text.replace(text.find("target_efficiency"), 0,
                 "database = \"postgresql://postgres:" + password + "@db.invalid/hetscale\"\n");
    std::ofstream(dir_ / "mm.toml") << text;
  }
  std::string uri = db_.uri();
  uri.replace(uri.find("://postgres@"), 12, "://postgres:" + password + "@");
  const auto r = run_study(spec, uri, false);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_NE(r.out.find("the password of --db is not stored"), std::string::npos) << r.out;
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "study")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(read(entry.path()).find(password), std::string::npos) << entry.path() << " holds the password";
  }
  EXPECT_GT(files, 3u);
  const auto mode = [](const fs::path& p) { return fs::status(p).permissions() & fs::perms::all; };
  const fs::path round0 = dir_ / "study" / experiment_ / "round0";
  EXPECT_EQ(mode(dir_ / "study" / "study.state"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(mode(round0 / "experiment.toml"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_NE(read(round0 / "experiment.toml").find("postgresql://postgres@db.invalid/hetscale"), std::string::npos);
  const json state = json::parse(read(dir_ / "study" / "study.state"));
  EXPECT_EQ(state["db"].get<std::string>(), db_.uri());
  cancel_jobs();
}

TEST_F(StudyRun, BadSpecIsRefusedBeforeAnythingIsSubmitted) {
  struct Case {
    std::string what, study_extra, db, message;
  };
  const std::vector<Case> cases = {
      {"bad key", "[equalise]\nexperiment = \"x\"\n", "", "unknown key 'equalise' at top level"},
      {"unknown experiment file", "[[experiment]]\nspec = \"nowhere.toml\"\n", "", "no experiment spec at"},
      {"unreachable database", "", "postgresql://postgres@127.0.0.1:1/hetscale", "127.0.0.1"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    fs::remove_all(dir_ / "study");
    const fs::path spec = write_specs(c.study_extra);
    const auto r = run_study(spec, c.db.empty() ? db_.uri() : c.db, false);
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.describe();
    EXPECT_FALSE(fs::exists(dir_ / "study" / "study.state"));
  }
  EXPECT_EQ(queued_named_from(experiment_ + "-"), 0u);
  EXPECT_TRUE(sacct_jobs_named_from(experiment_ + "-").empty());
}

// The sets are {n1, n2} and {n1, n2, n3, n4} (testbed: n1 head, n2-n3 full, n4-n5 half);
// n5 is the spare of group half.
TEST_F(StudyRun, DrainedMemberOfRoundZeroIsRefusedOrReplacedOnRequest) {
  const DrainedNode drained("n4");
  const auto refused = run_study(write_specs(), db_.uri(), false);
  EXPECT_EQ(refused.exit_code, 1) << refused.describe();
  EXPECT_EQ(refused.err,
            "hetscale study run: set 1 member n4 is DRAINED (reason \"hetscale availability test\"); nothing "
            "submitted (replace_unavailable = true in the study spec's [study] swaps them for available nodes of "
            "their groups)\n");
  EXPECT_FALSE(fs::exists(dir_ / "study" / "study.state"));
  EXPECT_FALSE(fs::exists(dir_ / "study" / experiment_ / "round0"));
  EXPECT_EQ(queued_named_from(experiment_ + "-"), 0u);
  EXPECT_TRUE(sacct_jobs_named_from(experiment_ + "-").empty());

  fs::remove_all(dir_ / "study");
  const auto replaced = run_study(write_specs_replacing_unavailable(), db_.uri(), false);
  ASSERT_TRUE(replaced.ok()) << replaced.describe();
  EXPECT_NE(replaced.out.find("n4 (group half, DRAINED (reason \"hetscale availability test\")) replaced by n5 in "
                              "set 1 (C1 = "),
            std::string::npos)
      << replaced.out;
  const fs::path round0 = dir_ / "study" / experiment_ / "round0";
  const json plan = json::parse(read(round0 / "plan.json"));
  EXPECT_EQ(plan["machine_sets"][1]["nodes"], json::parse(R"(["n1", "n2", "n3", "n5"])"));
  EXPECT_NE(read(round0 / "set1.sbatch").find("#SBATCH --nodelist=n[1-3,5]\n"), std::string::npos);
  // Submitted on the replacement: in the queue (pending on set 0), by the study's name, in the
  // state.
  EXPECT_NE(read(round0 / "set1.sbatch").find("\n#SBATCH --job-name=" + array_name(1) + "\n"), std::string::npos);
  EXPECT_GE(queued(array_name(1)), 1u);
  const json state = json::parse(read(dir_ / "study" / "study.state"));
  ASSERT_EQ(state["arrays"].size(), 2u) << state.dump();
  EXPECT_EQ(state["arrays"][1]["set"], 1);
  cancel_jobs();
}

TEST_F(StudyRun, DrainedMemberOfALaterRoundFailsTheStepUntilResumed) {
  const auto r = run_study(write_specs(), db_.uri(), false);
  ASSERT_TRUE(r.ok()) << r.describe();
  const json submitted = json::parse(read(dir_ / "study" / "study.state"));
  // No controller: round 0's arrays run to their end, then the step is taken by hand.
  ASSERT_TRUE(run_command({"scancel", std::to_string(submitted["controller"].get<std::uint64_t>())}, 30s).ok());
  wait_for_round_zero(300s);
  {
    const DrainedNode drained("n4");
    const auto failed = hetscale({"study", "resume", "--dir", (dir_ / "study").string()}, 300s);
    EXPECT_EQ(failed.exit_code, 1) << failed.describe();
    EXPECT_NE(failed.err.find("study failed in stage refine round 1: set 1 member n4 is DRAINED (reason \"hetscale "
                              "availability test\"); round not submitted (resume the nodes, then hetscale study "
                              "resume"),
              std::string::npos)
        << failed.describe();
    const json state = json::parse(read(dir_ / "study" / "study.state"));
    EXPECT_EQ(state["stage"], "failed");
    EXPECT_EQ(state["failed_stage"], "measure");
    EXPECT_EQ(state["round"], 0);
    EXPECT_TRUE(sacct_jobs(array_name(0, 1)).empty());
  }
  // The node resumed: resume takes the failed step again, and the study finishes.
  const auto resumed = hetscale({"study", "resume", "--dir", (dir_ / "study").string(), "--wait"}, 480s);
  ASSERT_TRUE(resumed.ok()) << resumed.describe();
  EXPECT_NE(resumed.out.find("done: study done"), std::string::npos) << resumed.out;
  EXPECT_EQ(db_.scalar("SELECT max(round) FROM hetscale.plan_rounds"), "1");
  expect_each_run_once();
}

// `study run` holds the study's lock while it submits: a step started meanwhile is refused,
// naming the process of `study run`, and the study is submitted all the same.
TEST_F(StudyRun, AStepWhileTheStudyIsSubmittedIsRefused) {
  const fs::path spec = write_specs();
  const fs::path study = dir_ / "study";
  fs::create_directories(study);
  // `study run` with an sbatch that answers a second late (so that its submission takes a
  // while); the step as soon as the lock file names the process of `study run` (it writes
  // its pid once it holds the lock).
  const fs::path slow = dir_ / "slow-sbatch";
  fs::create_directories(slow);
  const auto real = run_command({"sh", "-c", "command -v sbatch"}, 30s);
  ASSERT_TRUE(real.ok()) << real.describe();
  std::ofstream(slow / "sbatch") << "#!/bin/sh\nsleep 1\nexec '" << split_lines(real.out).at(0) << "' \"$@\"\n";
  fs::permissions(slow / "sbatch", fs::perms::owner_all);
  const auto r = run_command(
      {"sh", "-c",
       "PATH=\"$6:$PATH\" \"$0\" study run \"$1\" --site \"$2\" --db \"$3\" --dir \"$4\" --kernel-dir \"$5\" "
       ">/dev/null & run=$!\n"
       "echo \"run $run\"\n"
       "for i in $(seq 3000); do grep -qx \"$run\" \"$4/study.lock\" 2>/dev/null && break; sleep 0.01; done\n"
       "\"$0\" study step --dir \"$4\"; echo \"step $?\"\n"
       "wait $run; echo \"run exit $?\"\n",
       HETSCALE_EXECUTABLE, spec.string(), (dir_ / "site.toml").string(), db_.uri(), study.string(),
       HETSCALE_KERNEL_DIR, slow.string()},
      480s);
  ASSERT_TRUE(r.ok()) << r.describe();
  const auto lines = split_lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.describe();
  ASSERT_TRUE(lines[0].starts_with("run ")) << r.describe();
  const std::string run_pid = lines[0].substr(4);
  EXPECT_EQ(lines[1], "step 1") << r.describe();
  EXPECT_EQ(r.err, "hetscale study step: a hetscale study run, step or resume of the study in " + study.string() +
                       " is already running (process " + run_pid + ", lock " + (study / "study.lock").string() + ")\n")
      << r.describe();
  EXPECT_EQ(lines[2], "run exit 0") << r.describe();
  const json state = json::parse(read(study / "study.state"));
  EXPECT_EQ(state["arrays"].size(), 2u) << state.dump();
  EXPECT_EQ(queued(experiment_ + "-controller"), 1u);  // the study's own, no other
  cancel_jobs();
}

// A step by hand while the study's controller job is pending (here on round 0's arrays) is
// refused, naming the job, and changes nothing; once the controller is cancelled, the step
// goes on (round 0's arrays still active: a controller that waits on them).
TEST_F(StudyRun, AStepByHandWaitsForAPendingControllerAndGoesOnOnceItHasEnded) {
  const auto r = run_study(write_specs(), db_.uri(), false);
  ASSERT_TRUE(r.ok()) << r.describe();
  const fs::path study = dir_ / "study";
  const std::string submitted = read(study / "study.state");
  const std::string controller = std::to_string(json::parse(submitted)["controller"].get<std::uint64_t>());
  const auto refused = hetscale({"study", "step", "--dir", study.string()});
  EXPECT_EQ(refused.exit_code, 1) << refused.describe();
  EXPECT_EQ(refused.err, "hetscale study step: controller job " + controller + " of the study in " + study.string() +
                             " is pending or running and takes the next step itself: wait for it (hetscale study "
                             "status --dir " + study.string() + "), or cancel it (scancel " + controller +
                             ") and run the step again\n")
      << refused.describe();
  EXPECT_EQ(read(study / "study.state"), submitted);
  EXPECT_EQ(queued(experiment_ + "-controller"), 1u);  // no second controller

  ASSERT_TRUE(run_command({"scancel", controller}, 30s).ok());
  for (int i = 0; i < 60 && queued(experiment_ + "-controller") > 0; ++i) std::this_thread::sleep_for(500ms);
  ASSERT_EQ(queued(experiment_ + "-controller"), 0u);
  const auto step = hetscale({"study", "step", "--dir", study.string()}, 300s);
  ASSERT_TRUE(step.ok()) << step.describe();
  const json after = json::parse(read(study / "study.state"));
  EXPECT_GT(after["history"].size(), json::parse(submitted)["history"].size()) << after.dump();
  EXPECT_NE(after["controller"], json::parse(submitted)["controller"]) << after.dump();
  cancel_jobs();
}

}  // namespace
}  // namespace hetscale::test
