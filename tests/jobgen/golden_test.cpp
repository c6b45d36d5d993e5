// The generated files of the example experiments, compared byte for byte with committed
// golden files (written once, then reviewed by hand). After an intended change, regenerate with
//   HETSCALE_UPDATE_GOLDEN=1 build/default/bin/jobgen_tests --gtest_filter='*Golden*'
// and review the diff of tests/fixtures/jobgen/golden/ before committing it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <unistd.h>

#include "hetscale/jobgen/refine.hpp"
#include "hetscale/jobgen/round_files.hpp"
#include "hetscale/jobgen/scripts.hpp"

namespace hetscale::jobgen {
namespace {

namespace fs = std::filesystem;

const fs::path golden_root = fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "golden";
// Fixed inputs that would otherwise vary from machine to machine or run to run.
const RenderOptions render{"/opt/hetscale/bin"};
constexpr const char* created = "2026-01-01T00:00:00Z";
const std::string study_token = "0a1b2c3d";  // drawn at random for a study: fixed here

bool updating() {
  const char* flag = std::getenv("HETSCALE_UPDATE_GOLDEN");
  return flag != nullptr && std::string(flag) == "1";
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The spec is named by its path in the repository: the plan file records it.
std::vector<GeneratedFile> generate(const std::string& example) {
  const std::string spec_path = "examples/experiments/" + example + ".toml";
  const auto spec = parse_experiment_spec(read(fs::path(HETSCALE_SOURCE_DIR) / spec_path), spec_path);
  const auto site = load_site_table(fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "site-example.toml");
  return round_files(plan_round(spec, site, study_token), render, created);
}

std::set<std::string> golden_files(const fs::path& dir) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) out.insert(fs::relative(entry.path(), dir).string());
  return out;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, GeneratedFilesMatch) {
  const fs::path dir = golden_root / GetParam();
  const auto files = generate(GetParam());
  if (updating()) {
    fs::remove_all(dir);
    for (const auto& file : files) {
      fs::create_directories((dir / file.path).parent_path());
      std::ofstream(dir / file.path, std::ios::binary) << file.content;
    }
  }
  std::set<std::string> generated;
  for (const auto& file : files) {
    generated.insert(file.path.string());
    EXPECT_EQ(file.content, read(dir / file.path)) << "differs from " << (dir / file.path).string()
                                                   << " (HETSCALE_UPDATE_GOLDEN=1 regenerates)";
  }
  EXPECT_EQ(generated, golden_files(dir)) << "stale or missing golden files in " << dir.string();
}

// The plan file has one definition (the site library's round_plan.hpp): what jobgen writes, the site library reads
// back and writes again byte for byte, processors as used by the round included.
TEST_P(Golden, PlanReadsBackThroughCore) {
  const fs::path file = golden_root / GetParam() / "plan.json";
  const RoundPlan plan = load_round_plan(file);
  EXPECT_EQ(plan.experiment.name, load_experiment_spec(fs::path(HETSCALE_SOURCE_DIR) / "examples" /
                                                       "experiments" / (GetParam() + ".toml"))
                                      .name);
  EXPECT_EQ(to_json(plan).dump(2) + "\n", read(file));
}

// `jobgen --refine --db` plans a round from the plan the database holds: the round read
// back from its plan renders the same files, plan included.
TEST_P(Golden, RoundComesBackFromItsPlan) {
  const std::string spec_path = "examples/experiments/" + GetParam() + ".toml";
  const auto spec = parse_experiment_spec(read(fs::path(HETSCALE_SOURCE_DIR) / spec_path), spec_path);
  const auto site = load_site_table(fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "site-example.toml");
  Round round = plan_round(spec, site, study_token);
  round.number = 2;
  const RoundPlan plan = plan_of_round(round, created);
  const Round back = round_from_plan(spec, plan);
  EXPECT_EQ(back.number, 2U);
  const auto expected = round_files(round, render, created);
  const auto files = round_files(back, render, created);
  ASSERT_EQ(files.size(), expected.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(files[i].path, expected[i].path);
    EXPECT_EQ(files[i].content, expected[i].content) << files[i].path.string();
  }
  // A plan of another experiment is refused.
  RoundPlan other = plan;
  other.experiment.target_efficiency /= 2;
  EXPECT_THROW(round_from_plan(spec, other), Error);
}

INSTANTIATE_TEST_SUITE_P(Examples, Golden, ::testing::Values("mm", "ge", "conv2d", "heat", "mm-weights"));

// A refinement round that adds repetitions (docs/experiment-spec.md, "Repetitions by
// precision"), from mm's round 0: set 0 repeats its sizes 566 (repetitions 2 and 3) and 800
// (repetition 2), set 1 runs new sizes with every repetition of the spec, set 2 is done.
Round round_with_added_repetitions() {
  const std::string spec_path = "examples/experiments/mm.toml";
  const auto spec = parse_experiment_spec(read(fs::path(HETSCALE_SOURCE_DIR) / spec_path), spec_path);
  const auto site = load_site_table(fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "site-example.toml");
  const Round first = plan_round(spec, site, study_token);
  const auto& sizes = first.sets[0].parameter_values;
  SetRefinement repeat{0, SetRefinement::Status::repeat, 700, {sizes[1], sizes[2]}, "", {{2, 3}, {2}}};
  SetRefinement more{1, SetRefinement::Status::refine, 1000, {960, 1000, 1040}, "", {}};
  SetRefinement done{2, SetRefinement::Status::reached, 1500, {}, "", {}};
  Round next = refined_round(first, {repeat, more, done});
  for (RoundSet& set : next.sets)
    if (!set.parameter_values.empty()) set.time_limit = planned_time_limit(next, set);
  return next;
}

TEST(GoldenRefinement, ARoundThatAddsRepetitionsListsThemPerTask) {
  const fs::path dir = golden_root / "mm-repetitions";
  const Round round = round_with_added_repetitions();
  const auto files = round_files(round, render, created);
  if (updating()) {
    fs::remove_all(dir);
    for (const auto& file : files) {
      fs::create_directories((dir / file.path).parent_path());
      std::ofstream(dir / file.path, std::ios::binary) << file.content;
    }
  }
  std::set<std::string> generated;
  for (const auto& file : files) {
    generated.insert(file.path.string());
    EXPECT_EQ(file.content, read(dir / file.path)) << "differs from " << (dir / file.path).string()
                                                   << " (HETSCALE_UPDATE_GOLDEN=1 regenerates)";
  }
  EXPECT_EQ(generated, golden_files(dir)) << "stale or missing golden files in " << dir.string();
  // Read back from its plan (as jobgen --refine --db and status read a round), it is the
  // same round: every task's repetitions included.
  const RoundPlan plan = load_round_plan(dir / "plan.json");
  EXPECT_EQ(plan.machine_sets[0].repetitions, (std::vector<std::vector<std::uint32_t>>{{2, 3}, {2}}));
  EXPECT_TRUE(plan.machine_sets[1].repetitions.empty());
  const Round back = round_from_plan(round.spec, plan);
  const auto again = round_files(back, render, created);
  ASSERT_EQ(again.size(), files.size());
  for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(again[i].content, files[i].content) << files[i].path;
  // The set with lists runs 3 repetitions of 566 and 800 in all: its time limit covers 2 a task.
  EXPECT_EQ(most_task_repetitions(round, round.sets[0]), 2U);
  EXPECT_EQ(task_repetitions(round, round.sets[1], 0), (std::vector<std::uint32_t>{0, 1}));
  const fs::path scratch = fs::temp_directory_path() / ("hetscale-jobgen-repetitions-" + std::to_string(::getpid()));
  write_round_directory(scratch, files);
  EXPECT_EQ(std::system(("bash -n " + (scratch / "set0.sbatch").string()).c_str()), 0);
  fs::remove_all(scratch);
}

// [probe]: round 0's set scripts probe the network of their set once, in array task 0,
// before its runs; a later round runs on the same sets and does not probe again.
TEST(GeneratedScripts, RoundZeroProbesEverySetAndLaterRoundsDoNot) {
  const auto spec = parse_experiment_spec(read(fs::path(HETSCALE_SOURCE_DIR) / "examples/experiments/mm.toml"),
                                          "examples/experiments/mm.toml");
  ASSERT_TRUE(spec.probe);
  const auto site = load_site_table(fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "site-example.toml");
  Round round = plan_round(spec, site, study_token);
  ASSERT_GE(round.sets.size(), 2U);
  for (const RoundSet& set : round.sets) {
    const std::string script = render_set_script(round, set, render);
    const std::string file = "probes/set" + std::to_string(set.set.index) + ".commbench.json";
    EXPECT_EQ(probe_file_name(set.set.index), file);
    EXPECT_THAT(script, ::testing::HasSubstr("probe=\"$study_dir/" + file + "\""));
    EXPECT_THAT(script, ::testing::HasSubstr("--nodes=" + std::to_string(set.members.size()) +
                                             " --ntasks-per-node=1 --hetscale-weights=off"));
    EXPECT_THAT(script, ::testing::HasSubstr("--experiment mm-scaling --machine-set " +
                                             std::to_string(set.set.index) + " --budget-seconds 10"));
    // Before the runs and before SLURM_HOSTFILE places the ranks of a set whose nodes run
    // different numbers of them (the example's sets), only where the probe is not written yet.
    EXPECT_LT(script.find("hetscale-commbench"), script.find("for repetition in"));
    ASSERT_NE(script.find("export SLURM_HOSTFILE"), std::string::npos);
    EXPECT_LT(script.find("hetscale-commbench"), script.find("export SLURM_HOSTFILE"));
    EXPECT_THAT(script, ::testing::HasSubstr("[ \"$SLURM_ARRAY_TASK_ID\" = 0 ] && [ ! -e \"$probe\" ]"));
  }
  round.number = 1;
  for (const RoundSet& set : round.sets)
    EXPECT_EQ(render_set_script(round, set, render).find("commbench"), std::string::npos);
  Round without = plan_round(parse_experiment_spec(read(fs::path(HETSCALE_SOURCE_DIR) / "examples/experiments/ge.toml"),
                                                   "examples/experiments/ge.toml"),
                             site, study_token);
  for (const RoundSet& set : without.sets)
    EXPECT_EQ(render_set_script(without, set, render).find("commbench"), std::string::npos);
}

// The plan file carries the spec's text: a database password in it never reaches the file.
TEST(PlanFile, HoldsTheSpecWithoutDatabasePasswords) {
  const std::string spec_path = "examples/experiments/mm.toml";
  for (const std::string database :
       {"postgresql://alice:s3cret@db/hetscale", "host=db user=alice password='s3cret'"}) {
    std::string text = read(fs::path(HETSCALE_SOURCE_DIR) / spec_path);
    const std::string given = "database = \"postgresql:///hetscale\"";
    const auto at = text.find(given);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, given.size(), "database = \"" + database + "\"");
    const auto spec = parse_experiment_spec(text, spec_path);
    EXPECT_EQ(spec.database, database);
    const auto site =
        load_site_table(fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "site-example.toml");
    const RoundPlan plan = plan_of_round(plan_round(spec, site, study_token), created);
    ASSERT_TRUE(plan.experiment.spec);
    EXPECT_EQ(plan.experiment.spec->text.find("s3cret"), std::string::npos);
    EXPECT_NE(plan.experiment.spec->text.find("***"), std::string::npos);
    EXPECT_EQ(to_json(plan).dump().find("s3cret"), std::string::npos);
  }
}

TEST(SpecCopy, HoldsNoDatabasePasswordAndIsTheOwnersOnly) {
  const fs::path dir = fs::temp_directory_path() / ("hetscale-spec-copy-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  write_round_directory(dir, {spec_copy("experiment.toml", "[experiment]\nname = \"mm\"\n"
                                                           "database = \"postgresql://alice:s3cret@db/hetscale\"\n"),
                              {"set0.sbatch", "#!/bin/sh\n", true}});
  EXPECT_EQ(read(dir / "experiment.toml"),
            "[experiment]\nname = \"mm\"\ndatabase = \"postgresql://alice@db/hetscale\"\n");
  const auto mode = [&](const char* name) { return fs::status(dir / name).permissions() & fs::perms::all; };
  EXPECT_EQ(mode("experiment.toml"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(mode("set0.sbatch"), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec);
  fs::remove_all(dir);
}

// The scripts must at least be valid shell: checked with the shells that will run them.
TEST(GeneratedScripts, PassTheShellSyntaxCheck) {
  const fs::path dir = fs::temp_directory_path() / ("hetscale-jobgen-syntax-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  for (const std::string example : {"mm", "ge", "conv2d", "heat", "mm-weights"}) {
    write_round_directory(dir / example, generate(example));
    for (const auto& entry : fs::directory_iterator(dir / example)) {
      const std::string name = entry.path().filename().string();
      const bool batch = name.ends_with(".sbatch");
      if (!batch && name != "submit.sh") continue;
      const std::string check = std::string(batch ? "bash" : "sh") + " -n " + entry.path().string();
      EXPECT_EQ(std::system(check.c_str()), 0) << check;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetscale::jobgen

namespace hetscale::jobgen {
namespace {

// Values that reach a script from anywhere but a spec just read (a round from the database,
// a site table built in memory) may hold line breaks: the comment lines stay comments.
TEST(GeneratedScripts, ValuesWithLineBreaksStayInTheirCommentLines) {
  const std::string spec_path = "examples/experiments/mm.toml";
  const auto spec = parse_experiment_spec(read(fs::path(HETSCALE_SOURCE_DIR) / spec_path), spec_path);
  const auto site = load_site_table(fs::path(HETSCALE_FIXTURES_DIR) / "jobgen" / "site-example.toml");
  Round round = plan_round(spec, site, study_token);
  ASSERT_FALSE(round.sets.empty());
  round.site.name = "site\nexit 2";
  round.sets[0].members.front().group = "blade\r\nexit 2";
  const std::string script = render_set_script(round, round.sets[0], render);
  EXPECT_NE(script.find("(site 'site\\nexit 2';"), std::string::npos) << script;
  EXPECT_NE(script.find("blade\\r\\nexit 2"), std::string::npos) << script;
  // Every line before the #SBATCH options is a comment.
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line) && !line.starts_with("#SBATCH");)
    EXPECT_TRUE(line.starts_with("#")) << "'" << line << "'";
}

TEST(ExperimentSpec, AWorkloadWithALineBreakIsRefusedAtItsPlace) {
  const std::string text =
      "[experiment]\nname = \"t\"\ntarget_efficiency = 0.5\n\n[code]\ncommand = \"./a {N}\"\n"
      "workload = \"\"\"2*N^3\n+ N\"\"\"\n\n[parameter]\nvalues = [100, 2000]\n";
  try {
    (void)parse_experiment_spec(text, "spec.toml");
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "spec.toml:7:12: 'workload' must be one line, without a line break");
  }
}

}  // namespace
}  // namespace hetscale::jobgen
