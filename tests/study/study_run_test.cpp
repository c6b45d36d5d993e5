// What of the study's controller can be checked without Slurm and a database: the named
// stages a step runs through, in order, each with its row in docs/architecture.md's stage
// table, the controller job's script, the study's lock, and a step by hand refused beside
// a pending or running controller (squeue faked on PATH).
#include "hetscale/study/study_run.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "hetscale/base/error.hpp"
#include "hetscale/base/file_lock.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/slurm/queries.hpp"

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

using ::testing::ElementsAre;

TEST(ControllerStages, AStepRunsThroughThemInOrder) {
  EXPECT_THAT(controller_stage_names(), ElementsAre("collect", "twin beside", "refine", "equalize", "re-run", "compare",
                                                    "analyze", "predict", "twin", "report"));
  EXPECT_THAT(controller_stage_names(Chain::twin), ElementsAre("twin collect", "twin refine", "report"));
}

TEST(ControllerStages, EachHasItsRowInTheArchitecturesStageTable) {
  const std::string doc = read_text_file(std::filesystem::path(HETSCALE_SOURCE_DIR) / "docs" / "architecture.md",
                                         "architecture");
  for (const Chain chain : {Chain::measured, Chain::twin})
    for (const std::string_view name : controller_stage_names(chain))
      EXPECT_NE(doc.find("\n| " + std::string(name) + " | "), std::string::npos) << name;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// psi.txt shows each psi with its interval as analyze prints it, its level in the header;
// the bare first word of the psi column stays the figure (check_study.sh reads it), and
// every column starts where its header does, however wide the speeds.
TEST(PsiTable, ShowsEachPsiWithItsIntervalInColumnsAsWideAsTheirCells) {
  collector::PsiPair bounded{0, 1, 100, 200, 1e6, 1.5e6, 0.91234};
  bounded.psi_low = 0.85;
  bounded.psi_high = 0.97;
  collector::PsiPair without{1, 2, 200, 400, 1.5e6, 2e6, 1.02};
  without.psi_interval_reason = "too few runs";
  without.psi_interval_note = "no interval: set 2 has none (too few runs: 1 run at 800 ...)";
  collector::PsiPair open{2, 3, 400, 800, 2e6, 3e6, 0.8};
  open.psi_interval_note = "lower bound open: ...; upper bound open: ...";
  const collector::PsiPair none{3, 4, 800, 1600, 3e6, std::nullopt, std::nullopt};
  const collector::PsiPair wide{0, 1, 10540, 21081, 1e9, 2.5e9, 0.7355};
  const std::string text = psi_table_text({{"mm", "study-mm", 0.5, {bounded, without, open, none}},
                                           {"ge", "a-longer-experiment-name", 0.7, {wide}},
                                           {"lu", "study-lu", 0.7, {}}});
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 7U) << text;
  const std::string& header = lines[0];
  EXPECT_EQ(words_of(header), (std::vector<std::string>{"code", "experiment", "target", "set->set", "C->C'", "psi",
                                                          "[95%", "interval]"}))
      << text;
  const std::vector<std::vector<std::string>> cells = {
      {"mm", "study-mm", "0.5", "0->1", "100->200", "0.9123", "[0.85,", "0.97]"},
      {"mm", "study-mm", "0.5", "1->2", "200->400", "1.02", "(too", "few", "runs)"},
      {"mm", "study-mm", "0.5", "2->3", "400->800", "0.8", "[open,", "open]"},
      {"mm", "study-mm", "0.5", "3->4", "800->1600", "n/a"},
      {"ge", "a-longer-experiment-name", "0.7", "0->1", "10540->21081", "0.7355", "[open,", "open]"},
      {"lu", "study-lu", "0.7", "-", "-", "(no", "pair", "of", "sets)"}};
  for (std::size_t i = 0; i < cells.size(); ++i) EXPECT_EQ(words_of(lines[i + 1]), cells[i]) << text;
  // Each left-aligned column starts under its header: the speeds and the psi.
  for (std::size_t i = 1; i < 7; ++i) {
    const std::vector<std::string>& row = cells[i - 1];
    if (row[4] != "-") {
      EXPECT_EQ(lines[i].find(" " + row[4] + " ") + 1, header.find("C->C'")) << text;
    }
    EXPECT_EQ(lines[i].find(" " + row[5]) + 1, header.find("psi")) << text;
  }
}

TEST(ControllerScript, RunsOneStepOfTheStudyInItsDirectory) {
  StudyState state;
  state.hetscale = "/opt/hetscale/bin/hetscale";
  StudySpec spec;
  spec.name = "testbed";
  spec.controller_time_limit = "3:30:00";  // the spec's, not a fixed half hour
  EXPECT_EQ(controller_script(spec, state, "/runs/study"),
            "#!/bin/sh\n"
            "# Written by hetscale study: the controller of study 'testbed' (docs/study.md).\n"
            "#SBATCH --job-name=testbed-controller\n"
            "#SBATCH --ntasks=1\n#SBATCH --nodes=1\n#SBATCH --time=3:30:00\n"
            "#SBATCH --output=logs/controller-%j.out\n"
            "exec /opt/hetscale/bin/hetscale study step --dir /runs/study\n");
}

// The twin's controller: a step of the twin's chain, in the twin's partition (where its
// arrays ran, and have ended when it starts), its own job name and log.
TEST(ControllerScript, TheTwinsRunsAStepOfItsChainInItsPartition) {
  StudyState state;
  state.hetscale = "/opt/hetscale/bin/hetscale";
  StudySpec spec;
  spec.name = "testbed";
  spec.twin_partition = "twin";
  EXPECT_EQ(controller_script(spec, state, "/runs/study", Chain::twin),
            "#!/bin/sh\n"
            "# Written by hetscale study: the twin's controller of study 'testbed' (docs/study.md).\n"
            "#SBATCH --job-name=testbed-twin-controller\n"
            "#SBATCH --partition=twin\n"
            "#SBATCH --ntasks=1\n#SBATCH --nodes=1\n#SBATCH --time=02:00:00\n"
            "#SBATCH --output=logs/twin-controller-%j.out\n"
            "exec /opt/hetscale/bin/hetscale study step --dir /runs/study --chain twin\n");
  spec.twin_partition.clear();  // the experiments' own: the default partition
  EXPECT_EQ(controller_script(spec, state, "/runs/study", Chain::twin).find("--partition"), std::string::npos);
}

TEST(ControllerScript, QuotesAnyPathSafely) {
  // A ' in a path ended the quotes: the rest ran as shell code.
  StudyState state;
  state.hetscale = "/opt/it's/hetscale";
  StudySpec spec;
  spec.name = "testbed";
  const std::string script = controller_script(spec, state, "/runs/a b'; touch /tmp/x; '\nc");
  EXPECT_TRUE(script.ends_with("exec '/opt/it'\\''s/hetscale' study step --dir "
                               "'/runs/a b'\\''; touch /tmp/x; '\\''\nc'\n"))
      << script;
}

// The message of a step, a resume or a start refused because the study's lock is held.
std::string lock_held(const fs::path& dir) {
  return "a hetscale study run, step or resume of the study in " + dir.string() + " is already running (process " +
         std::to_string(::getpid()) + ", lock " + (dir / "study.lock").string() + ")";
}

TEST(StudyStep, ASecondStepOfTheStudyIsRefusedWhileOneRuns) {
  const fs::path dir = fs::temp_directory_path() / ("study-lock-" + std::to_string(::getpid()));
  StudyState state;
  state.phase = Phase::measure;
  save_state(dir, state);
  const ExclusiveFileLock running(dir / "study.lock", "a controller's step");  // as a step holds it
  std::ostringstream out;
  try {
    step_study(dir, Chain::measured, out);
    FAIL() << "a second step ran";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), lock_held(dir));
  }
  EXPECT_TRUE(out.str().empty()) << out.str();
  EXPECT_EQ(state_json(load_state(dir)), state_json(state));  // untouched
  fs::remove_all(dir);
}

// `study run` holds the lock a step takes while it checks, writes and submits: with the lock
// held (as by `study run` itself, or a step), a start is refused naming the holder, and the
// other way round a step started while the study is being submitted is refused.
TEST(StudyRun, IsRefusedWhileTheStudysLockIsHeld) {
  const fs::path dir = fs::temp_directory_path() / ("study-run-lock-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const ExclusiveFileLock running(dir / "study.lock", "a step");
  RunOptions options;
  options.spec = dir / "no-such-study.toml";  // never read: the lock comes first
  options.dir = dir;
  std::ostringstream out;
  try {
    (void)run_study(options, out);
    FAIL() << "the study was started";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), lock_held(dir));
  }
  EXPECT_TRUE(out.str().empty()) << out.str();
  EXPECT_FALSE(fs::exists(state_path(dir)));
  fs::remove_all(dir);
}

// A command that writes its records itself (record = "program") and whose program shows no
// sign of it gets jobgen's warning from `study run` too, before anything else is checked.
TEST(StudyRun, WarnsWhenAProgramMayWriteNoRecord) {
  const fs::path dir = fs::temp_directory_path() / ("study-run-warn-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "plain.toml") << R"([experiment]
name = "plain"
target_efficiency = 0.4

[code]
command = "/bin/true --grid {M}"
workload = "500*M^2"
record = "program"

[parameter]
name = "M"
min = 1000
max = 8000
points = 2

[machine_sets]
start = 2
max = 4
)";
  std::ofstream(dir / "study.toml") << "[study]\nname = \"s\"\nmax_rounds = 1\n\n[[experiment]]\nspec = \"plain.toml\"\n";
  RunOptions options;
  options.spec = dir / "study.toml";
  options.site = dir / "no-such-site.toml";
  options.dir = dir / "study";
  std::ostringstream out;
  try {
    (void)run_study(options, out);
    FAIL() << "the study ran without a site table";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-site.toml"), std::string::npos) << e.what();
  }
  EXPECT_NE(out.str().find((dir / "plain.toml").string() + ":8:10: warning: [code] record = \"program\" but "),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("/bin/true"), std::string::npos) << out.str();
  fs::remove_all(dir);
}

// While it lives: `squeue` on PATH is a script that prints `listed` (the job ids it would
// list) and appends its arguments to `args`; SLURM_CONF names an existing file; SLURM_JOB_ID
// is `own_job` (unset for none). Everything comes back at the end.
class FakeSqueue {
 public:
  FakeSqueue(const fs::path& dir, const std::string& listed, std::optional<std::uint64_t> own_job) : dir_(dir) {
    fs::create_directories(dir_);
    std::ofstream(dir_ / "squeue.out") << listed;
    std::ofstream(dir_ / "squeue") << "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" << (dir_ / "squeue.args").string()
                                   << "'\ncat '" << (dir_ / "squeue.out").string() << "'\n";
    fs::permissions(dir_ / "squeue", fs::perms::owner_all);
    std::ofstream(dir_ / "slurm.conf") << "";
    set("PATH", dir_.string() + ":" + saved("PATH").value_or("/usr/bin:/bin"));
    set("SLURM_CONF", (dir_ / "slurm.conf").string());
    own_job ? set("SLURM_JOB_ID", std::to_string(*own_job)) : unset("SLURM_JOB_ID");
  }
  FakeSqueue(const FakeSqueue&) = delete;
  FakeSqueue& operator=(const FakeSqueue&) = delete;
  ~FakeSqueue() {
    for (const auto& [name, value] : saved_) value ? ::setenv(name.c_str(), value->c_str(), 1) : ::unsetenv(name.c_str());
  }

  // What squeue was asked, one line per call; empty when it never was.
  [[nodiscard]] std::string asked() const {
    return fs::exists(dir_ / "squeue.args") ? read_text_file(dir_ / "squeue.args", "squeue arguments") : "";
  }

 private:
  static std::optional<std::string> saved(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  }
  void keep(const char* name) {
    for (const auto& entry : saved_)
      if (entry.first == name) return;
    saved_.emplace_back(name, saved(name));
  }
  void set(const char* name, const std::string& value) {
    keep(name);
    ::setenv(name, value.c_str(), 1);
  }
  void unset(const char* name) {
    keep(name);
    ::unsetenv(name);
  }

  fs::path dir_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A study waiting for its controller job 4242 (submitted, its arrays ended or not).
StudyState waiting_for_controller() {
  StudyState state;
  state.phase = Phase::measure;
  state.controller = 4242;
  record(state, "controller", "controller job 4242 submitted");
  return state;
}

TEST(StudyStep, ByHandIsRefusedWhileTheControllerIsPendingOrRunning) {
  const fs::path dir = fs::temp_directory_path() / ("study-by-hand-" + std::to_string(::getpid()));
  const StudyState state = waiting_for_controller();
  save_state(dir, state);
  const FakeSqueue squeue(dir / "bin", "4242\n", std::nullopt);  // squeue lists it: pending or running
  std::ostringstream out;
  try {
    step_study(dir, Chain::measured, out);
    FAIL() << "a step by hand ran beside the controller";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "controller job 4242 of the study in " + dir.string() +
                  " is pending or running and takes the next step itself: wait for it (hetscale study status --dir " +
                  dir.string() + "), or cancel it (scancel 4242) and run the step again");
  }
  EXPECT_TRUE(out.str().empty()) << out.str();
  EXPECT_EQ(state_json(load_state(dir)), state_json(state));  // untouched
  // The invoking user's job 4242, asked of squeue.
  EXPECT_EQ(squeue.asked(), "--noheader --format=%F --user " + slurm::invoking_user_name() + " --jobs 4242\n");
  // Run inside another job (an allocation of the user's, not the controller): by hand too.
  {
    const FakeSqueue in_other_job(dir / "bin-other", "4242\n", 99);
    EXPECT_THROW(step_study(dir, Chain::measured, out), Error);
    EXPECT_EQ(state_json(load_state(dir)), state_json(state));
  }
  fs::remove_all(dir);
}

// The controller job's own step, and a step by hand once the controller has ended (in any
// final state: squeue no longer lists it), go on. (Here they go on to the collect stage and
// fail there: this test's state names no study spec.)
TEST(StudyStep, TheControllersOwnStepAndAStepAfterItHasEndedGoOn) {
  const fs::path dir = fs::temp_directory_path() / ("study-own-step-" + std::to_string(::getpid()));
  for (const bool own : {true, false}) {
    SCOPED_TRACE(own ? "the controller's own step" : "a step by hand after the controller ended");
    save_state(dir, waiting_for_controller());
    const FakeSqueue squeue(dir / (own ? "bin-own" : "bin-ended"), own ? "4242\n" : "",
                            own ? std::optional<std::uint64_t>(4242) : std::nullopt);
    std::ostringstream out;
    try {
      step_study(dir, Chain::measured, out);
      FAIL() << "the step went on and succeeded without a study spec";
    } catch (const Error& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with("study failed in stage collect (measure round 0): ")) << e.what();
    }
    EXPECT_EQ(load_state(dir).phase, Phase::failed);  // the step went on
    // The controller's own step does not ask about itself.
    EXPECT_EQ(squeue.asked().empty(), own) << squeue.asked();
  }
  fs::remove_all(dir);
}

// A study whose twin's chain waits on its controller 5151 (mm's round 0 array submitted).
StudyState twin_waiting_for_controller() {
  StudyState state = waiting_for_controller();
  state.twin = TwinChain{};
  state.twin->phase = TwinPhase::simulate;
  state.twin->arrays = {{"mm", 0, 5150, "/d/mm/twin", 5151}};
  state.twin->begun = {"mm"};
  return state;
}

TEST(StudyStep, ByHandTheTwinsStepIsRefusedWhileItsControllerIsPendingOrRunning) {
  const fs::path dir = fs::temp_directory_path() / ("study-twin-by-hand-" + std::to_string(::getpid()));
  const StudyState state = twin_waiting_for_controller();
  save_state(dir, state);
  const FakeSqueue squeue(dir / "bin", "5151\n", std::nullopt);
  std::ostringstream out;
  try {
    step_study(dir, Chain::twin, out);
    FAIL() << "a step by hand ran beside the twin's controller";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "twin controller job 5151 of the study in " + dir.string() +
                  " is pending or running and takes the next step itself: wait for it (hetscale study status --dir " +
                  dir.string() + "), or cancel it (scancel 5151) and run the step again");
  }
  EXPECT_EQ(state_json(load_state(dir)), state_json(state));  // untouched
  EXPECT_EQ(squeue.asked(), "--noheader --format=%F --user " + slurm::invoking_user_name() + " --jobs 5151\n");
  fs::remove_all(dir);
}

// A chain with no step to take says so and changes nothing: the twin's before it begins,
// the measured one once its rounds have ended and the study waits for the twin's chain.
TEST(StudyStep, AChainWithNothingToDoSaysSo) {
  const fs::path dir = fs::temp_directory_path() / ("study-nothing-" + std::to_string(::getpid()));
  StudyState state = waiting_for_controller();
  state.twin = TwinChain{};
  save_state(dir, state);
  std::ostringstream out;
  step_study(dir, Chain::twin, out);
  EXPECT_EQ(out.str(), "twin's chain waiting: nothing to do\n");
  state.phase = Phase::twin;
  save_state(dir, state);
  out.str("");
  step_study(dir, Chain::measured, out);
  EXPECT_EQ(out.str(), "study twin: nothing to do\n");
  EXPECT_EQ(state_json(load_state(dir)), state_json(state));
  fs::remove_all(dir);
}

// Inside a Slurm job (a controller), a step waits while the other chain's step holds the
// study's lock, then goes on (here to the collect stage, which fails: no study spec).
TEST(StudyStep, InsideAJobAStepWaitsForTheOtherChainsStep) {
  const fs::path dir = fs::temp_directory_path() / ("study-lock-wait-" + std::to_string(::getpid()));
  save_state(dir, twin_waiting_for_controller());
  const FakeSqueue squeue(dir / "bin", "", 5151);  // the twin's controller's own step
  std::promise<void> held;
  std::thread other([&] {
    const ExclusiveFileLock lock(dir / "study.lock", "the measured chain's step");
    held.set_value();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  });
  held.get_future().wait();
  const auto start = std::chrono::steady_clock::now();
  std::ostringstream out;
  try {
    step_study(dir, Chain::twin, out);
    FAIL() << "the step succeeded without a study spec";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("study failed in stage twin: twin collect (mm): ")) << e.what();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(800));
  other.join();
  const StudyState after = load_state(dir);
  EXPECT_EQ(after.twin->phase, TwinPhase::failed);
  EXPECT_EQ(after.phase, Phase::measure);  // the measured chain goes on
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetscale::study
