// `hetscale jobgen --refine --db`: a generated study, fabricated run records for its sets
// collected into a real PostgreSQL database, then the follow-up round computed from the
// database (alone, or with the study directories) and from the record files must be the
// same (docs/science.md section 2, the STAS refinement; docs/experiment-spec.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

using CliResult = cli::testing::Result;

using cli::testing::hetscale;
using cli::testing::read_file;

std::set<std::string> files_under(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) out.insert(fs::relative(entry.path(), dir).string());
  return out;
}

// 1/E_s = 2 + k/W with W = 2 N^3: the target 0.3 is reached at N = 1000.
double model_efficiency(double n) {
  constexpr double k = (1 / 0.3 - 2) * 2e9;
  return 1 / (2 + k / (2 * n * n * n));
}

class RefineFromDatabase : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hetscale-refine-db-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    db_.migrate();
    // mm.toml names partition "batch": never ask a Slurm the environment may point to.
    ::setenv("SLURM_CONF", (root_ / "no-slurm.conf").c_str(), 1);
    // examples/experiments/mm.toml with one refinement round at most.
    spec_ = root_ / "mm.toml";
    std::ofstream(spec_) << read_file(fs::path(HETSCALE_SOURCE_DIR) /
                                      "examples/experiments/mm.toml")
                         << "\n[refine]\nmax_rounds = 1\n";
    const auto r = generate(root_ / "mm-study");
    ASSERT_EQ(r.code, 0) << r.err;
  }
  void TearDown() override { fs::remove_all(root_); }

  CliResult generate(const fs::path& dir) const {
    return hetscale(
        {"jobgen", "--site", std::string(HETSCALE_FIXTURES_DIR) + "/jobgen/site-example.toml",
         "--experiment", spec_.string(), "-o", dir.string(), "--kernel-dir", "/opt/hetscale/bin"});
  }

  // One record file per set of a study directory, as its array tasks would leave them;
  // `efficiency` gives E_s at each size, C is the set's from the plan.
  void write_records(const fs::path& study, int set, const std::vector<double>& sizes,
                     double (*efficiency)(double)) {
    const auto plan = nlohmann::json::parse(read_file(study / "plan.json"));
    const double speed = plan["machine_sets"][set]["marked_speed"];
    const int nodes = static_cast<int>(plan["machine_sets"][set]["nodes"].size());
    std::vector<std::string> lines;
    for (double n : sizes) {
      const double work = 2 * n * n * n;
      const double seconds = work / (efficiency(n) * speed * 1e6);  // C in Mflops
      lines.push_back(
          record_json("mm-scaling", n, set, 0, work, seconds, speed, nodes, serial_++).dump());
    }
    write_lines(study / "records" /
                    ("set" + std::to_string(set) + "-" + std::to_string(serial_) + "_0.jsonl"),
                lines);
  }

  CliResult collect(const fs::path& study) const {
    return hetscale({"collect", "--db", db_.uri(), study.string()});
  }

  // No `from` and `database`: the database alone.
  CliResult refine(const std::vector<fs::path>& from, const fs::path& out, bool database,
                   const std::string& experiment = "mm-scaling") const {
    std::vector<std::string> args{"jobgen", "--refine",   "--experiment", experiment,
                                  "-o",     out.string(), "--kernel-dir", "/opt/hetscale/bin"};
    for (const auto& dir : from) args.insert(args.end(), {"--from", dir.string()});
    if (database) args.insert(args.end(), {"--db", db_.uri()});
    return hetscale(args);
  }

  fs::path root_;
  fs::path spec_;
  TestDatabase db_;
  int serial_ = 0;
};

// Both outputs are one line per set, then "wrote DIR ...": equal but for the directory.
// From the database alone the round has no site.toml (its plan.json holds the site), and
// its plan names the spec the first study was made from, not the study directory's copy.
void expect_same_round(const CliResult& from_records, const fs::path& records_dir,
                       const CliResult& from_db, const fs::path& db_dir, bool alone = false) {
  ASSERT_EQ(from_records.code, 0) << from_records.err;
  ASSERT_EQ(from_db.code, 0) << from_db.err;
  std::string expected = from_records.out;
  for (auto at = expected.find(records_dir.string()); at != std::string::npos;
       at = expected.find(records_dir.string(), at))
    expected.replace(at, records_dir.string().size(), db_dir.string());
  EXPECT_EQ(from_db.out, expected);
  auto files = files_under(records_dir);
  if (alone) files.erase("site.toml");
  ASSERT_EQ(files_under(db_dir), files);
  for (const std::string& file : files) {
    if (file == "plan.json") {
      auto a = nlohmann::json::parse(read_file(records_dir / file));
      auto b = nlohmann::json::parse(read_file(db_dir / file));
      for (auto* plan : {&a, &b}) {
        plan->erase("created");  // the time each was written
        if (alone) (*plan)["experiment"]["spec"].erase("path");
      }
      EXPECT_EQ(b, a) << file;
    } else {
      EXPECT_EQ(read_file(db_dir / file), read_file(records_dir / file)) << file;
    }
  }
}

TEST_F(RefineFromDatabase, GivesTheRoundTheRecordsGive) {
  const fs::path first = root_ / "mm-study";
  write_records(first, 0, {400, 566, 800, 1131, 1600}, model_efficiency);  // brackets 1000
  write_records(first, 1, {800, 1000, 1200}, model_efficiency);            // 1000 is on target
  // Not collected yet: the database cannot answer, and nothing is written.
  auto r = refine({first}, root_ / "early", true);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(
      r.err,
      "hetscale jobgen: experiment 'mm-scaling' is not in the database: collect the study first "
      "(hetscale collect --db URI " +
          first.string() + ")\n");
  EXPECT_FALSE(fs::exists(root_ / "early"));

  r = collect(first);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(
      r.out,
      "collected 2 record file(s) and 1 plan(s): 8 runs added (22 rank rows), 0 already present, "
      "0 rejected\n");
  const auto from_records = refine({first}, root_ / "round1-records", false);
  const auto from_db = refine({first}, root_ / "round1-db", true);
  expect_same_round(from_records, root_ / "round1-records", from_db, root_ / "round1-db");
  // Set 1 already holds the target within tolerance: no new jobs; set 2 has no runs.
  EXPECT_NE(from_db.out.find("set 1: E_s = 0.3 at 1000 is within 2% of the target 0.3\n"),
            std::string::npos)
      << from_db.out;
  EXPECT_NE(from_db.out.find("set 2: no runs collected\n"), std::string::npos);
  EXPECT_TRUE(fs::exists(root_ / "round1-db" / "set0.sbatch"));
  EXPECT_FALSE(fs::exists(root_ / "round1-db" / "set1.sbatch"));
  EXPECT_FALSE(fs::exists(root_ / "round1-db" / "set2.sbatch"));
  const auto plan = nlohmann::json::parse(read_file(root_ / "round1-db" / "plan.json"));
  const auto sizes = plan["machine_sets"][0]["parameter_values"].get<std::vector<double>>();
  ASSERT_EQ(sizes.size(), 5U);
  EXPECT_NEAR(sizes[2], 1000, 30);

  // Round 1 runs, far from the target (E_s = 0.25), collected: with max_rounds = 1 the
  // second refinement is one round too many for set 0, from the database as from records.
  const fs::path round1 = root_ / "round1-db";
  write_records(round1, 0, sizes, [](double) { return 0.25; });
  r = collect(round1);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto second_records = refine({first, round1}, root_ / "round2-records", false);
  const auto second_db = refine({first, round1}, root_ / "round2-db", true);
  ASSERT_EQ(second_db.code, 0) << second_db.err;
  EXPECT_EQ(second_db.out, second_records.out);
  EXPECT_EQ(second_db.out,
            "set 0: target 0.3 not reached within 1 refinement round\n"
            "set 1: E_s = 0.3 at 1000 is within 2% of the target 0.3\n"
            "set 2: no runs collected\n"
            "nothing to refine: no files written\n");
  EXPECT_FALSE(fs::exists(root_ / "round2-db"));
}

// `--db` without `--from`: spec, sets and round number from the latest plan collected.
TEST_F(RefineFromDatabase, NeedsNoStudyDirectories) {
  const fs::path first = root_ / "mm-study";
  write_records(first, 0, {400, 566, 800, 1131, 1600}, model_efficiency);
  write_records(first, 1, {800, 1000, 1200}, model_efficiency);
  ASSERT_EQ(collect(first).code, 0);
  EXPECT_EQ(
      db_.scalar("SELECT string_agg(round || ':' || spec_path || ':' || refine_tolerance, ',') "
                 "FROM hetscale.plan_rounds"),
      "0:" + spec_.string() + ":0.02");
  EXPECT_EQ(db_.scalar("SELECT spec_text FROM hetscale.plan_rounds"), read_file(spec_));

  const fs::path round1 = root_ / "round1-alone";
  const auto from_records = refine({first}, root_ / "round1-records", false);
  const auto alone = refine({}, round1, true);
  expect_same_round(from_records, root_ / "round1-records", alone, round1, true);
  EXPECT_EQ(read_file(round1 / "experiment.toml"), read_file(spec_));
  const auto plan = nlohmann::json::parse(read_file(round1 / "plan.json"));
  EXPECT_EQ(plan["round"], 1);
  EXPECT_EQ(plan["experiment"]["spec"]["path"], spec_.string());
  EXPECT_EQ(plan["experiment"]["refine"]["max_rounds"], 1);

  // Round 1 collected, its runs far from the target: the round is now 1, max_rounds = 1.
  write_records(round1, 0, plan["machine_sets"][0]["parameter_values"].get<std::vector<double>>(),
                [](double) { return 0.25; });
  ASSERT_EQ(collect(round1).code, 0);
  EXPECT_EQ(
      db_.scalar("SELECT string_agg(round::text, ',' ORDER BY round) FROM hetscale.plan_rounds"),
      "0,1");
  const auto second = refine({}, root_ / "round2-alone", true);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(second.out, refine({first, round1}, root_ / "round2-records", false).out);
  EXPECT_EQ(second.out,
            "set 0: target 0.3 not reached within 1 refinement round\n"
            "set 1: E_s = 0.3 at 1000 is within 2% of the target 0.3\n"
            "set 2: no runs collected\n"
            "nothing to refine: no files written\n");
  EXPECT_FALSE(fs::exists(root_ / "round2-alone"));

  // analyze without --tolerance takes the spec's [refine] tolerance (here the default's
  // 0.02 too; the next test sets its own).
  const auto a = hetscale({"analyze", "--db", db_.uri(), "--experiment", "mm-scaling", "--target",
                           "0.3", "--format", "json"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(nlohmann::json::parse(a.out)["tolerance_source"], "refine");
}

// Each round's plan is stored, and the latest round's spec is the one refined from.
TEST_F(RefineFromDatabase, CountsTheRoundsAndTakesTheLatestSpec) {
  // A spec with three rounds and a 10% tolerance, as a new first study.
  std::ofstream(spec_) << read_file(fs::path(HETSCALE_SOURCE_DIR) / "examples/experiments/mm.toml")
                       << "\n[refine]\nmax_rounds = 3\ntolerance = 0.1\n";
  const fs::path first = root_ / "study3";
  ASSERT_EQ(generate(first).code, 0);
  write_records(first, 0, {400, 566, 800}, model_efficiency);  // short of the target
  ASSERT_EQ(collect(first).code, 0);
  fs::path previous = first;
  for (int round = 1; round <= 2; ++round) {
    const fs::path dir = root_ / ("r" + std::to_string(round));
    const auto r = refine({}, dir, true);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto plan = nlohmann::json::parse(read_file(dir / "plan.json"));
    EXPECT_EQ(plan["round"], round);
    EXPECT_EQ(plan["experiment"]["refine"]["tolerance"], 0.1);
    // Still short of the target: the next estimate is larger.
    const auto sizes = plan["machine_sets"][0]["parameter_values"].get<std::vector<double>>();
    write_records(dir, 0, {sizes.front()}, [](double) { return 0.2; });
    ASSERT_EQ(collect(dir).code, 0);
    previous = dir;
  }
  EXPECT_EQ(db_.scalar("SELECT max(round) FROM hetscale.plan_rounds"), "2");
  // The third round is the last the spec allows; the fourth is refused for set 0.
  auto r = refine({}, root_ / "r3", true);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(root_ / "r3" / "plan.json"))["round"], 3);
  ASSERT_EQ(collect(root_ / "r3").code, 0);
  r = refine({}, root_ / "r4", true);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("set 0: target 0.3 not reached within 3 refinement rounds\n"))
      << r.out;
  EXPECT_FALSE(fs::exists(root_ / "r4"));

  // analyze: the stored tolerance unless --tolerance is given, and says which.
  auto a =
      hetscale({"analyze", "--db", db_.uri(), "--experiment", "mm-scaling", "--target", "0.3"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("\ntolerance 0.1 (the experiment's [refine] tolerance): "),
            std::string::npos)
      << a.out;
  a = hetscale({"analyze", "--db", db_.uri(), "--experiment", "mm-scaling", "--target", "0.3",
                "--tolerance", "0.05"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("\ntolerance 0.05 (--tolerance): "), std::string::npos) << a.out;
}

// A study planned again under the same name starts again from its round 0: the old
// study's later rounds, still in plan_rounds, must not give the spec or the round.
TEST_F(RefineFromDatabase, StartsAgainFromAStudyPlannedAgain) {
  const std::string mm = read_file(fs::path(HETSCALE_SOURCE_DIR) / "examples/experiments/mm.toml");
  std::ofstream(spec_) << mm << "\n[refine]\nmax_rounds = 3\n";
  const fs::path first = root_ / "old";
  ASSERT_EQ(generate(first).code, 0);
  write_records(first, 0, {400, 566, 800}, model_efficiency);  // short of the target
  ASSERT_EQ(collect(first).code, 0);
  for (const char* round : {"old-r1", "old-r2"}) {
    const auto r = refine({}, root_ / round, true);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto plan = nlohmann::json::parse(read_file(root_ / round / "plan.json"));
    const auto sizes = plan["machine_sets"][0]["parameter_values"].get<std::vector<double>>();
    write_records(root_ / round, 0, {sizes.front()}, [](double) { return 0.2; });
    ASSERT_EQ(collect(root_ / round).code, 0);
  }
  ASSERT_EQ(db_.scalar("SELECT max(round) FROM hetscale.plan_rounds"), "2");
  // Plans carry their creation time to the second: the new plan must be later.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  std::ofstream(spec_) << mm << "\n[refine]\nmax_rounds = 5\ntolerance = 0.1\n";
  const fs::path again = root_ / "new";
  ASSERT_EQ(generate(again).code, 0);
  ASSERT_EQ(collect(again).code, 0);
  const auto r = refine({}, root_ / "new-r1", true);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto plan = nlohmann::json::parse(read_file(root_ / "new-r1" / "plan.json"));
  EXPECT_EQ(plan["round"], 1);
  EXPECT_EQ(plan["experiment"]["refine"]["tolerance"], 0.1);
  const auto a =
      hetscale({"analyze", "--db", db_.uri(), "--experiment", "mm-scaling", "--target", "0.3"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("\ntolerance 0.1 (the experiment's [refine] tolerance): "),
            std::string::npos)
      << a.out;
}

TEST_F(RefineFromDatabase, NamesTheKnownExperiments) {
  auto r = refine({}, root_ / "next", true, "nope");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale jobgen: experiment 'nope' is not in the database (it holds no experiment): "
            "collect its study first (hetscale collect --db URI DIR)\n");
  ASSERT_EQ(collect(root_ / "mm-study").code, 0);
  ASSERT_EQ(hetscale({"collect", "--db", db_.uri(),
                      std::string(HETSCALE_FIXTURES_DIR) + "/plans/mm-small.json"})
                .code,
            0);
  r = refine({}, root_ / "next", true, "nope");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale jobgen: experiment 'nope' is not in the database (known: mm-scaling, "
            "mm-small): collect its study first (hetscale collect --db URI DIR)\n");
  EXPECT_FALSE(fs::exists(root_ / "next"));
}

// A plan file of an older jobgen has no spec text and no round: the database cannot plan
// the next round, and says what to do.
TEST_F(RefineFromDatabase, NeedsAPlanWithTheSpec) {
  ASSERT_EQ(hetscale({"collect", "--db", db_.uri(),
                      std::string(HETSCALE_FIXTURES_DIR) + "/plans/mm-small.json"})
                .code,
            0);
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.plan_rounds"), "0");
  auto r = refine({}, root_ / "next", true, "mm-small");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(
      r.err,
      "hetscale jobgen: experiment 'mm-small' was collected from plan files without the "
      "experiment spec (written by an older hetscale jobgen): collect the plan.json of a study "
      "written by this jobgen (hetscale collect --db URI DIR), or give the study directories "
      "with --from DIR...\n");
  EXPECT_FALSE(fs::exists(root_ / "next"));
  // Only runs, no plan at all.
  const fs::path records = root_ / "runs-only.jsonl";
  write_lines(records, {record_json("runs-only", 100, 0, 0, 2e6, 1, 100, 2, 1).dump()});
  ASSERT_EQ(hetscale({"collect", "--db", db_.uri(), records.string()}).code, 0);
  r = refine({}, root_ / "next", true, "runs-only");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(
      r.err,
      "hetscale jobgen: experiment 'runs-only' has no plan in the database, only runs: collect "
      "its study directory (hetscale collect --db URI DIR, which loads DIR/plan.json)\n");
  // analyze falls back to the default tolerance.
  std::vector<std::string> lines;
  for (double n : {10.0, 20.0, 40.0, 80.0})
    lines.push_back(record_json("mm-small", n, 0, 0, 2 * n * n * n, 2 * n * n * n / (0.3 * 100e6),
                                100, 2, static_cast<int>(n))
                        .dump());
  write_lines(root_ / "mm-small.jsonl", lines);
  ASSERT_EQ(hetscale({"collect", "--db", db_.uri(), (root_ / "mm-small.jsonl").string()}).code, 0);
  const auto a = hetscale({"analyze", "--db", db_.uri(), "--experiment", "mm-small", "--target",
                           "0.3", "--format", "json"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(nlohmann::json::parse(a.out)["tolerance_source"], "default");
  EXPECT_EQ(nlohmann::json::parse(a.out)["tolerance"], 0.02);
}

TEST_F(RefineFromDatabase, RefusesThePlanOfAnotherSiteTable) {
  const fs::path first = root_ / "mm-study";
  ASSERT_EQ(collect(first).code, 0);
  // The same experiment planned again on a site whose fat nodes got faster.
  const fs::path site = root_ / "faster-site.toml";
  std::string text = read_file(std::string(HETSCALE_FIXTURES_DIR) + "/jobgen/site-example.toml");
  text.replace(text.find("marked_speed = 40.0"), 19, "marked_speed = 50.0");
  std::ofstream(site) << text;
  const fs::path other = root_ / "other-study";
  ASSERT_EQ(hetscale({"jobgen", "--site", site.string(), "--experiment", spec_.string(), "-o",
                      other.string()})
                .code,
            0);
  const auto r = refine({other}, root_ / "next", true);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(
      r.err.find("machine set 0 of experiment 'mm-scaling' in the database is not the set of " +
                 other.string()),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(root_ / "next"));
}

}  // namespace
}  // namespace hetscale::test
