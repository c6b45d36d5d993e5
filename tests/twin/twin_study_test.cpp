// Studies on the twin (hetscale::twin): planned like jobgen plans them, written as a study
// directory (host files with one line per rank, a plan the site library reads back, the platform),
// simulated under the real smpirun with the real hetscale-twin-mm; deterministic; a
// failing kernel leaves no record and is marked failed; missing SimGrid is a clear error;
// conducted whole from its files (grown site, calibration), said line by line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/jobgen/experiment_spec.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/problem_sizes.hpp"
#include "hetscale/model/efficiency_fit.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/site/round_plan.hpp"
#include "hetscale/site/run_record.hpp"
#include "hetscale/site/run_record_reader.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/twin/conduct.hpp"
#include "hetscale/twin/simulated_round.hpp"
#include "hetscale/twin/twin_platform.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

const fs::path fixtures = fs::path(HETSCALE_FIXTURES_DIR) / "twin";

constexpr const char* spec_text = R"(# sets of 2, 4 and 8 of the star8 site
[experiment]
name = "tw"
target_efficiency = 0.5
repetitions = 2

[code]
kernel = "mm"

[parameter]
min = 200
max = 1600
points = 3

[machine_sets]
start = 2
max = 8

[slurm]
time_limit = "00:05:00"
array_throttle = 4
)";

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class TwinStudyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    site_text_ = slurp(fixtures / "site.toml");
    site_ = parse_site_table(site_text_, (fixtures / "site.toml").string());
    platform_ = make_twin_platform(site_, {});
    root_ = fs::temp_directory_path() / ("hetscale-twin-study-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  jobgen::ExperimentSpec spec(const std::string& extra = "") const {
    return jobgen::parse_experiment_spec(spec_text + extra, "tw.toml");
  }

  twin::TwinRunnerOptions runner(unsigned jobs = 2) const {
    twin::TwinRunnerOptions options;
    options.smpirun = HETSCALE_SMPIRUN;
    options.kernel_dir = fs::path(HETSCALE_TWIN_MM).parent_path().string();
    options.jobs = jobs;
    return options;
  }

  // Writes round 0 of `s` into root_/name and returns it as loaded back from there.
  twin::SimulatedRound write(const std::string& name, const jobgen::ExperimentSpec& s,
                             twin::SimulatedRoundOptions options = {}) const {
    const twin::SimulatedRound simulated = twin::plan_simulated_round(s, site_, platform_, options);
    jobgen::write_round_directory(
        root_ / name, twin::simulated_round_files(simulated, platform_, site_text_, options, "2026-11-23T00:00:00Z"));
    return twin::load_simulated_round(root_ / name);
  }

  std::string site_text_;
  SiteTable site_;
  TwinPlatform platform_;
  fs::path root_;
};

TEST_F(TwinStudyTest, PlansTheSetsJobgenPlansWithOneRunPerSetSizeAndRepetition) {
  const twin::SimulatedRound simulated = twin::plan_simulated_round(spec(), site_, platform_, {});
  jobgen::ExperimentSpec renamed = spec();
  renamed.name = "tw-twin";
  const jobgen::Round jobgen_round = jobgen::plan_round(renamed, site_, std::string());
  EXPECT_EQ(simulated.round.spec.name, "tw-twin");
  EXPECT_EQ(simulated.platform_hash, platform_.sha256);
  ASSERT_EQ(simulated.round.sets.size(), jobgen_round.sets.size());
  ASSERT_EQ(simulated.round.sets.size(), 3u);
  std::size_t expected_runs = 0;
  for (std::size_t k = 0; k < simulated.round.sets.size(); ++k) {
    EXPECT_EQ(simulated.round.sets[k].set.nodes, jobgen_round.sets[k].set.nodes);
    EXPECT_EQ(simulated.round.sets[k].parameter_values, jobgen_round.sets[k].parameter_values);
    expected_runs += simulated.round.sets[k].parameter_values.size() * 2;
  }
  ASSERT_EQ(simulated.runs.size(), expected_runs);
  // Set by set, size by size, repetition by repetition; ranks = the set's tasks.
  for (std::size_t i = 0; i < simulated.runs.size(); ++i) {
    const twin::TwinRun& r = simulated.runs[i];
    EXPECT_EQ(r.task, i);
    EXPECT_EQ(r.repetition, i % 2);
    const jobgen::RoundSet& set = simulated.round.sets[r.set_index];
    EXPECT_EQ(r.ranks, set.total_tasks());
    EXPECT_EQ(r.value, set.parameter_values[r.value_index]);
  }
  EXPECT_EQ(simulated.runs.back().ranks, 8u);
  twin::SimulatedRoundOptions named;
  named.experiment = "mm.on-the-twin";
  EXPECT_EQ(twin::plan_simulated_round(spec(), site_, platform_, named).round.spec.name, "mm.on-the-twin");
}

TEST_F(TwinStudyTest, WritesHostFilesPerRankAPlanCoreReadsBackAndAnArrayScript) {
  twin::SimulatedRoundOptions options;
  options.sbatch = true;
  options.bin_dir = "/opt/hetscale/bin";
  const twin::SimulatedRound simulated = write("files", spec(), options);
  const fs::path dir = root_ / "files";
  for (const jobgen::RoundSet& set : simulated.round.sets) {
    const auto hosts = lines(slurp(dir / jobgen::host_file_name(set)));
    ASSERT_EQ(hosts.size(), set.total_tasks());
    for (std::size_t i = 0; i < hosts.size(); ++i) EXPECT_EQ(hosts[i], set.members[i].node);
  }
  const RoundPlan plan = load_round_plan(dir / twin::twin_plan_file);
  EXPECT_EQ(plan.experiment.name, "tw-twin");
  EXPECT_EQ(plan.machine_sets.size(), 3u);
  EXPECT_EQ(slurp(dir / "platform.xml"), platform_.xml);
  EXPECT_EQ(slurp(dir / "platform.sha256"), platform_.sha256 + "  platform.xml\n");
  EXPECT_EQ(slurp(dir / twin::twin_site_file), site_text_);
  EXPECT_EQ(slurp(dir / twin::twin_spec_file), spec_text);
  const std::string script = slurp(dir / twin::twin_sbatch_file);
  EXPECT_NE(script.find("#SBATCH --array=0-17%4\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --time=00:05:00\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"), std::string::npos) << script;
  EXPECT_NE(script.find("bin_dir=${HETSCALE_BIN_DIR:-/opt/hetscale/bin}"), std::string::npos) << script;
  // The last runs (the largest sets') first.
  EXPECT_NE(script.find("\"$bin_dir/hetscale\" twin run \"$study_dir\" --task $((17 - task))\n"), std::string::npos)
      << script;
  EXPECT_EQ(script.find("--partition"), std::string::npos) << script;  // the spec names none
  EXPECT_TRUE((fs::status(dir / twin::twin_sbatch_file).permissions() & fs::perms::owner_exec) != fs::perms::none);
}

// A partition of the twin's own replaces the spec's, and the spec's reservation and
// constraint, which choose measured nodes, are left out; the account stays.
TEST_F(TwinStudyTest, AnArrayScriptInAPartitionOfItsOwn) {
  twin::SimulatedRoundOptions options;
  options.sbatch = true;
  const std::string placed = "partition = \"batch\"\naccount = \"physics\"\nreservation = \"bench\"\nconstraint = \"fast\"\n";
  write("spec-partition", spec(placed), options);
  const std::string own = slurp(root_ / "spec-partition" / twin::twin_sbatch_file);
  EXPECT_NE(own.find("#SBATCH --partition=batch\n"), std::string::npos) << own;
  EXPECT_NE(own.find("#SBATCH --reservation=bench\n"), std::string::npos) << own;
  options.partition = "twin";
  write("twin-partition", spec(placed), options);
  const std::string script = slurp(root_ / "twin-partition" / twin::twin_sbatch_file);
  EXPECT_NE(script.find("#SBATCH --partition=twin\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --account=physics\n"), std::string::npos) << script;
  EXPECT_EQ(script.find("--partition=batch"), std::string::npos) << script;
  EXPECT_EQ(script.find("--reservation"), std::string::npos) << script;
  EXPECT_EQ(script.find("--constraint"), std::string::npos) << script;
}

// `--repetitions` other than the spec's: the array covers that many runs, and the study
// read back from its directory (what every `twin run --task` does) has the same runs.
TEST_F(TwinStudyTest, RepetitionsOtherThanTheSpecsAreKeptInTheDirectory) {
  twin::SimulatedRoundOptions options;
  options.sbatch = true;
  options.repetitions = 1;
  const twin::SimulatedRound planned = twin::plan_simulated_round(spec(), site_, platform_, options);
  const twin::SimulatedRound loaded = write("once", spec(), options);
  ASSERT_EQ(loaded.runs.size(), planned.runs.size());
  ASSERT_EQ(loaded.runs.size(), 9u);  // 3 sets x 3 sizes, once: the spec says twice
  for (std::size_t i = 0; i < loaded.runs.size(); ++i) {
    EXPECT_EQ(loaded.runs[i].set_index, planned.runs[i].set_index) << i;
    EXPECT_EQ(loaded.runs[i].value, planned.runs[i].value) << i;
    EXPECT_EQ(loaded.runs[i].repetition, 0u) << i;
  }
  EXPECT_EQ(slurp(root_ / "once" / twin::twin_repetitions_file), "1\n");
  EXPECT_NE(slurp(root_ / "once" / twin::twin_sbatch_file).find("#SBATCH --array=0-8%"), std::string::npos);
  // The spec's own count writes no file; a damaged one is named.
  write("default", spec());
  EXPECT_FALSE(fs::exists(root_ / "default" / twin::twin_repetitions_file));
  std::ofstream(root_ / "once" / twin::twin_repetitions_file) << "zero\n";
  try {
    twin::load_simulated_round(root_ / "once");
    ADD_FAILURE() << "a damaged repetitions file was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("repetitions: not a count of repetitions in [1, 1000]"), std::string::npos)
        << e.what();
  }
}

TEST_F(TwinStudyTest, ACommandOrEqualizedWeightsAreRefusedAtTheirKey) {
  const std::string command_spec = std::string(spec_text).replace(
      std::string(spec_text).find("kernel = \"mm\""), 13, "command = \"./solver {N}\"\nworkload = \"N^3\"");
  try {
    twin::plan_simulated_round(jobgen::parse_experiment_spec(command_spec, "cmd.toml"), site_, platform_, {});
    FAIL() << "a command was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().str(), "cmd.toml:8:11");
    EXPECT_NE(std::string(e.what()).find("bundled kernels"), std::string::npos) << e.what();
  }
  try {
    twin::plan_simulated_round(spec("weights = \"equalized\"\n"), site_, platform_, {});
    FAIL() << "equalized weights were accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().str(), "tw.toml:22:11");
  }
  try {
    twin::plan_simulated_round(spec("weights = [\"marked\", \"off\"]\n"), site_, platform_, {});
    FAIL() << "a list of weights was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().str(), "tw.toml:22:11");
    EXPECT_NE(std::string(e.what()).find("one value, not a list"), std::string::npos) << e.what();
  }
  twin::SimulatedRoundOptions bad;
  bad.experiment = "a b";
  EXPECT_THROW(twin::plan_simulated_round(spec(), site_, platform_, bad), Error);
}

TEST_F(TwinStudyTest, RunsEverySimulationIntoOrdinaryRecordsAndTheSameStudyTwiceGivesTheSameTimes) {
  const twin::SimulatedRound simulated = write("first", spec());
  const auto first = twin::run_simulated_round(root_ / "first", simulated, {}, runner(), {});
  ASSERT_EQ(first.size(), simulated.runs.size());
  std::map<std::size_t, RunRecord> records;
  for (const twin::TwinRunOutcome& o : first) {
    ASSERT_TRUE(o.succeeded) << slurp(root_ / "first" / twin::twin_log_file(o.run));
    const RunRecordFile file = read_run_records(root_ / "first" / twin::twin_record_file(o.run), OnInvalid::fail);
    ASSERT_EQ(file.records.size(), 1u);
    const RunRecord& r = file.records.front().record;
    EXPECT_EQ(r.experiment, "tw-twin");
    EXPECT_EQ(r.code, "mm");
    EXPECT_EQ(r.engine, "simgrid");
    EXPECT_EQ(r.platform_hash, platform_.sha256);
    EXPECT_EQ(r.machine_set, static_cast<int>(o.run.set_index));
    EXPECT_EQ(r.repetition, static_cast<int>(o.run.repetition));
    EXPECT_EQ(r.parameters.at("N"), o.run.value);
    EXPECT_EQ(r.ranks.size(), o.run.ranks);
    EXPECT_EQ(r.weights_source, "marked");
    EXPECT_EQ(r.wall_seconds, o.simulated_seconds);
    // Ranks on the simulated hosts of the set's host file, in order.
    const auto hosts = lines(slurp(root_ / "first" / jobgen::host_file_name(simulated.round.sets[o.run.set_index])));
    for (std::size_t i = 0; i < r.ranks.size(); ++i) EXPECT_EQ(r.ranks[i].host, hosts[i]);
    records[o.run.task] = r;
  }
  const auto status = lines(slurp(root_ / "first" / twin::twin_status_file));
  ASSERT_EQ(status.size(), simulated.runs.size() + 1);
  EXPECT_NE(status[1].find("\tdone\t0\t"), std::string::npos) << status[1];
  // No temporary record is left behind.
  for (const auto& entry : fs::directory_iterator(root_ / "first" / "records"))
    EXPECT_EQ(entry.path().extension(), ".jsonl") << entry.path();

  // Determinism: a second study directory, simulated one run at a time, gives the same
  // simulated times to the last bit, run by run and rank by rank.
  write("second", spec());
  const auto second = twin::run_simulated_round(root_ / "second", simulated, {}, runner(1), {});
  for (const twin::TwinRunOutcome& o : second) {
    ASSERT_TRUE(o.succeeded);
    const RunRecord r =
        read_run_records(root_ / "second" / twin::twin_record_file(o.run), OnInvalid::fail).records.front().record;
    const RunRecord& before = records.at(o.run.task);
    EXPECT_EQ(r.wall_seconds, before.wall_seconds) << "task " << o.run.task;
    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
      EXPECT_EQ(r.ranks[i].compute_seconds, before.ranks[i].compute_seconds);
      EXPECT_EQ(r.ranks[i].communication_seconds, before.ranks[i].communication_seconds);
    }
  }
  // Bigger sets at the same work per processor take longer: the network is in the loop.
  EXPECT_GT(records.at(0).wall_seconds, 0);

  // Run again: every record is there, nothing is simulated; --rerun simulates one again.
  const auto again = twin::run_simulated_round(root_ / "first", simulated, {}, runner(), {});
  for (const auto& o : again) EXPECT_TRUE(o.skipped);
  twin::TwinRunnerOptions rerun = runner();
  rerun.rerun = true;
  const auto one = twin::run_simulated_round(root_ / "first", simulated, {3}, rerun, {});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one.front().succeeded && !one.front().skipped);
  EXPECT_EQ(one.front().simulated_seconds, records.at(3).wall_seconds);
}

TEST_F(TwinStudyTest, AKernelFailingInsideTheTwinIsMarkedFailedAndLeavesNoRecord) {
  // A partition file for nodes the sets do not have: the kernel refuses it and exits 1.
  const fs::path partition = root_ / "bad-partition.toml";
  std::ofstream(partition) << "[partition]\nby = \"node\"\n\n[[node]]\nname = \"elsewhere\"\nweight = 1\n";
  const twin::SimulatedRound simulated = write("failing", spec("weights = \"" + partition.string() + "\"\n"));
  std::vector<std::string> progress;
  const auto outcomes = twin::run_simulated_round(
      root_ / "failing", simulated, {0, 1}, runner(),
      [&](const twin::TwinRunOutcome& o, std::size_t done, std::size_t total) {
        progress.push_back(std::to_string(done) + "/" + std::to_string(total) + (o.succeeded ? " ok" : " failed"));
      });
  ASSERT_EQ(outcomes.size(), 2u);
  for (const auto& o : outcomes) {
    EXPECT_FALSE(o.succeeded);
    EXPECT_NE(o.exit_status, 0);
    EXPECT_FALSE(fs::exists(root_ / "failing" / twin::twin_record_file(o.run)));
    EXPECT_NE(slurp(root_ / "failing" / twin::twin_log_file(o.run)).find("does not list node"), std::string::npos)
        << slurp(root_ / "failing" / twin::twin_log_file(o.run));
  }
  EXPECT_EQ(progress, (std::vector<std::string>{"1/2 failed", "2/2 failed"}));
  EXPECT_TRUE(fs::is_empty(root_ / "failing" / "records"));
}

// Each array task simulates one run (`twin run --task`): its outcome goes to its own status
// file, and once the array has ended they are gathered into status.tsv; a run without one
// (its task cancelled or out of time) is failed, and a failing kernel is failed too.
TEST_F(TwinStudyTest, RunsSimulatedOneByOneAreGatheredIntoTheRoundsStatus) {
  const twin::SimulatedRound simulated = write("tasks", spec());
  const auto first = twin::run_simulated_round(root_ / "tasks", simulated, {2}, runner(), {});
  const auto second = twin::run_simulated_round(root_ / "tasks", simulated, {0}, runner(), {});
  ASSERT_TRUE(first.front().succeeded && second.front().succeeded);
  EXPECT_FALSE(fs::exists(root_ / "tasks" / twin::twin_status_file));  // written for whole rounds only
  const auto outcomes = twin::gather_run_statuses(root_ / "tasks", simulated);
  ASSERT_EQ(outcomes.size(), simulated.runs.size());
  for (const twin::TwinRunOutcome& o : outcomes) {
    EXPECT_EQ(o.run.task, static_cast<std::size_t>(&o - outcomes.data()));
    if (o.run.task == 0 || o.run.task == 2) {
      EXPECT_TRUE(o.succeeded) << o.run.task;
      EXPECT_EQ(o.exit_status, 0);
      EXPECT_EQ(o.simulated_seconds, (o.run.task == 0 ? second : first).front().simulated_seconds);
    } else {
      EXPECT_FALSE(o.succeeded) << o.run.task;
      EXPECT_EQ(o.exit_status, -1);
    }
  }
  const auto status = lines(slurp(root_ / "tasks" / twin::twin_status_file));
  ASSERT_EQ(status.size(), simulated.runs.size() + 1);
  EXPECT_NE(status[1].find("\tdone\t0\t"), std::string::npos) << status[1];
  EXPECT_NE(status[2].find("\tfailed\t-1\t"), std::string::npos) << status[2];
  std::vector<std::string> said;
  const twin::TwinRunCounts counts = twin::count_array_runs(
      root_ / "tasks", simulated, 812, [&](LineKind, const std::string& line) { said.push_back(line); });
  EXPECT_EQ(counts.simulated, 2u);
  EXPECT_EQ(counts.failed, simulated.runs.size() - 2);
  ASSERT_EQ(said.size(), simulated.runs.size() + 1);
  EXPECT_EQ(said.back(), "runs: 2 simulated, 0 kept, 16 failed (array job 812)\n");

  const fs::path partition = root_ / "bad-partition.toml";
  std::ofstream(partition) << "[partition]\nby = \"node\"\n\n[[node]]\nname = \"elsewhere\"\nweight = 1\n";
  const twin::SimulatedRound failing = write("failing-task", spec("weights = \"" + partition.string() + "\"\n"));
  (void)twin::run_simulated_round(root_ / "failing-task", failing, {1}, runner(), {});
  const auto failed = twin::gather_run_statuses(root_ / "failing-task", failing);
  EXPECT_FALSE(failed[1].succeeded);
  EXPECT_GT(failed[1].exit_status, 0);
}

// The work of size n of `round`'s workload.
double work_of(const jobgen::Round& round, double n) {
  return round.spec.workload.evaluate(std::span<const double>(&n, 1));
}

// A run of set k of `round` at size n reading E_s = e: E_s = W / (T C), C in Mflops.
jobgen::MeasuredRun run_reading(const jobgen::Round& round, std::size_t k, double n, double e) {
  jobgen::MeasuredRun r;
  r.set_index = k;
  r.parameter = n;
  r.work = work_of(round, n);
  r.wall_seconds = r.work / (e * round.sets[k].set.marked_speed * 1e6);
  r.source = "test";
  return r;
}

// A first round bounded to sets of 4 nodes leaves the set of 8 without sizes; it begins
// in a later round once the two sets below it bracket their targets, at half, once and
// twice the work the psi between them puts its target at.
TEST_F(TwinStudyTest, ALargerSetBeginsWhereTheSmallerSetsPutItsTarget) {
  twin::SimulatedRoundOptions options;
  options.first_round_nodes = 4;
  const twin::SimulatedRound first = twin::plan_simulated_round(spec(), site_, platform_, options);
  ASSERT_EQ(first.round.sets.size(), 3u);
  EXPECT_FALSE(first.round.sets[1].parameter_values.empty());
  EXPECT_TRUE(first.round.sets[2].parameter_values.empty());
  for (const twin::TwinRun& r : first.runs) EXPECT_LT(r.set_index, 2u);

  const jobgen::Round& round = first.round;
  const auto work = [&](double n) { return work_of(round, n); };
  const auto run = [&](std::size_t k, double n, double e) { return run_reading(round, k, n, e); };
  jobgen::Round next = round;
  next.number = 1;
  for (jobgen::RoundSet& set : next.sets) set.parameter_values.clear();
  std::vector<std::string> said;
  const Say say = [&](LineKind, const std::string& line) { said.push_back(line); };
  // Set 1's runs stay below the target: set 2 waits.
  std::vector<jobgen::MeasuredRun> runs = {run(0, 200, 0.4), run(0, 400, 0.6), run(1, 300, 0.3), run(1, 500, 0.45)};
  EXPECT_FALSE(twin::begin_next_set(next, runs, say));
  EXPECT_TRUE(next.sets[2].parameter_values.empty());
  // Both bracket it: set 2 begins.
  runs.push_back(run(1, 800, 0.7));
  ASSERT_EQ(twin::begin_next_set(next, runs, say), std::optional<std::size_t>(2));
  const auto points = jobgen::measured_points(runs, next);
  const double w0 = work(EfficiencyCurve::fit(points.at(0)).parameter_at(0.5).parameter);
  const double w1 = work(EfficiencyCurve::fit(points.at(1)).parameter_at(0.5).parameter);
  const double c0 = round.sets[0].set.marked_speed, c1 = round.sets[1].set.marked_speed,
               c2 = round.sets[2].set.marked_speed;
  const double psi = (c1 * w0) / (c0 * w1);
  const double w2 = w1 * (c2 / c1) / psi;
  const std::vector<double>& sizes = next.sets[2].parameter_values;
  ASSERT_EQ(sizes.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const double expected = std::round(jobgen::parameter_for_work(round.spec.workload, w2 * (i == 0 ? 0.5 : i == 1 ? 1 : 2), 1));
    EXPECT_EQ(sizes[i], expected) << i;
  }
  ASSERT_FALSE(said.empty());
  EXPECT_TRUE(said.back().starts_with("set 2: begins at N = " + std::to_string(static_cast<long long>(sizes[1]))))
      << said.back();
  // Begun (it has runs now): nothing more to begin.
  runs.push_back(run(2, sizes[1], 0.5));
  jobgen::Round later = next;
  for (jobgen::RoundSet& set : later.sets) set.parameter_values.clear();
  EXPECT_FALSE(twin::begin_next_set(later, runs, say));
}

// A set whose runs come within the spec's tolerance of the target without bracketing it
// is reached for the refinement, which gives it no more runs: the next set begins from the
// size that came within tolerance instead of waiting for a bracket that never comes.
TEST_F(TwinStudyTest, ALargerSetBeginsWhenTheSetBelowIsWithinToleranceOfTheTarget) {
  twin::SimulatedRoundOptions options;
  options.first_round_nodes = 4;
  const twin::SimulatedRound first = twin::plan_simulated_round(spec(), site_, platform_, options);
  ASSERT_EQ(first.round.sets.size(), 3u);
  const jobgen::Round& round = first.round;
  ASSERT_EQ(round.spec.target_efficiency, 0.5);
  ASSERT_EQ(round.spec.refine.tolerance, 0.02);
  const auto work = [&](double n) { return work_of(round, n); };
  const auto run = [&](std::size_t k, double n, double e) { return run_reading(round, k, n, e); };
  jobgen::Round next = round;
  next.number = 1;
  for (jobgen::RoundSet& set : next.sets) set.parameter_values.clear();
  const Say say = [](LineKind, const std::string&) {};
  // Set 1 reads 0.4925 at its largest size: below 0.5, by less than 2% of it.
  std::vector<jobgen::MeasuredRun> runs = {run(0, 200, 0.4), run(0, 400, 0.6), run(1, 300, 0.3),
                                           run(1, 800, 0.4925)};
  ASSERT_EQ(twin::begin_next_set(next, runs, say), std::optional<std::size_t>(2));
  const auto points = jobgen::measured_points(runs, next);
  const double w0 = work(EfficiencyCurve::fit(points.at(0)).parameter_at(0.5).parameter);
  const double w1 = work(800);  // the size within tolerance
  const double psi = (round.sets[1].set.marked_speed * w0) / (round.sets[0].set.marked_speed * w1);
  const double w2 = w1 * (round.sets[2].set.marked_speed / round.sets[1].set.marked_speed) / psi;
  ASSERT_EQ(next.sets[2].parameter_values.size(), 3u);
  EXPECT_EQ(next.sets[2].parameter_values[1], std::round(jobgen::parameter_for_work(round.spec.workload, w2, 1)));
  // Farther than the tolerance (0.48, 4% below): it waits, as before.
  jobgen::Round waiting = round;
  for (jobgen::RoundSet& set : waiting.sets) set.parameter_values.clear();
  runs.back() = run(1, 800, 0.48);
  EXPECT_FALSE(twin::begin_next_set(waiting, runs, say));
}

TEST_F(TwinStudyTest, MissingSmpirunOrKernelIsAClearErrorBeforeAnyRun) {
  const twin::SimulatedRound simulated = write("missing", spec());
  twin::TwinRunnerOptions no_smpirun = runner();
  no_smpirun.smpirun = "/nonexistent/smpirun";
  try {
    twin::run_simulated_round(root_ / "missing", simulated, {}, no_smpirun, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("libsimgrid-dev"), std::string::npos) << e.what();
  }
  twin::TwinRunnerOptions no_kernel = runner();
  no_kernel.kernel_dir = "/nonexistent";
  try {
    twin::run_simulated_round(root_ / "missing", simulated, {}, no_kernel, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/hetscale-twin-mm"), std::string::npos) << e.what();
  }
  EXPECT_THROW(twin::run_simulated_round(root_ / "missing", simulated, {simulated.runs.size()}, runner(), {}), Error);
  // Relative directories are taken from the caller's working directory, not the study's.
  const fs::path kernel_dir = fs::path(HETSCALE_TWIN_MM).parent_path();
  const fs::path before = fs::current_path();
  fs::current_path(kernel_dir.parent_path());
  twin::TwinRunnerOptions relative = runner();
  relative.kernel_dir = kernel_dir.filename().string();
  const auto outcomes = twin::run_simulated_round(root_ / "missing", simulated, {0}, relative, {});
  fs::current_path(before);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_TRUE(outcomes.front().succeeded) << slurp(root_ / "missing" / twin::twin_log_file(outcomes.front().run));
  fs::remove(root_ / "missing" / twin::twin_record_file(outcomes.front().run));
  EXPECT_TRUE(fs::is_empty(root_ / "missing" / "records"));
}

// Calibration from measured records: per rank weight x W / (compute seconds x marked
// speed), the median over the ranks of the runs at each set's largest size only.
TEST_F(TwinStudyTest, ComputeEfficiencyIsTheMedianRankOfTheLargestMeasuredSizes) {
  const auto run = [](int set, double n, double work, std::vector<std::pair<double, double>> ranks,
                      const char* engine = nullptr) {
    RunRecord r;
    r.code = "mm";
    r.machine_set = set;
    r.parameters = {{"N", n}};
    r.work = work;
    if (engine != nullptr) r.engine = engine;
    for (const auto& [weight, seconds] : ranks) r.ranks.push_back({0, "n", weight, 100, seconds, 0, seconds});
    return r;
  };
  // 100 Mflops per rank (flops_per_unit 1e6): W = 1e9 split in halves takes 5 s at full speed.
  std::vector<RunRecord> records = {
      run(0, 500, 1e9, {{0.5, 10}, {0.5, 10}}),          // a smaller size: left out
      run(0, 1000, 1e9, {{0.5, 6.25}, {0.5, 5}}),         // 0.8 and 1.0
      run(1, 2000, 4e9, {{0.25, 10}, {0.25, 12.5}, {0.25, 10}, {0.25, 20}}),  // 1.0, 0.8, 1.0, 0.5
      run(1, 2000, 4e9, {{0.25, 1}}, "simgrid"),          // a twin run: left out
  };
  records.push_back(records[1]);
  records.back().code = "ge";  // another code: left out
  const twin::ComputeCalibration c = twin::measured_compute_efficiency(records, "mm", 1e6);
  EXPECT_EQ(c.runs, 2u);
  EXPECT_EQ(c.ranks, 6u);
  EXPECT_DOUBLE_EQ(c.efficiency, 0.9);  // median of 0.5, 0.8, 0.8, 1, 1, 1
  EXPECT_THROW(twin::measured_compute_efficiency(records, "conv2d", 1e6), Error);

  // On the twin, an efficiency of 0.5 doubles every rank's compute time.
  twin::SimulatedRoundOptions half;
  half.compute_efficiency = 0.5;
  const twin::SimulatedRound full_study = write("full", spec());
  const twin::SimulatedRound half_study = write("half", spec(), half);
  EXPECT_EQ(half_study.compute_efficiency, 0.5);  // read back from the directory
  const auto a = twin::run_simulated_round(root_ / "full", full_study, {4}, runner(), {});
  const auto b = twin::run_simulated_round(root_ / "half", half_study, {4}, runner(), {});
  ASSERT_TRUE(a.front().succeeded && b.front().succeeded);
  const RunRecord fa = read_run_records(root_ / "full" / twin::twin_record_file(a.front().run), OnInvalid::fail)
                           .records.front().record;
  const RunRecord fb = read_run_records(root_ / "half" / twin::twin_record_file(b.front().run), OnInvalid::fail)
                           .records.front().record;
  for (std::size_t i = 0; i < fa.ranks.size(); ++i)
    EXPECT_NEAR(fb.ranks[i].compute_seconds, 2 * fa.ranks[i].compute_seconds, 1e-6);  // SimGrid: 1e-8 s steps
}

// A study conducted from its files: the site grown, the compute efficiency calibrated
// from measured records, every run simulated into a record, each step said in a line.
TEST_F(TwinStudyTest, IsConductedFromItsFilesGrownAndCalibratedAndSaysWhatItDid) {
  const fs::path spec_file = root_ / "tw.toml";
  std::ofstream(spec_file) << spec_text;
  // Measured runs of mm at every rank's 80% of its marked speed (100 Mflops): W = 1e9 in
  // halves takes 6.25 s instead of 5.
  const fs::path measured = root_ / "measured";
  fs::create_directories(measured / "set0");
  for (const int set : {0, 1}) {
    RunRecord r;
    r.experiment = "tw";
    r.code = "mm";
    r.workload = "mm";
    r.parameters = {{"N", 1000}};
    r.work = 1e9;
    r.wall_seconds = 6.25;
    r.machine_set = set;
    for (int rank = 0; rank < 2; ++rank) r.ranks.push_back({rank, "n", 0.5, 100, 6.25, 0, 6.25});
    append_run_record(measured / (set == 0 ? "set0/a.jsonl" : "b.jsonl"), r);
  }
  twin::TwinStudyRequest request;
  request.spec = spec_file;
  request.site = fixtures / "site.toml";
  request.output_dir = root_ / "conducted";
  request.nodes = 16;
  request.calibrate_from = {measured};
  request.options.max_set_nodes = 4;
  request.options.repetitions = 1;
  request.runner = runner();
  std::vector<std::pair<LineKind, std::string>> said;
  const twin::SimulatedRoundOutcome outcome = twin::conduct_twin_study(
      request, [&](LineKind kind, const std::string& line) { said.emplace_back(kind, line); });

  // Sets of 2 and 4 of the 16 nodes, each size once: a record per run, the calibrated
  // efficiency kept in the directory.
  const fs::path dir = root_ / "conducted";
  const RoundPlan plan = load_round_plan(dir / twin::twin_plan_file);
  ASSERT_EQ(plan.machine_sets.size(), 2u);
  EXPECT_EQ(plan.machine_sets.back().set.nodes.size(), 4u);
  std::size_t runs = 0;
  for (const PlannedSet& set : plan.machine_sets) runs += set.parameter_values.size();
  EXPECT_EQ(parse_site_table(slurp(dir / twin::twin_site_file), "site.toml").nodes.size(), 16u);
  EXPECT_EQ(slurp(dir / twin::twin_compute_efficiency_file), "0.8\n");
  EXPECT_EQ(outcome.dir, dir);
  EXPECT_EQ(outcome.experiment, "tw-twin");
  EXPECT_EQ(outcome.runs, runs);
  ASSERT_TRUE(outcome.counts.has_value());
  EXPECT_EQ(outcome.counts->simulated, runs);
  EXPECT_EQ(outcome.counts->kept, 0u);
  EXPECT_EQ(outcome.counts->failed, 0u);
  EXPECT_EQ(outcome.counts->jobs, 2u);
  EXPECT_NO_THROW(twin::require_no_failed_runs(outcome));
  for (twin::TwinRun run; run.task < runs; ++run.task) {
    const RunRecordFile file = read_run_records(dir / twin::twin_record_file(run), OnInvalid::fail);
    ASSERT_EQ(file.records.size(), 1u);
    const RunRecord& r = file.records.front().record;
    EXPECT_EQ(r.experiment, "tw-twin");
    EXPECT_EQ(r.repetition, 0);
    const auto& values = plan.machine_sets.at(static_cast<std::size_t>(r.machine_set.value())).parameter_values;
    EXPECT_NE(std::find(values.begin(), values.end(), r.parameters.at("N")), values.end()) << "task " << run.task;
  }
  EXPECT_EQ(lines(slurp(dir / twin::twin_status_file)).size(), runs + 1);

  // The calibration and the default network first, the study written, a note per run,
  // the counts last.
  ASSERT_EQ(said.size(), runs + 4);
  EXPECT_EQ(said[0].first, LineKind::note);
  EXPECT_EQ(said[0].second,
            "hetscale twin study: compute efficiency 0.8 of the marked speed, the median of 4 ranks in 2 measured "
            "runs at each set's largest size\n");
  EXPECT_EQ(said[1].first, LineKind::note);
  EXPECT_EQ(said[1].second, "hetscale twin study: " + (fixtures / "site.toml").string() +
                                " has no [network]; the twin uses the default network\n");
  EXPECT_EQ(said[2].first, LineKind::result);
  EXPECT_EQ(said[2].second, "twin study: " + dir.string() + " (experiment tw-twin, 2 sets, " +
                                std::to_string(runs) + " runs, platform " +
                                slurp(dir / "platform.sha256").substr(0, 12) + ")\n");
  for (std::size_t i = 3; i + 1 < said.size(); ++i) {
    EXPECT_EQ(said[i].first, LineKind::note);
    EXPECT_EQ(said[i].second.rfind("hetscale twin: [" + std::to_string(i - 2) + "/" +
                                       std::to_string(runs) + "] set ",
                                   0),
              0u)
        << said[i].second;
  }
  EXPECT_EQ(said.back().first, LineKind::result);
  EXPECT_EQ(said.back().second, "runs: " + std::to_string(runs) + " simulated, 0 kept, 0 failed (2 at a time)\n");
  EXPECT_EQ(said.back().second, twin::to_string(*outcome.counts) + "\n");

  // Both an efficiency and records to calibrate it from: refused before anything is written.
  request.output_dir = root_ / "both";
  request.options.compute_efficiency = 0.5;
  EXPECT_THROW(twin::conduct_twin_study(request, [](LineKind, const std::string&) {}), Error);
  EXPECT_FALSE(fs::exists(root_ / "both"));
}

// A later round of a twin study, planned elsewhere (here: the first set's sizes again, no
// others), on the platform of the round before it and written beside it; a round with no
// runs writes nothing.
TEST_F(TwinStudyTest, ALaterRoundRunsOnThePlatformOfTheRoundBefore) {
  twin::SimulatedRoundOptions options;
  options.sbatch = true;
  options.bin_dir = "/opt/hetscale/bin";
  const twin::SimulatedRound first = write("round0", spec(), options);
  jobgen::Round planned = first.round;
  planned.number = 1;
  for (std::size_t k = 1; k < planned.sets.size(); ++k) planned.sets[k].parameter_values.clear();
  std::vector<std::pair<LineKind, std::string>> said;
  const auto keep = [&](LineKind kind, const std::string& line) { said.emplace_back(kind, line); };
  const auto next = twin::next_simulated_round(first, planned, keep);
  ASSERT_TRUE(next.has_value());
  EXPECT_TRUE(said.empty());
  EXPECT_EQ(next->platform_hash, first.platform_hash);
  EXPECT_EQ(next->compute_efficiency, first.compute_efficiency);
  EXPECT_EQ(next->runs.size(), first.round.sets[0].parameter_values.size() * 2);  // 2 repetitions
  const fs::path dir = root_ / "round1";
  const twin::SimulatedRoundOutcome outcome =
      twin::write_and_run_later_round(dir, *next, root_ / "round0", options, runner(), keep);
  EXPECT_FALSE(outcome.counts.has_value());
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[0].first, LineKind::result);
  EXPECT_EQ(said[0].second, "twin study: " + dir.string() + " (experiment tw-twin, round 1, " +
                                std::to_string(next->runs.size()) + " runs, platform " +
                                first.platform_hash.substr(0, 12) + ")\n");
  EXPECT_EQ(said[1].second, "submit: cd " + dir.string() + " && sbatch twin.sbatch\n");
  const twin::SimulatedRound back = twin::load_simulated_round(dir);
  EXPECT_EQ(back.round.number, 1u);
  EXPECT_EQ(back.runs.size(), next->runs.size());
  EXPECT_EQ(back.platform_hash, first.platform_hash);
  EXPECT_EQ(slurp(dir / "platform.xml"), slurp(root_ / "round0" / "platform.xml"));

  said.clear();
  planned.sets[0].parameter_values.clear();
  EXPECT_FALSE(twin::next_simulated_round(first, planned, keep).has_value());
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].second, "nothing to refine: no files written\n");
}

// A study begun with one repetition of each size (`--repetitions 1`, the twin's runs being
// deterministic) keeps one in its later rounds, although their planner reads the spec's two.
TEST_F(TwinStudyTest, ALaterRoundKeepsTheRepetitionsOfTheRoundBefore) {
  twin::SimulatedRoundOptions options;
  options.sbatch = true;
  options.bin_dir = "/opt/hetscale/bin";
  options.repetitions = 1;
  const twin::SimulatedRound first = write("round0", spec(), options);
  ASSERT_EQ(first.round.spec.repetitions, 1u);
  jobgen::Round planned = first.round;
  planned.number = 1;
  planned.spec.repetitions = 2;  // as study::next_round plans from the stored spec
  const auto keep = [](LineKind, const std::string&) {};
  const auto next = twin::next_simulated_round(first, planned, keep);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->round.spec.repetitions, 1u);
  std::size_t sizes = 0;
  for (const auto& set : planned.sets) sizes += set.parameter_values.size();
  EXPECT_EQ(next->runs.size(), sizes);
  const fs::path dir = root_ / "round1";
  twin::write_and_run_later_round(dir, *next, root_ / "round0", options, runner(), keep);
  EXPECT_EQ(slurp(dir / twin::twin_repetitions_file), "1\n");
  EXPECT_EQ(twin::load_simulated_round(dir).runs.size(), sizes);
}

// Availability profiles on every host: with no start spread every run starts at 0 of the
// profiles, so repetitions are identical; with one, each run starts at its own moment
// (--start-at, twin_run_start), repetitions differ as on a shared cluster, the same
// study simulated again gives the same times, and a later round keeps the spread.
TEST_F(TwinStudyTest, RunsStartedAcrossTheSpreadDifferFromRepetitionToRepetitionAndStayDeterministic) {
  TwinAvailability availability;
  availability.every_host = AvailabilitySetting{0.7, 0.15};
  platform_ = make_twin_platform(site_, {std::nullopt, availability});
  const jobgen::ExperimentSpec s = spec("[refine]\nprecision = 0.1\n");
  const auto walls = [&](const std::string& name, const twin::SimulatedRound& simulated) {
    // By set and size, in repetition order (the runs end in any order).
    std::map<std::pair<std::size_t, double>, std::vector<double>> by_size;
    for (const twin::TwinRunOutcome& o : twin::run_simulated_round(root_ / name, simulated, {}, runner(), {})) {
      EXPECT_TRUE(o.succeeded) << slurp(root_ / name / twin::twin_log_file(o.run));
      auto& times = by_size[{o.run.set_index, o.run.value}];
      times.resize(std::max<std::size_t>(times.size(), o.run.repetition + 1));
      times[o.run.repetition] = o.simulated_seconds;
    }
    return by_size;
  };
  const twin::SimulatedRound still = write("still", s);
  EXPECT_EQ(still.start_spread, 0);
  for (const auto& [size, times] : walls("still", still)) {
    ASSERT_EQ(times.size(), 2u);
    EXPECT_EQ(times[0], times[1]) << "set " << size.first << " N=" << size.second;
  }
  twin::SimulatedRoundOptions options;
  options.start_spread = 3600;
  const twin::SimulatedRound spread = write("spread", s, options);
  EXPECT_EQ(spread.start_spread, 3600);  // read back from the directory
  EXPECT_EQ(slurp(root_ / "spread" / twin::twin_start_spread_file), "3600\n");
  for (const twin::TwinRun& run : spread.runs) {
    const double start = twin::twin_run_start(run, 3600);
    EXPECT_GE(start, 0);
    EXPECT_LT(start, 3600);
    const auto argv = twin::twin_run_command(root_ / "spread", spread, run, runner());
    const auto at = std::find(argv.begin(), argv.end(), "--start-at");
    ASSERT_NE(at, argv.end());
    EXPECT_EQ(std::stod(*(at + 1)), start);
  }
  const auto first = walls("spread", spread);
  std::size_t differing = 0;
  for (const auto& [size, times] : first) differing += times[0] != times[1] ? 1 : 0;
  EXPECT_GE(differing, first.size() - 1) << "repetitions that meet other moments of the profiles differ";
  write("spread-again", s, options);
  EXPECT_EQ(walls("spread-again", spread), first);
  // A later round keeps the spread; the twin refines towards the spec's precision only
  // where its runs vary.
  jobgen::Round planned = spread.round;
  planned.number = 1;
  const auto keep = [](LineKind, const std::string&) {};
  EXPECT_EQ(twin::next_simulated_round(spread, planned, keep)->start_spread, 3600);
  jobgen::Round latest = spread.round;
  twin::twin_refinement_spec(latest, spread);
  EXPECT_EQ(latest.spec.refine.precision, 0.1);
  twin::twin_refinement_spec(latest, still);
  EXPECT_FALSE(latest.spec.refine.precision);
}

// With sbatch the study is written and nothing runs; runs that fail are counted, and
// require_no_failed_runs names their logs.
TEST_F(TwinStudyTest, ConductedWithSbatchRunsNothingAndFailedRunsAreCounted) {
  const fs::path partition = root_ / "bad-partition.toml";
  std::ofstream(partition) << "[partition]\nby = \"node\"\n\n[[node]]\nname = \"elsewhere\"\nweight = 1\n";
  const fs::path spec_file = root_ / "tw.toml";
  std::ofstream(spec_file) << spec_text << "weights = \"" << partition.string() << "\"\n";
  twin::TwinStudyRequest request;
  request.spec = spec_file;
  request.site = fixtures / "site.toml";
  request.output_dir = root_ / "array";
  request.options.max_set_nodes = 2;
  request.options.repetitions = 1;
  request.options.sbatch = true;
  request.runner = runner();
  std::vector<std::string> results;
  const auto keep_results = [&](LineKind kind, const std::string& line) {
    if (kind == LineKind::result) results.push_back(line);
  };
  const twin::SimulatedRoundOutcome array = twin::conduct_twin_study(request, keep_results);
  EXPECT_FALSE(array.counts.has_value());
  EXPECT_NO_THROW(twin::require_no_failed_runs(array));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results.back(), "submit: cd " + (root_ / "array").string() + " && sbatch twin.sbatch\n");
  EXPECT_TRUE(fs::exists(root_ / "array" / twin::twin_sbatch_file));
  EXPECT_FALSE(fs::exists(root_ / "array" / twin::twin_status_file));

  request.output_dir = root_ / "failing";
  request.options.sbatch = false;
  results.clear();
  const twin::SimulatedRoundOutcome failing = twin::conduct_twin_study(request, keep_results);
  ASSERT_TRUE(failing.counts.has_value());
  EXPECT_EQ(failing.runs, 3u);  // one set of 2 nodes, 3 sizes
  EXPECT_EQ(failing.counts->failed, failing.runs);
  EXPECT_EQ(failing.counts->simulated, 0u);
  EXPECT_EQ(results.back(), "runs: 0 simulated, 0 kept, 3 failed (2 at a time)\n");
  EXPECT_TRUE(fs::is_empty(root_ / "failing" / "records"));
  try {
    twin::require_no_failed_runs(failing);
    FAIL() << "failed runs were not an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "3 of 3 runs failed; their logs are in " + (root_ / "failing" / "logs").string() +
                                         " (status.tsv lists every run)");
  }
}

}  // namespace
}  // namespace hetscale
