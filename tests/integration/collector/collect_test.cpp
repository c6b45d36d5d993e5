// Loading run records and plan files into a real database: idempotence, invalid input,
// hostile text, concurrent loaders, a lost connection, a killed loader.
#include "hetscale/collector/collect.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "hetscale/collector/pg.hpp"
#include "record_text.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using collector::collect;
using collector::CollectOptions;
using collector::CollectReport;

const fs::path plan_fixture = fs::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

class Collect : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.migrate();
    dir_ = fs::temp_directory_path() /
           ("hetscale-collect-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `count` distinct records of experiment "mm-small", 8 ranks each.
  fs::path records_file(const std::string& name, int count, int first_serial = 0) {
    std::vector<nlohmann::json> records;
    for (int i = 0; i < count; ++i) {
      records.push_back(record_json("mm-small", 100 + i, 0, 0, 2e6, 0.5, 100, 8, first_serial + i));
    }
    const fs::path file = dir_ / name;
    write_lines(file, dump_all(records));
    return file;
  }

  CollectReport run(CollectOptions options) {
    std::istringstream no_stdin;
    return collect(db_.uri(), options, no_stdin, log_);
  }

  static CollectOptions inputs(std::vector<std::string> paths) {
    CollectOptions options;
    options.inputs = std::move(paths);
    options.backoff.first_delay = std::chrono::milliseconds(10);
    return options;
  }

  std::string error_of(const CollectOptions& options) {
    try {
      run(options);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }

  std::string count(const std::string& table) {
    return db_.scalar("SELECT count(*) FROM " + table);
  }

  TestDatabase db_;
  fs::path dir_;
  std::ostringstream log_;
};

TEST_F(Collect, LoadsRunsAndRankTimings) {
  const fs::path file = records_file("runs.jsonl", 3);
  const CollectReport report = run(inputs({file.string()}));
  EXPECT_EQ(report.records, 3u);
  EXPECT_EQ(report.runs_added, 3);
  EXPECT_EQ(report.rank_rows_added, 24);
  EXPECT_EQ(count("hetscale.runs"), "3");
  EXPECT_EQ(count("hetscale.rank_timings"), "24");
  EXPECT_EQ(db_.scalar("SELECT source_file || ':' || source_line FROM hetscale.runs "
                       "WHERE (parameters->>'N')::float8 = 101"),
            file.string() + ":2");
  EXPECT_EQ(
      db_.scalar(
          "SELECT slurm_array_task_id FROM hetscale.runs WHERE (parameters->>'N')::float8 = 102"),
      "2");
  EXPECT_EQ(
      db_.scalar(
          "SELECT to_char(start_time AT TIME ZONE 'UTC', 'HH24:MI:SS') FROM hetscale.runs LIMIT 1"),
      "06:00:00");
}

TEST_F(Collect, LoadingAgainAddsNothing) {
  const fs::path file = records_file("runs.jsonl", 5);
  run(inputs({file.string()}));
  const CollectReport again = run(inputs({file.string(), dir_.string()}));  // the file twice over
  EXPECT_EQ(again.runs_added, 0);
  EXPECT_EQ(again.runs_present, 10);
  EXPECT_EQ(count("hetscale.runs"), "5");
  EXPECT_EQ(count("hetscale.rank_timings"), "40");
}

TEST_F(Collect, ARecordRepeatedInOneFileCountsOnce) {
  const std::string line = record_json("mm-small", 100, 0, 0, 2e6, 0.5, 100).dump();
  write_lines(dir_ / "twice.jsonl", {line, line});
  const CollectReport report = run(inputs({(dir_ / "twice.jsonl").string()}));
  EXPECT_EQ(report.runs_added, 1);
  EXPECT_EQ(report.runs_present, 1);
  EXPECT_EQ(count("hetscale.rank_timings"), "8");
}

// Batches go out over several connections at once: a new experiment named by all of them
// is created once, a run found in two batches that load at the same moment is stored once
// (the later one retries and finds it), and the report counts every record.
TEST_F(Collect, BatchesOverSeveralConnectionsStoreEachRunOnce) {
  std::vector<nlohmann::json> records;
  for (int i = 0; i < 300; ++i)
    records.push_back(record_json("mm-new", 100 + i, 0, 0, 2e6, 0.5, 100, 4, i));
  std::vector<std::string> lines = dump_all(records);
  const std::vector<std::string> again = lines;
  lines.insert(lines.end(), again.begin(), again.end());  // every run twice, 300 lines apart
  write_lines(dir_ / "twice.jsonl", lines);
  CollectOptions options = inputs({(dir_ / "twice.jsonl").string()});
  options.batch_size = 50;
  options.connections = 3;
  options.backoff.attempts = 20;
  const CollectReport report = run(options);
  EXPECT_EQ(report.records, 600u);
  EXPECT_EQ(report.runs_added, 300);
  EXPECT_EQ(report.runs_present, 300);
  EXPECT_EQ(report.rank_rows_added, 1200);
  EXPECT_EQ(count("hetscale.runs"), "300");
  EXPECT_EQ(count("hetscale.rank_timings"), "1200");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.experiments WHERE name = 'mm-new'"), "1");
}

// Two batches loading at once, each the first to name a new experiment, on two clusters:
// one experiment is created (the first cluster's), as when they load one after the other.
TEST_F(Collect, TwoBatchesCreatingOneNewExperimentAtOnceMakeOneExperiment) {
  for (int i = 0; i < 10; ++i) {
    const std::string name = "race-" + std::to_string(i);
    nlohmann::json here = record_json(name, 100, 0, 0, 2e6, 1, 100, 2, 1);
    here["slurm"]["cluster"] = "hetscale";
    nlohmann::json there = record_json(name, 100, 0, 1, 2e6, 1, 100, 2, 2);
    there["slurm"]["cluster"] = "other";
    const fs::path file = dir_ / (name + ".jsonl");
    write_lines(file, dump_all({here, there}));
    CollectOptions options = inputs({file.string()});
    options.connections = 2;  // one batch of one record each
    const CollectReport report = run(options);
    EXPECT_EQ(report.runs_added, 2);
    EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.experiments WHERE name = '" + name + "'"),
              "1");
  }
}

TEST_F(Collect, ACorruptLineInTheMiddleLoadsNothing) {
  std::vector<std::string> lines = dump_all({record_json("mm-small", 1, 0, 0, 1, 1, 1, 2, 1),
                                             record_json("mm-small", 2, 0, 0, 1, 1, 1, 2, 2)});
  lines.insert(lines.begin() + 1, R"({"schema": 1, "code": "mm", "work": )");
  write_lines(dir_ / "runs.jsonl", lines);
  const fs::path other = records_file("other.jsonl", 2, 10);  // a good file loads nothing either
  EXPECT_EQ(error_of(inputs({other.string(), (dir_ / "runs.jsonl").string()})),
            (dir_ / "runs.jsonl").string() +
                ":2:37: invalid JSON: syntax error while parsing value - unexpected end of input; "
                "expected '[', '{', or a literal");
  EXPECT_EQ(count("hetscale.runs"), "0");
}

// A record of the SimGrid twin kernels: the real run's record with the engine and the
// hash of the platform it was simulated on.
nlohmann::json twin_of(nlohmann::json record, const std::string& platform_hash) {
  record["engine"] = "simgrid";
  record["platform_hash"] = platform_hash;
  return record;
}

const std::string star8_hash = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";

TEST_F(Collect, NamesFileLineAndFieldOfAnInvalidRecord) {
  struct Case {
    std::function<void(nlohmann::json&)> spoil;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](nlohmann::json& j) { j.erase("work"); }, "missing field 'work'"},
      {[](nlohmann::json& j) { j["ranks"][3]["wall_seconds"] = -2.0; },
       "field 'ranks[3].wall_seconds' must be a non-negative number"},
      {[](nlohmann::json& j) { j["schema"] = 2; }, "field 'schema' must be 1 (got 2)"},
      {[](nlohmann::json& j) { j["engine"] = "docker"; },
       "field 'engine' must be slurm, mpirun or simgrid"},
      {[](nlohmann::json& j) { j = twin_of(j, "sha256:00ff"); },
       "field 'platform_hash' must be hexadecimal digits"},
  };
  for (const Case& c : cases) {
    nlohmann::json bad = record_json("mm-small", 3, 0, 0, 1, 1, 1, 8, 3);
    c.spoil(bad);
    write_lines(
        dir_ / "runs.jsonl",
        {record_json("mm-small", 1, 0, 0, 1, 1, 1, 8, 1).dump(),
         twin_of(record_json("mm-small", 2, 0, 0, 1, 1, 1, 8, 2), star8_hash).dump(), bad.dump()});
    EXPECT_EQ(error_of(inputs({(dir_ / "runs.jsonl").string()})),
              (dir_ / "runs.jsonl").string() + ":3: " + c.message);
  }
  // Nothing of the batch, the valid records included.
  EXPECT_EQ(count("hetscale.runs"), "0");
  EXPECT_EQ(count("hetscale.rank_timings"), "0");
  EXPECT_EQ(count("hetscale.experiments"), "0");
}

TEST_F(Collect, SkipInvalidSetsBadLinesAsideAndLoadsTheRest) {
  std::vector<std::string> lines = dump_all({record_json("mm-small", 1, 0, 0, 1, 1, 1, 8, 1),
                                             record_json("mm-small", 2, 0, 0, 1, 1, 1, 8, 2)});
  lines.insert(lines.begin() + 1, "garbage");
  write_lines(dir_ / "runs.jsonl", lines);
  CollectOptions options = inputs({(dir_ / "runs.jsonl").string()});
  options.skip_invalid = true;
  options.rejects = dir_ / "rejects.jsonl";
  const CollectReport report = run(options);
  EXPECT_EQ(report.rejected, 1u);
  EXPECT_EQ(report.runs_added, 2);
  std::ifstream rejects(dir_ / "rejects.jsonl");
  std::stringstream text;
  text << rejects.rdbuf();
  EXPECT_EQ(text.str(), "garbage\n");
  EXPECT_EQ(log_.str(), "collect: rejected " + (dir_ / "runs.jsonl").string() +
                            ":2:1: invalid JSON: syntax error while parsing value - invalid "
                            "literal; last read: 'g'\n");
}

TEST_F(Collect, SqlLookingTextIsStoredVerbatim) {
  const std::string hostile = "x'); DROP TABLE hetscale.runs; --\t\\N\n";
  nlohmann::json record = record_json(hostile, 1, 0, 0, 1, 1, 1, 2, 1);
  record["ranks"][0]["host"] = "n1\\\"; DELETE FROM hetscale.rank_timings; --";
  write_lines(dir_ / "runs.jsonl", {record.dump()});
  run(inputs({(dir_ / "runs.jsonl").string()}));
  pg::Connection conn = db_.connect();
  EXPECT_EQ(conn.exec("SELECT name FROM hetscale.experiments").text(0, 0), hostile);
  EXPECT_EQ(conn.exec("SELECT host FROM hetscale.rank_timings WHERE rank = 0").text(0, 0),
            "n1\\\"; DELETE FROM hetscale.rank_timings; --");
  EXPECT_EQ(count("hetscale.rank_timings"), "2");
}

TEST_F(Collect, StoresTheEngineAndThePlatformHashOfEachRun) {
  write_lines(
      dir_ / "runs.jsonl",
      dump_all({twin_of(record_json("mm-small", 100, 0, 0, 2e6, 0.5, 100, 8, 1), star8_hash),
                record_json("mm-small", 100, 0, 0, 2e6, 0.5, 100, 8, 2)}));
  EXPECT_EQ(run(inputs({(dir_ / "runs.jsonl").string()})).runs_added, 2);
  const auto stored = [&](int task, const std::string& view) {
    return db_.scalar("SELECT r.engine || ' ' || coalesce(r.platform_hash, 'NULL') FROM " + view +
                      " r JOIN hetscale.runs USING (run_id) WHERE runs.slurm_array_task_id = " +
                      std::to_string(task));
  };
  for (const std::string view :
       {"hetscale.runs", "hetscale.run_efficiency", "hetscale.run_slurm_jobs"}) {
    EXPECT_EQ(stored(1, view), "simgrid " + star8_hash) << view;
    EXPECT_EQ(stored(2, view), "slurm NULL") << view;  // a record without engine
  }
}

TEST_F(Collect, ATwinRunAndTheRealRunItMirrorsAreTwoRuns) {
  const nlohmann::json real = record_json("mm-small", 100, 0, 0, 2e6, 0.5, 100, 8, 1);
  nlohmann::json named = real;
  named["engine"] = "slurm";  // the same Slurm run, its engine named
  nlohmann::json launched = real;
  launched["engine"] = "mpirun";
  const fs::path file = dir_ / "runs.jsonl";
  write_lines(file, dump_all({real, twin_of(real, star8_hash), named, launched,
                              twin_of(real, "00ff"), twin_of(real, star8_hash)}));
  const CollectReport report = run(inputs({file.string()}));
  EXPECT_EQ(report.runs_added, 4);
  EXPECT_EQ(report.runs_present, 2);
  EXPECT_EQ(count("hetscale.rank_timings"), "32");
  EXPECT_EQ(db_.scalar("SELECT string_agg(engine || ' ' || coalesce(platform_hash, 'NULL'), ', ' "
                       "ORDER BY engine, platform_hash) FROM hetscale.runs"),
            "mpirun NULL, simgrid 00ff, simgrid " + star8_hash + ", slurm NULL");
  EXPECT_EQ(db_.scalar("SELECT source_line FROM hetscale.runs WHERE engine = 'slurm'"), "1");
  EXPECT_EQ(run(inputs({file.string()})).runs_added, 0);
  EXPECT_EQ(count("hetscale.runs"), "4");
}

TEST_F(Collect, StoresTheWeightsDigestAndShowsMixedSteps) {
  const std::string a(64, 'a'), b(64, 'b');
  nlohmann::json one = record_json("mm-small", 100, 0, 0, 2e6, 0.5, 100, 8, 1);
  one["weights_digest"] = a;
  nlohmann::json mixed = record_json("mm-small", 200, 0, 0, 2e6, 0.5, 100, 8, 2);
  mixed["weights_digest"] = a + "," + b;  // the step's nodes read different versions
  const nlohmann::json none = record_json("mm-small", 300, 0, 0, 2e6, 0.5, 100, 8, 3);
  const fs::path file = dir_ / "runs.jsonl";
  write_lines(file, dump_all({one, mixed, none}));
  EXPECT_EQ(run(inputs({file.string()})).runs_added, 3);
  EXPECT_EQ(db_.scalar("SELECT string_agg(coalesce(weights_digest, 'NULL'), ' ' ORDER BY source_line) "
                       "FROM hetscale.runs"),
            a + " " + a + "," + b + " NULL");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.runs WHERE weights_digest LIKE '%,%'"), "1");
}

TEST_F(Collect, StoresWhoTimedARunAndLeavesFailedStepsOutOfTheEfficiency) {
  const nlohmann::json program = record_json("mm-small", 100, 0, 0, 2e6, 0.5, 100, 8, 1);
  nlohmann::json step = record_json("mm-small", 200, 0, 0, 2e6, 0.5, 100, 8, 2);
  step["timed_by"] = "step";
  step["exit_status"] = 0;
  nlohmann::json failed = record_json("mm-small", 300, 0, 0, 2e6, 0.5, 100, 8, 3);
  failed["timed_by"] = "step";
  failed["exit_status"] = 1;
  const fs::path file = dir_ / "runs.jsonl";
  write_lines(file, dump_all({program, step, failed}));
  EXPECT_EQ(run(inputs({file.string()})).runs_added, 3);
  EXPECT_EQ(db_.scalar("SELECT string_agg(timed_by || ' ' || coalesce(exit_status::text, 'NULL'), ', ' "
                       "ORDER BY source_line) FROM hetscale.runs"),
            "program NULL, step 0, step 1");
  // The failed step is stored, and never an E_s.
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.run_efficiency"), "2");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.run_efficiency re JOIN hetscale.runs r USING (run_id) "
                       "WHERE r.exit_status = 1"),
            "0");
}

TEST_F(Collect, StoresWhereAStepTimedRunsRankTimesCameFromAndItsNodeTimes) {
  nlohmann::json spank = record_json("mm-small", 100, 0, 0, 2e6, 0.5, 100, 8, 1);
  spank["timed_by"] = "step";
  spank["exit_status"] = 0;
  spank["ranks_timed_by"] = "spank";
  spank["node_times"] = nlohmann::json::array(
      {{{"host", "n1"}, {"tasks", 2}, {"start_time", "2026-11-21T06:10:00.100Z"},
        {"end_time", "2026-11-21T06:10:00.600Z"}, {"wall_seconds", 0.5}}});
  nlohmann::json nominal = record_json("mm-small", 200, 0, 0, 2e6, 0.5, 100, 8, 2);
  nominal["timed_by"] = "step";
  nominal["ranks_timed_by"] = "step";
  const nlohmann::json program = record_json("mm-small", 300, 0, 0, 2e6, 0.5, 100, 8, 3);
  const fs::path file = dir_ / "runs.jsonl";
  write_lines(file, dump_all({spank, nominal, program}));
  EXPECT_EQ(run(inputs({file.string()})).runs_added, 3);
  EXPECT_EQ(db_.scalar("SELECT string_agg(coalesce(ranks_timed_by, 'NULL') || ' ' || "
                       "coalesce(jsonb_array_length(node_times)::text, 'NULL'), ', ' ORDER BY source_line) "
                       "FROM hetscale.runs"),
            "spank 1, step NULL, NULL NULL");
  EXPECT_EQ(db_.scalar("SELECT node_times -> 0 ->> 'wall_seconds' FROM hetscale.runs WHERE ranks_timed_by = 'spank'"),
            "0.5");
}

TEST_F(Collect, RefusesAnUnmigratedDatabase) {
  TestDatabase empty;
  const fs::path file = records_file("runs.jsonl", 1);
  std::istringstream no_stdin;
  try {
    collect(empty.uri(), inputs({file.string()}), no_stdin, log_);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "database: schema version 0, this hetscale needs 27; run 'hetscale db migrate "
                 "--db URI' first");
  }
}

TEST_F(Collect, ReadsStandardInput) {
  std::istringstream in(record_json("mm-small", 7, 0, 0, 1, 1, 1, 2, 7).dump() + "\n");
  const CollectReport report = collect(db_.uri(), inputs({"-"}), in, log_);
  EXPECT_EQ(report.runs_added, 1);
  EXPECT_EQ(db_.scalar("SELECT source_file FROM hetscale.runs"), "<stdin>");
}

TEST_F(Collect, LoadsAPlanOnceAndLinksItsRuns) {
  const fs::path file = records_file("runs.jsonl", 2);
  run(inputs({plan_fixture.string(), file.string()}));
  run(inputs({plan_fixture.string()}));
  EXPECT_EQ(count("hetscale.sites"), "1");
  EXPECT_EQ(count("hetscale.nodes"), "4");
  EXPECT_EQ(count("hetscale.benchmark_history"), "4");
  EXPECT_EQ(count("hetscale.machine_sets"), "2");
  EXPECT_EQ(count("hetscale.machine_set_members"), "6");
  EXPECT_EQ(
      db_.scalar("SELECT string_agg(g.name || '=' || sg.node_count, ',' ORDER BY g.name) "
                 "FROM hetscale.machine_set_groups sg JOIN hetscale.groups g USING (group_id) "
                 "JOIN hetscale.machine_sets s USING (machine_set_id) WHERE s.set_index = 1"),
      "blade=2,server=2");
  EXPECT_EQ(db_.scalar("SELECT parameter || ' ' || target_efficiency FROM hetscale.experiments "
                       "WHERE name = 'mm-small'"),
            "N 0.3");
  EXPECT_EQ(count("hetscale.experiments"), "1");
}

TEST_F(Collect, TwoCollectorsAtOnceLoadEveryRunOnce) {
  const fs::path file = records_file("runs.jsonl", 400);
  CollectOptions options = inputs({file.string()});
  options.batch_size = 50;
  CollectReport a;
  CollectReport b;
  std::string errors;
  std::mutex mutex;
  auto load = [&](CollectReport& out) {
    try {
      std::ostringstream log;
      std::istringstream no_stdin;
      out = collect(db_.uri(), options, no_stdin, log);
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex);
      errors += e.what();
    }
  };
  std::thread first(load, std::ref(a));
  std::thread second(load, std::ref(b));
  first.join();
  second.join();
  EXPECT_EQ(errors, "");
  EXPECT_EQ(a.runs_added + b.runs_added, 400);
  EXPECT_EQ(count("hetscale.runs"), "400");
  EXPECT_EQ(count("hetscale.rank_timings"), "3200");
}

// Kills the backend of every other session of this database once runs appear.
void terminate_loader_once_loading(const TestDatabase& db) {
  pg::Connection watcher = db.connect();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (watcher.exec("SELECT count(*) FROM hetscale.runs").integer(0, 0) > 0) {
      watcher.exec(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
          "WHERE datname = current_database() AND pid <> pg_backend_pid() "
          "AND backend_type = 'client backend'");
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST_F(Collect, ALostConnectionIsRetriedAndEveryRunLoadsOnce) {
  const fs::path file = records_file("runs.jsonl", 2000);
  CollectOptions options = inputs({file.string()});
  options.batch_size = 20;
  std::thread killer(terminate_loader_once_loading, std::cref(db_));
  const CollectReport report = run(options);
  killer.join();
  EXPECT_EQ(report.runs_added, 2000);
  EXPECT_NE(log_.str().find("; retrying in 10 ms"), std::string::npos) << log_.str();
  EXPECT_EQ(count("hetscale.runs"), "2000");
  EXPECT_EQ(count("hetscale.rank_timings"), "16000");
}

TEST_F(Collect, ALoaderKilledMidwayAndRunAgainLoadsEveryRunOnce) {
  const fs::path file = records_file("runs.jsonl", 3000);
  CollectOptions options = inputs({file.string()});
  options.batch_size = 20;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the loader to be killed: no gtest in here
    try {
      std::ostringstream log;
      std::istringstream no_stdin;
      collect(db_.uri(), options, no_stdin, log);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  pg::Connection watcher = db_.connect();
  while (watcher.exec("SELECT count(*) FROM hetscale.runs").integer(0, 0) == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the loader finished before it was killed";
  const long long partial = watcher.exec("SELECT count(*) FROM hetscale.runs").integer(0, 0);
  EXPECT_LT(partial, 3000);
  EXPECT_EQ(partial % 20, 0) << "a batch was loaded in part";
  const CollectReport report = run(options);
  EXPECT_EQ(report.runs_added + partial, 3000);
  EXPECT_EQ(count("hetscale.runs"), "3000");
  EXPECT_EQ(count("hetscale.rank_timings"), "24000");
}

TEST_F(Collect, AnUnterminatedLastLineIsHeldBackAndLoadedOnceWhenComplete) {
  std::vector<std::string> lines;
  for (int i = 0; i < 4; ++i)
    lines.push_back(record_json("mm-small", 100 + i, 0, 0, 2e6, 0.5, 100, 8, i).dump());
  const fs::path file = dir_ / "runs.jsonl";
  const std::size_t cut = lines[3].size() / 2;
  {
    // A writer still writing its fourth line (or a short write on a full disk).
    std::ofstream out(file, std::ios::binary);
    for (int i = 0; i < 3; ++i) out << lines[i] << '\n';
    out << lines[3].substr(0, cut);
  }
  const CollectReport first = run(inputs({file.string()}));
  EXPECT_EQ(first.records, 3u);
  EXPECT_EQ(first.held_back, 1u);
  EXPECT_EQ(first.runs_added, 3);
  EXPECT_EQ(first.rejected, 0u);
  EXPECT_NE(log_.str().find("collect: held back " + file.string() + ":4: unterminated last line"),
            std::string::npos)
      << log_.str();
  EXPECT_EQ(count("hetscale.runs"), "3");

  // Collecting while the line is still incomplete changes nothing.
  EXPECT_EQ(run(inputs({file.string()})).runs_added, 0);
  {
    std::ofstream out(file, std::ios::binary | std::ios::app);
    out << lines[3].substr(cut) << '\n';  // the writer finishes the line
  }
  const CollectReport second = run(inputs({file.string()}));
  EXPECT_EQ(second.records, 4u);
  EXPECT_EQ(second.held_back, 0u);
  EXPECT_EQ(second.runs_added, 1);
  EXPECT_EQ(second.runs_present, 3);
  EXPECT_EQ(count("hetscale.runs"), "4");
  EXPECT_EQ(count("hetscale.rank_timings"), "32");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.runs WHERE source_line = 4"), "1");
  // And once more: nothing new.
  EXPECT_EQ(run(inputs({file.string()})).runs_added, 0);
  EXPECT_EQ(count("hetscale.runs"), "4");
}

}  // namespace
}  // namespace hetscale::test
