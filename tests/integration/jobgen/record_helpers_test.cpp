// The Fortran and Python record helpers (jobgen/helpers) under the real mpirun: small MPI
// programs in each language read their weights (HETSCALE_WEIGHT, one value per mpirun app
// context), time a run and append its record through libhetscale_record; the records are
// checked field by field and loaded by `hetscale collect` into the throwaway PostgreSQL server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hetscale/site/run_record.hpp"
#include "support/process.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using cli::testing::run_cli;

class RecordHelpers : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hetscale-record-helpers-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `mpirun` with one app context per weight (`-x HETSCALE_WEIGHT=w`, one rank each), or
  // `ranks` ranks without a weight when `weights` is empty; the study's environment as a
  // generated script sets it, and the record file in dir_.
  [[nodiscard]] CommandResult mpirun(const std::vector<std::string>& program, const std::string& experiment,
                                     const std::vector<std::string>& weights, int ranks = 0) const {
    std::vector<std::string> argv{"mpirun", "--oversubscribe"};
    if (weights.empty()) {
      argv.insert(argv.end(), {"-np", std::to_string(ranks)});
      argv.insert(argv.end(), program.begin(), program.end());
    }
    for (const std::string& weight : weights) {
      if (argv.size() > 2) argv.emplace_back(":");
      argv.insert(argv.end(), {"-np", "1", "-x", "HETSCALE_WEIGHT=" + weight});
      argv.insert(argv.end(), program.begin(), program.end());
    }
    return run_command(argv, 60s,
                       {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                        "HETSCALE_RECORD=" + record_file().string(), "HETSCALE_EXPERIMENT=" + experiment,
                        "HETSCALE_MACHINE_SET=2", "HETSCALE_REPETITION=1", "HETSCALE_SYSTEM_SPEED=40",
                        "HETSCALE_WEIGHTS_SOURCE=marked", "PYTHONPATH=" HETSCALE_SOURCE_DIR "/jobgen/helpers",
                        "PYTHONDONTWRITEBYTECODE=1", "LD_LIBRARY_PATH=" HETSCALE_RECORD_LIBRARY_DIR});
  }
  [[nodiscard]] fs::path record_file() const { return dir_ / "runs.jsonl"; }
  [[nodiscard]] std::vector<nlohmann::json> records() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(record_file());
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }

  fs::path dir_;
};

std::string this_host() {
  char name[HOST_NAME_MAX + 1] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

// One record of `code` at M = m, run on this host by one rank per entry of `weights`.
void expect_record(const nlohmann::json& r, const std::string& code, const std::string& experiment, double m,
                   const std::vector<double>& weights) {
  // The collector's own reader accepts it (it throws with the field otherwise).
  EXPECT_NO_THROW((void)run_record_from_json(r)) << r.dump();
  EXPECT_EQ(r["schema"], 1);
  EXPECT_EQ(r["experiment"], experiment);
  EXPECT_EQ(r["code"], code);
  EXPECT_EQ(r["workload"], "500*M^2");
  EXPECT_EQ(r["parameters"], nlohmann::json({{"M", m}}));
  EXPECT_EQ(r["work"], 500 * m * m);
  EXPECT_EQ(r["marked_speed"], 40.0);
  EXPECT_EQ(r["weights_source"], "marked");
  EXPECT_EQ(r["machine_set"], 2);
  EXPECT_EQ(r["repetition"], 1);
  EXPECT_EQ(r["verified"], true);
  const double wall = r["wall_seconds"].get<double>();
  EXPECT_GT(wall, 0);
  EXPECT_LT(wall, 30);
  ASSERT_EQ(r["ranks"].size(), weights.size()) << r.dump();
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const auto& rank = r["ranks"][i];
    EXPECT_EQ(rank["rank"], i);
    EXPECT_EQ(rank["host"], this_host());
    EXPECT_EQ(rank["weight"], weights[i]) << "rank " << i << " did not read its HETSCALE_WEIGHT";
    const double compute = rank["compute_seconds"], communication = rank["communication_seconds"],
                 rank_wall = rank["wall_seconds"];
    EXPECT_GE(compute, 0);
    EXPECT_GE(communication, 0);
    EXPECT_NEAR(compute + communication, rank_wall, 1e-9);
  }
  EXPECT_EQ(r["ranks"][0]["wall_seconds"], wall);  // T is rank 0's own wall time
}

// Collects the file into a fresh database; each run with its weights in rank order.
std::string collect_and_query(const fs::path& file, const std::string& experiment, const std::string& expected_out) {
  TestDatabase db;
  db.migrate();
  const auto collect = run_cli({"collect", "--db", db.uri(), file.string()});
  EXPECT_EQ(collect.code, 0) << collect.err;
  EXPECT_EQ(collect.out, expected_out);
  return db.scalar(
      "SELECT string_agg(format('%s M=%s W=%s set=%s: %s', r.code, r.parameters->>'M', r.work, r.set_index, "
      "(SELECT string_agg(t.weight::text, ',' ORDER BY t.rank) FROM hetscale.rank_timings t "
      "WHERE t.run_id = r.run_id)), '; ' ORDER BY r.parameters->>'M') "
      "FROM hetscale.runs r JOIN hetscale.experiments e USING (experiment_id) WHERE e.name = '" + experiment + "'");
}

TEST_F(RecordHelpers, FortranRanksReadTheirWeightsAndRank0AppendsTheRecord) {
  ASSERT_STRNE(HETSCALE_RECORD_FORTRAN, "")
      << "no Fortran compiler at configure time: scripts/install-deps.sh installs gfortran";
  const auto run = mpirun({HETSCALE_RECORD_FORTRAN, "60"}, "helpers-fortran", {"0.5", "0.25", "0.25"});
  ASSERT_TRUE(run.ok()) << run.describe();
  const auto lines = records();
  ASSERT_EQ(lines.size(), 1U);
  expect_record(lines[0], "heat-f", "helpers-fortran", 60, {0.5, 0.25, 0.25});
  EXPECT_EQ(collect_and_query(record_file(), "helpers-fortran",
                              "collected 1 record file(s) and 0 plan(s): 1 runs added (3 rank rows), 0 already "
                              "present, 0 rejected\n"),
            "heat-f M=60.0 W=1800000 set=2: 0.5,0.25,0.25");
}

TEST_F(RecordHelpers, PythonRanksReadTheirWeightsOrShareEquallyAndRank0AppendsTheRecord) {
  ASSERT_STRNE(HETSCALE_MPI4PY_PYTHON, "")
      << "no python3 with mpi4py at configure time: scripts/install-deps.sh installs python3-mpi4py";
  auto run = mpirun({HETSCALE_MPI4PY_PYTHON, HETSCALE_RECORD_PYTHON_PROGRAM, "40"}, "helpers-python",
                    {"0.75", "0.25"});
  ASSERT_TRUE(run.ok()) << run.describe();
  run = mpirun({HETSCALE_MPI4PY_PYTHON, HETSCALE_RECORD_PYTHON_PROGRAM, "80"}, "helpers-python", {}, 2);
  ASSERT_TRUE(run.ok()) << run.describe();
  const auto lines = records();
  ASSERT_EQ(lines.size(), 2U);
  expect_record(lines[0], "heat-py", "helpers-python", 40, {0.75, 0.25});
  expect_record(lines[1], "heat-py", "helpers-python", 80, {0.5, 0.5});  // no HETSCALE_WEIGHT: 1/size
  EXPECT_EQ(collect_and_query(record_file(), "helpers-python",
                              "collected 1 record file(s) and 0 plan(s): 2 runs added (4 rank rows), 0 already "
                              "present, 0 rejected\n"),
            "heat-py M=40.0 W=800000 set=2: 0.75,0.25; heat-py M=80.0 W=3200000 set=2: 0.5,0.5");
}

}  // namespace
}  // namespace hetscale::test
