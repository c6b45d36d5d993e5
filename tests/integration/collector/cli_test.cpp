// The db migrate, collect and analyze subcommands, run in-process against the server.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "cli_runner.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

using CliResult = cli::testing::Result;

CliResult hetscale(std::vector<std::string> args) { return cli::testing::run_cli(std::move(args)); }

TEST(Cli, MigrateCollectAnalyze) {
  TestDatabase db;
  CliResult r = hetscale({"db", "migrate", "--db", db.uri(), "--to", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "database at schema version 2 (was 0; applied 1, 2)\n");
  r = hetscale({"db", "migrate", "--db", db.uri()});
  EXPECT_EQ(r.out,
            "database at schema version 27 (was 2; applied 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
            "14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27)\n");
  r = hetscale({"db", "migrate", "--db", db.uri()});
  EXPECT_EQ(r.out, "database at schema version 27: nothing to apply\n");

  const fs::path dir = fs::temp_directory_path() / ("hetscale-cli-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<std::string> lines;
  for (int set = 0; set < 2; ++set) {
    const int nodes = 2 << set;
    for (double n : {10.0, 20.0, 40.0, 80.0, 160.0, 320.0}) {
      const double work = 2 * n * n * n;
      const double speed = 100.0 * (set + 1);
      const double seconds = work / (n / (n + 20.0 * nodes) * speed * 1e6);
      lines.push_back(record_json("mm-small", n, set, 0, work, seconds, speed, nodes,
                                  static_cast<int>(lines.size()))
                          .dump());
    }
  }
  lines.insert(lines.begin() + 3, "{broken");
  write_lines(dir / "runs.jsonl", lines);
  r = hetscale({"collect", "--db", db.uri(), (dir / "runs.jsonl").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale collect: " + (dir / "runs.jsonl").string() +
                       ":4:2: invalid JSON: syntax error while parsing object key - invalid "
                       "literal; last read: '{b'; expected string literal\n");
  r = hetscale({"collect", "--db", db.uri(), "--skip-invalid", "--rejects",
                (dir / "rejects.jsonl").string(), (dir / "runs.jsonl").string(),
                std::string(HETSCALE_FIXTURES_DIR) + "/plans/mm-small.json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "collected 1 record file(s) and 1 plan(s): 12 runs added (36 rank rows), 0 "
            "already present, 1 rejected\nrejected lines were appended to " +
                (dir / "rejects.jsonl").string() + "\n");

  r = hetscale({"analyze", "--db", db.uri(), "--experiment", "mm-small", "--target", "0.5",
                "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  // One run per size: every figure says why it has no interval (docs/collector.md).
  const std::string too_few =
      "too few runs: 1 run at {} and 1 run at {}, the sizes that bracket the target; an interval "
      "needs 2 at each";
  const std::string set0 = fmt::format(fmt::runtime(too_few), 20, 40);
  const std::string set1 = fmt::format(fmt::runtime(too_few), 40, 80);
  EXPECT_EQ(r.out,
            "set,nodes,groups,marked_speed,runs,status,parameter,parameter_low,parameter_high,"
            "parameter_interval_note,work,work_low,work_high,work_interval_note,nearest_parameter,"
            "nearest_efficiency\n"
            "0,2,blade=1 server=1,100,6,found,40,,,\"" + set0 + "\",128000,,,\"" + set0 + "\",40,0.5\n"
            "1,4,blade=2 server=2,200,6,found,80,,,\"" + set1 + "\",1024000,,,\"" + set1 + "\",80,0.5\n"
            "\n"
            "from_set,to_set,from_speed,to_speed,from_work,to_work,psi,psi_low,psi_high,"
            "psi_interval_note\n"
            "0,1,100,200,128000,1024000,0.25,,,\"no interval: set 0 has none (" + set0 + ")\"\n"
            "\n"
            "set,parameter,runs,efficiency,efficiency_low,efficiency_high,efficiency_interval_note,"
            "stddev_efficiency\n"
            "0,10,1,0.2,,,1 run,\n"
            "0,20,1,0.33333333333333326,,,1 run,\n"
            "0,40,1,0.5,,,1 run,\n"
            "0,80,1,0.6666666666666665,,,1 run,\n"
            "0,160,1,0.8,,,1 run,\n"
            "0,320,1,0.8888888888888887,,,1 run,\n"
            "1,10,1,0.11111111111111109,,,1 run,\n"
            "1,20,1,0.2,,,1 run,\n"
            "1,40,1,0.33333333333333326,,,1 run,\n"
            "1,80,1,0.5,,,1 run,\n"
            "1,160,1,0.6666666666666665,,,1 run,\n"
            "1,320,1,0.8,,,1 run,\n");

  // The Extra-P export beside the analysis: each set's runs over N to its own file (the
  // first line of set 0 here); two sets are no grid over p and N, so FILE is not written.
  const fs::path extrap = dir / "mm-small.extrap.jsonl";
  r = hetscale({"analyze", "--db", db.uri(), "--experiment", "mm-small", "--target", "0.5",
                "--tolerance", "0.05", "--format", "csv", "--export", "extrap", extrap.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "analyze: wrote 6 runs of set 0 to " + (dir / "mm-small.extrap.set0.jsonl").string() +
                       " (Extra-P JSON Lines)\n"
                       "analyze: wrote 6 runs of set 1 to " +
                       (dir / "mm-small.extrap.set1.jsonl").string() +
                       " (Extra-P JSON Lines)\n"
                       "analyze: no file " +
                       extrap.string() +
                       " over p and the parameter: 2 machine sets measured, Extra-P needs 5 "
                       "values of p\n");
  EXPECT_FALSE(fs::exists(extrap));
  std::ifstream in(dir / "mm-small.extrap.set0.jsonl");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, R"({"callpath":"mm.set0","metric":"time","params":{"N":10.0},"value":0.0001})");
  fs::remove_all(dir);
}

TEST(Cli, AnalyzeRefusesAnUnknownExportFormat) {
  const CliResult r = hetscale({"analyze", "--db", "postgresql://unused/x", "--experiment", "e",
                                "--target", "0.5", "--export", "csv", "x.csv"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale analyze: --export: unknown format 'csv' (known: extrap) (see --help)\n");
}

TEST(Cli, CollectLoadsAJobCompletionFileOnce) {
  TestDatabase db;
  db.migrate();
  const std::string file = std::string(HETSCALE_FIXTURES_DIR) + "/collector/jobcomp-testbed.log";
  CliResult r = hetscale({"collect", "--db", db.uri(), "--jobcomp", file, "--cluster", "hetscale"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "collected 0 record file(s) and 0 plan(s): 0 runs added (0 rank rows), 0 already "
            "present, 0 rejected\nended Slurm jobs: 7 read, 7 added, 0 already present\n");
  r = hetscale({"collect", "--db", db.uri(), "--jobcomp", file, "--cluster", "hetscale"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ended Slurm jobs: 7 read, 0 added, 7 already present"), std::string::npos)
      << r.out;
}

// Lines set aside (users' job names and working directories with line breaks, a forged
// line of another user's job) are named on stderr and leave the exit status 0: a centre's
// cron job collecting the same file every hour must not fail for one user's job name
// (docs/collector.md, "Exit status").
TEST(Cli, CollectExitsZeroWithTheLinesSetAsideNamed) {
  TestDatabase db;
  db.migrate();
  const std::string file = std::string(HETSCALE_FIXTURES_DIR) + "/slurm/24.11/names/jobcomp.log";
  const CliResult r = hetscale({"collect", "--db", db.uri(), "--jobcomp", file, "--cluster", "hetscale"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ended Slurm jobs: 3 read, 3 added, 0 already present\n9 job completion line(s) set aside, "
                       "not stored: each is named above\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("collect: set aside " + file + ":1: job 1 of cluster hetscale: its lines name different users"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(db.scalar("SELECT string_agg(job_id::text, ',' ORDER BY job_id) FROM hetscale.slurm_jobs"), "2,3,9");
}

TEST(Cli, CollectSkipsALineNestedTooDeeply) {
  TestDatabase db;
  db.migrate();
  const fs::path dir = fs::temp_directory_path() / ("hetscale-cli-deep-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path runs = dir / "runs.jsonl";
  // A good line, one 100,000 levels deep (a recursive parser or message would crash), a good line.
  write_lines(runs, {record_json("mm-small", 10, 0, 0, 2000, 1.0, 100, 2, 0).dump(),
                     R"({"schema":)" + std::string(100000, '['),
                     record_json("mm-small", 20, 0, 0, 16000, 2.0, 100, 2, 1).dump()});
  const std::string plan = std::string(HETSCALE_FIXTURES_DIR) + "/plans/mm-small.json";
  CliResult r = hetscale({"collect", "--db", db.uri(), runs.string(), plan});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale collect: " + runs.string() + ":2:74: invalid JSON: nesting deeper than 64\n");
  r = hetscale({"collect", "--db", db.uri(), "--skip-invalid", "--rejects", (dir / "rejects.jsonl").string(),
                runs.string(), plan});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(": 2 runs added"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 1 rejected"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(runs.string() + ":2:74: invalid JSON: nesting deeper than 64"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(Cli, CollectNeedsSomethingToLoad) {
  const CliResult r = hetscale({"collect", "--db", "postgresql://unused/x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale collect: give run record or plan files, directories, -, --jobcomp FILE, "
            "--sacct-json FILE or --sacct (see --help)\n");
}

TEST(Cli, AnalyzeRefusesATargetOutOfRange) {
  const CliResult r = hetscale(
      {"analyze", "--db", "postgresql://unused/x", "--experiment", "e", "--target", "1.5"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale analyze: --target must be in (0, 1] (see --help)\n");
}

}  // namespace
}  // namespace hetscale::test
