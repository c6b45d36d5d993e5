// The applications of examples/studies/apps.toml on the local cluster, each in a short
// version of its example spec (two sizes on one set of the two full-speed nodes n2 and n3):
// HPL through Debian's hpcc, recorded by `hetscale record hpcc` with HPL's own time, and a
// LAMMPS Lennard-Jones melt timed from outside. Every record is checked against what the
// program itself wrote (hpccoutf.txt, LAMMPS's output) and against the workload formula,
// collected, and given an E_s in (0, 1] by run_efficiency.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "hetscale/base/text_file.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

std::string read(const fs::path& path) { return read_text_file(path, "a file of the test"); }

// `text` with its one occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("the example spec has no '" + from + "'");
  return text.replace(at, from.size(), to);
}

class Apps : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(HETSCALE_BINARY_DIR) / "testbed" / "apps" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_.migrate();
    // The testbed's declared speed factors read as Tflops: a unit E_s is computed in, and
    // large enough that no E_s of these codes on two cores reaches 1.
    const auto r = run_command({HETSCALE_EXECUTABLE, "groups", "--declared", (tb_.dir / "layout.txt").string(),
                                "--site-name", "testbed-apps", "--speed-unit", "Tflops", "-o",
                                (dir_ / "site.toml").string()},
                               60s);
    ASSERT_TRUE(r.ok()) << r.describe();
  }

  // The example spec `example` (examples/experiments/) renamed, with `values` as its sizes,
  // on the one set {n2, n3}.
  static std::string short_spec(const std::string& example, const std::string& name, const std::string& values,
                                const std::string& example_values) {
    std::string spec = read(fs::path(HETSCALE_SOURCE_DIR) / "examples" / "experiments" / example);
    spec = replaced(spec, "name = \"" + example.substr(0, example.find(".toml")) + "\"", "name = \"" + name + "\"");
    spec = replaced(spec, example_values, values);
    spec = replaced(spec, "max = 4\n", "max = 2\nnodes = \"n[2-3]\"\n");
    return spec;
  }

  // jobgen, submit, and wait (up to `limit`) until the set's array has left the queue. The
  // limit is a deadline against a hang, not a timing: hpcc runs the whole HPC Challenge
  // suite on two quota-bound nodes, and in the test command the sanitizer and fuzz builds
  // share the processors (a step took 15 to 76 s, and more than 80 s once).
  fs::path run_set(const std::string& spec, const std::string& name, std::chrono::seconds limit,
                   const std::vector<std::string>& env = {}) {
    std::ofstream(dir_ / "experiment.toml") << spec;
    const fs::path study = dir_ / "round0";
    auto r = run_command({HETSCALE_EXECUTABLE, "jobgen", "--site", (dir_ / "site.toml").string(), "--experiment",
                          (dir_ / "experiment.toml").string(), "-o", study.string(), "--kernel-dir",
                          HETSCALE_KERNEL_DIR},
                         60s);
    EXPECT_TRUE(r.ok()) << r.describe();
    r = run_command({(study / "submit.sh").string()}, 30s, env);
    EXPECT_TRUE(r.ok()) << r.describe();
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      r = run_command({"squeue", "--noheader", "--format=%200j"}, 30s);
      bool queued = false;
      for (const std::string& line : split_lines(r.out)) queued = queued || line.starts_with(name + "-");
      if (!queued) break;
      if (std::chrono::steady_clock::now() > deadline) {
        (void)run_command({"scancel", "--name", name}, 30s);
        ADD_FAILURE() << name << " still queued after " << limit.count() << " s";
        break;
      }
      std::this_thread::sleep_for(500ms);
    }
    return study;
  }

  // Every record of the round, by its parameter's value.
  static std::map<double, json> records_by_size(const fs::path& study, const std::string& parameter) {
    std::map<double, json> out;
    for (const auto& entry : fs::directory_iterator(study / "records")) {
      std::istringstream lines(read(entry.path()));
      for (std::string line; std::getline(lines, line);) {
        const json record = json::parse(line);
        EXPECT_FALSE(out.contains(record["parameters"][parameter].get<double>())) << line;
        out[record["parameters"][parameter].get<double>()] = record;
      }
    }
    return out;
  }

  // Collects the round and returns "parameter_value E_s" rows of run_efficiency, one a line.
  std::vector<std::pair<double, double>> collected_efficiencies(const fs::path& study, const std::string& name) {
    const auto r = run_command({HETSCALE_EXECUTABLE, "collect", "--db", db_.uri(), study.string()}, 60s);
    EXPECT_TRUE(r.ok()) << r.describe();
    std::vector<std::pair<double, double>> out;
    std::istringstream rows(db_.scalar(
        fmt::format("SELECT string_agg(parameter_value || ' ' || speed_efficiency, E'\\n' ORDER BY parameter_value) "
                    "FROM hetscale.run_efficiency WHERE experiment = '{}'",
                    name)));
    for (double n = 0, e = 0; rows >> n >> e;) out.emplace_back(n, e);
    return out;
  }

  Testbed tb_ = Testbed::from_env();
  TestDatabase db_;
  fs::path dir_;
};

TEST_F(Apps, HplThroughHpccIsTimedByHplItself) {
  const std::string name = "apps-hpl";
  const fs::path study = run_set(short_spec("hpl.toml", name, "values = [600, 1000]", "values = [1000, 2000]"),
                                 name, 300s);
  const auto records = records_by_size(study, "N");
  ASSERT_EQ(records.size(), 2U);
  std::map<double, fs::path> step_dirs;  // HPL's N -> the step's directory
  for (const auto& entry : fs::directory_iterator(study)) {
    if (!entry.path().filename().string().starts_with("hpcc-")) continue;
    const std::string input = read(entry.path() / "hpccinf.txt");
    std::smatch n;
    ASSERT_TRUE(std::regex_search(input, n, std::regex("\\n(\\d+) +Ns\\n"))) << input;
    step_dirs[std::stod(n[1])] = entry.path();
    EXPECT_TRUE(std::regex_search(input, std::regex("\\n1 +Ps\\n2 +Qs\\n"))) << "the 2 ranks' grid: " << input;
  }
  ASSERT_EQ(step_dirs.size(), 2U);
  for (const auto& [n, record] : records) {
    SCOPED_TRACE(record.dump());
    EXPECT_EQ(record["timed_by"], "program");
    EXPECT_FALSE(record.contains("exit_status"));
    EXPECT_EQ(record["code"], "hpcc");
    EXPECT_EQ(record["experiment"], name);
    EXPECT_EQ(record["verified"], true) << "HPL's residual check";
    EXPECT_EQ(record["slurm"]["node_list"], "n[2-3]");
    EXPECT_NEAR(record["work"].get<double>(), 2.0 / 3.0 * n * n * n + 1.5 * n * n, 1e-12 * n * n * n);
    // T is HPL_time as hpcc wrote it, not the time of the whole HPC Challenge suite.
    const std::string output = read(step_dirs.at(n) / "hpccoutf.txt");
    std::smatch time;
    ASSERT_TRUE(std::regex_search(output, time, std::regex("\\nHPL_time=([0-9.e+-]+)\\n")));
    EXPECT_EQ(record["wall_seconds"].get<double>(), std::stod(time[1]));
    EXPECT_NE(output.find("Begin of LatencyBandwidth section."), std::string::npos) << "hpcc ran its other tests";
  }
  const auto efficiencies = collected_efficiencies(study, name);
  ASSERT_EQ(efficiencies.size(), 2U);
  for (const auto& [n, e] : efficiencies) {
    EXPECT_GT(e, 0) << "N = " << n;
    EXPECT_LE(e, 1) << "N = " << n;
  }
  EXPECT_EQ(db_.scalar(fmt::format("SELECT string_agg(DISTINCT timed_by, ',') FROM hetscale.runs r JOIN "
                                   "hetscale.experiments e USING (experiment_id) WHERE e.name = '{}'",
                                   name)),
            "program");
}

TEST_F(Apps, LammpsMeltIsTimedFromOutside) {
  const std::string name = "apps-lammps";
  const fs::path study =
      run_set(short_spec("lammps-melt.toml", name, "values = [8, 12]", "values = [12, 20]"), name, 240s,
              {"LAMMPS_MELT_DECK=" + (fs::path(HETSCALE_SOURCE_DIR) / "examples/experiments/lammps-melt.lmp").string()});
  const auto records = records_by_size(study, "L");
  ASSERT_EQ(records.size(), 2U);
  // The atoms LAMMPS built, from its own output (one log per array task).
  std::map<double, double> atoms;  // atoms -> steps
  for (const auto& entry : fs::directory_iterator(study / "logs")) {
    const std::string log = read(entry.path());
    std::smatch loop;
    ASSERT_TRUE(std::regex_search(log, loop, std::regex("Loop time of [0-9.e+-]+ on 2 procs for (\\d+) steps with (\\d+) atoms")))
        << log;
    atoms[std::stod(loop[2])] = std::stod(loop[1]);
  }
  ASSERT_EQ(atoms.size(), 2U);
  for (const auto& [l, record] : records) {
    SCOPED_TRACE(record.dump());
    EXPECT_EQ(record["timed_by"], "step");
    EXPECT_EQ(record["exit_status"], 0);
    EXPECT_EQ(record["experiment"], name);
    EXPECT_EQ(record["work"].get<double>(), 400 * l * l * l);
    // W = atoms x steps as LAMMPS counted them.
    const double n_atoms = 4 * l * l * l;
    ASSERT_TRUE(atoms.contains(n_atoms)) << "LAMMPS built no run of " << n_atoms << " atoms";
    EXPECT_EQ(record["work"].get<double>(), n_atoms * atoms.at(n_atoms));
  }
  const auto efficiencies = collected_efficiencies(study, name);
  ASSERT_EQ(efficiencies.size(), 2U);
  for (const auto& [l, e] : efficiencies) {
    EXPECT_GT(e, 0) << "L = " << l;
    EXPECT_LE(e, 1) << "L = " << l;
  }
}

}  // namespace
}  // namespace hetscale::test
