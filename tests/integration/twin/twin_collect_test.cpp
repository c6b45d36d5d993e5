// A twin study of mm on the star8 site (sets of 2, 4 and 8 simulated nodes), collected
// into PostgreSQL and analysed like measured runs: every run is stored once under the
// twin experiment, every set reaches the target inside its sizes, and psi is computed
// between consecutive sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hetscale/collector/network_probes.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using cli::testing::run_cli;

TEST(TwinStudyCollected, IsAnalysedLikeMeasuredRuns) {
  TestDatabase db;
  db.migrate();
  const fs::path root = fs::temp_directory_path() / ("hetscale-twin-collect-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path spec = root / "mm.toml";
  std::ofstream(spec) << "[experiment]\nname = \"mm\"\ntarget_efficiency = 0.85\nrepetitions = 2\n\n"
                         "[code]\nkernel = \"mm\"\n\n[parameter]\nmin = 100\nmax = 1600\npoints = 5\n\n"
                         "[machine_sets]\nstart = 2\nmax = 8\n";
  const fs::path dir = root / "study";
  const auto study = run_cli({"twin", "study", spec.string(), "--site",
                              std::string(HETSCALE_FIXTURES_DIR) + "/twin/site.toml", "-o", dir.string(),
                              "--kernel-dir", std::string(HETSCALE_BINARY_DIR) + "/bin"});
  ASSERT_EQ(study.code, 0) << study.err;
  EXPECT_NE(study.out.find("runs: 30 simulated, 0 kept, 0 failed"), std::string::npos) << study.out;

  const auto collect = run_cli({"collect", "--db", db.uri(), dir.string()});
  ASSERT_EQ(collect.code, 0) << collect.err;
  EXPECT_NE(collect.out.find("30 runs added"), std::string::npos) << collect.out;
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.runs r JOIN hetscale.experiments e USING (experiment_id) "
                      "WHERE e.name = 'mm-twin'"),
            "30");
  // Stored as twin runs of the study's platform.
  const std::string hash = [&] {
    std::ifstream in(dir / "platform.sha256");
    std::string word;
    in >> word;
    return word;
  }();
  EXPECT_EQ(db.scalar("SELECT string_agg(DISTINCT engine || ' ' || platform_hash, ',') FROM hetscale.runs"),
            "simgrid " + hash);
  // Collecting again adds nothing.
  const auto again = run_cli({"collect", "--db", db.uri(), dir.string()});
  EXPECT_NE(again.out.find("0 runs added"), std::string::npos) << again.out;

  // Without --target: the spec's target_efficiency, from the plan.
  const auto analyze = run_cli({"analyze", "--db", db.uri(), "--experiment", "mm-twin", "--format", "json"});
  ASSERT_EQ(analyze.code, 0) << analyze.err;
  const auto result = nlohmann::json::parse(analyze.out);
  EXPECT_EQ(result["target_efficiency"], 0.85);
  ASSERT_EQ(result["sets"].size(), 3u);
  double previous_work = 0;
  for (const auto& set : result["sets"]) {
    EXPECT_EQ(set["status"], "found") << set.dump();
    EXPECT_EQ(set["runs"], 10);
    EXPECT_GT(set["work"].get<double>(), previous_work) << "a larger set needs more work at the same E_s";
    previous_work = set["work"].get<double>();
  }
  ASSERT_EQ(result["psi"].size(), 2u);
  for (const auto& psi : result["psi"]) {
    ASSERT_TRUE(psi["psi"].is_number()) << psi.dump();
    EXPECT_GT(psi["psi"].get<double>(), 0);
    EXPECT_LE(psi["psi"].get<double>(), psi["to_speed"].get<double>() / psi["from_speed"].get<double>());
  }
  // An experiment the database does not know has no target to fall back on.
  const auto unknown = run_cli({"predict", "--db", db.uri(), "--experiment", "nothing-twin"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_EQ(unknown.err, "hetscale predict: experiment 'nothing-twin' is not in the database\n");
  fs::remove_all(root);
}

// Refinement on the twin: round 0 misses the target below its sizes; `twin refine` plans
// round 1 from the database (as jobgen --refine --db does), on the same platform, with
// smaller sizes; its plan is round 1 and its runs join the experiment.
TEST(TwinStudyCollected, IsRefinedRoundByRoundFromTheDatabase) {
  TestDatabase db;
  db.migrate();
  const fs::path root = fs::temp_directory_path() / ("hetscale-twin-refine-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path spec = root / "mm.toml";
  std::ofstream(spec) << "[experiment]\nname = \"mm\"\ntarget_efficiency = 0.5\n\n"
                         "[code]\nkernel = \"mm\"\n\n[parameter]\nmin = 200\nmax = 1600\npoints = 3\n\n"
                         "[machine_sets]\nstart = 2\nmax = 8\n";
  const std::string bin = std::string(HETSCALE_BINARY_DIR) + "/bin";
  const fs::path round0 = root / "round0";
  ASSERT_EQ(run_cli({"twin", "study", spec.string(), "--site", std::string(HETSCALE_FIXTURES_DIR) + "/twin/site.toml",
                     "-o", round0.string(), "--kernel-dir", bin})
                .code,
            0);
  ASSERT_EQ(run_cli({"collect", "--db", db.uri(), round0.string()}).code, 0);

  const fs::path round1 = root / "round1";
  const auto refine = run_cli({"twin", "refine", "--db", db.uri(), "--from", round0.string(), "-o", round1.string(),
                               "--kernel-dir", bin});
  ASSERT_EQ(refine.code, 0) << refine.err;
  EXPECT_NE(refine.out.find("(experiment mm-twin, round 1, "), std::string::npos) << refine.out;
  const auto plan = nlohmann::json::parse(std::ifstream(round1 / "plan.json"));
  EXPECT_EQ(plan["round"], 1);
  EXPECT_EQ(plan["experiment"]["name"], "mm-twin");
  const auto values = plan["machine_sets"][0]["parameter_values"];
  ASSERT_FALSE(values.empty());
  EXPECT_LT(values[0].get<double>(), 200) << "round 1 reaches below the first sizes";
  // The same platform: the same bytes, the same hash in every record.
  std::ifstream a(round0 / "platform.xml"), b(round1 / "platform.xml");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}), std::string(std::istreambuf_iterator<char>(b), {}));
  ASSERT_EQ(run_cli({"collect", "--db", db.uri(), round1.string()}).code, 0);
  EXPECT_EQ(db.scalar("SELECT count(DISTINCT platform_hash) FROM hetscale.runs"), "1");
  EXPECT_EQ(db.scalar("SELECT max(round) FROM hetscale.plan_rounds"), "1");
  fs::remove_all(root);
}

// The bundled Extra-P example (examples/experiments/extrap-mm.toml, same_on_every_set) on
// the star8 site grown to 32 nodes: five sets (p = 2..32) at the same five sizes form the
// grid Extra-P models in p and N, so the export writes the two-parameter file as well as
// one file per set.
TEST(TwinStudyCollected, TheExtrapExampleGivesAGridOverProcessorsAndN) {
  TestDatabase db;
  db.migrate();
  const fs::path root = fs::temp_directory_path() / ("hetscale-twin-extrap-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path dir = root / "study";
  const auto study = run_cli({"twin", "study", std::string(HETSCALE_SOURCE_DIR) + "/examples/experiments/extrap-mm.toml",
                              "--site", std::string(HETSCALE_FIXTURES_DIR) + "/twin/site.toml", "--nodes", "32", "-o",
                              dir.string(), "--kernel-dir", std::string(HETSCALE_BINARY_DIR) + "/bin"});
  ASSERT_EQ(study.code, 0) << study.err;
  ASSERT_EQ(run_cli({"collect", "--db", db.uri(), dir.string()}).code, 0);
  const fs::path file = root / "mm.jsonl";
  const auto analyze = run_cli({"analyze", "--db", db.uri(), "--experiment", "extrap-mm-twin", "--export", "extrap",
                                file.string()});
  ASSERT_EQ(analyze.code, 0) << analyze.err;

  std::set<long long> processors;
  std::set<double> sizes;
  std::size_t lines = 0;
  std::ifstream grid(file);
  ASSERT_TRUE(grid) << analyze.err;
  for (std::string line; std::getline(grid, line); ++lines) {
    const auto row = nlohmann::json::parse(line);
    EXPECT_EQ(row["callpath"], "mm");
    processors.insert(row["params"]["p"].get<long long>());
    sizes.insert(row["params"]["N"].get<double>());
    EXPECT_GT(row["value"].get<double>(), 0);
  }
  EXPECT_EQ(processors, (std::set<long long>{2, 4, 8, 16, 32}));
  EXPECT_EQ(sizes.size(), 5u);
  EXPECT_EQ(lines, 25u) << "one repetition of each (p, N)";
  for (int k = 0; k < 5; ++k) {
    std::ifstream set(root / ("mm.set" + std::to_string(k) + ".jsonl"));
    std::size_t set_lines = 0;
    for (std::string line; std::getline(set, line); ++set_lines)
      EXPECT_EQ(nlohmann::json::parse(line)["callpath"], "mm.set" + std::to_string(k));
    EXPECT_EQ(set_lines, 5u) << "set " << k;
  }
  fs::remove_all(root);
}

// The network probe on the twin's sets (`twin study --probe`), collected with the study's
// records: one row per set, keyed by the twin experiment, and read back by process count;
// a probe of the site (naming no experiment) on the nodes of one of the experiment's sets
// is the experiment's too. Collecting again adds nothing.
TEST(TwinStudyCollected, ProbesOfEverySetAreReadBackByProcessCount) {
  TestDatabase db;
  db.migrate();
  const fs::path root = fs::temp_directory_path() / ("hetscale-twin-probes-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path spec = root / "mm.toml";
  std::ofstream(spec) << "[experiment]\nname = \"mm\"\ntarget_efficiency = 0.5\n\n"
                         "[code]\nkernel = \"mm\"\n\n[parameter]\nmin = 200\nmax = 800\npoints = 2\n\n"
                         "[machine_sets]\nstart = 2\nmax = 8\n";
  const fs::path dir = root / "study";
  const auto study = run_cli({"twin", "study", spec.string(), "--site",
                              std::string(HETSCALE_FIXTURES_DIR) + "/twin/site.toml", "-o", dir.string(), "--probe",
                              "--kernel-dir", std::string(HETSCALE_BINARY_DIR) + "/bin"});
  ASSERT_EQ(study.code, 0) << study.err;
  EXPECT_NE(study.out.find("probes: 3 written, 0 failed"), std::string::npos) << study.out;
  for (int set = 0; set < 3; ++set)
    EXPECT_TRUE(fs::exists(dir / ("probes/set" + std::to_string(set) + ".commbench.json"))) << set;

  // A probe of the site on set 1's nodes: the same figures, naming no experiment.
  auto site_probe = nlohmann::json::parse(std::ifstream(dir / "probes/set1.commbench.json"));
  site_probe["experiment"] = "";
  site_probe["machine_set"] = nullptr;
  std::ofstream(dir / "probes/site.commbench.json") << site_probe.dump();

  const auto collect = run_cli({"collect", "--db", db.uri(), dir.string()});
  ASSERT_EQ(collect.code, 0) << collect.err;
  EXPECT_NE(collect.out.find("network probes: 4 read, 4 added, 0 already present"), std::string::npos) << collect.out;
  EXPECT_EQ(db.scalar("SELECT string_agg(processes || ':' || engine || ':' || COALESCE(machine_set::text, '-'), ',' "
                      "ORDER BY processes, machine_set) FROM hetscale.network_probes"),
            "2:simgrid:0,4:simgrid:1,4:simgrid:-,8:simgrid:2");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM hetscale.network_probes WHERE site = 'star8' AND remote_segments >= 2 "
                      "AND remote_bandwidth_mbps > 100 AND collectives > 0 AND document ? 'collectives'"),
            "4");
  const auto again = run_cli({"collect", "--db", db.uri(), dir.string()});
  EXPECT_NE(again.out.find("network probes: 4 read, 0 added, 4 already present"), std::string::npos) << again.out;

  pg::Connection conn = db.connect();
  const auto probes = collector::experiment_probes(conn, "mm-twin");
  ASSERT_EQ(probes.size(), 4u);
  EXPECT_EQ(probes[0].processes, 2);
  EXPECT_EQ(probes[3].processes, 8);
  EXPECT_EQ(probes[0].experiment, "mm-twin");
  const collector::StoredProbe* four = collector::probe_for_processes(probes, 4);
  ASSERT_NE(four, nullptr);
  const auto plan = nlohmann::json::parse(std::ifstream(dir / "plan.json"));
  auto planned = plan["machine_sets"][1]["nodes"].get<std::vector<std::string>>();
  auto probed = four->nodes;
  std::sort(planned.begin(), planned.end());
  std::sort(probed.begin(), probed.end());
  EXPECT_EQ(probed, planned);
  EXPECT_EQ(four->probe.processes(), 4);
  EXPECT_EQ(collector::probe_for_processes(probes, 16), nullptr);
  EXPECT_EQ(std::count_if(probes.begin(), probes.end(), [](const auto& p) { return p.experiment.empty(); }), 1);
  // The figures read back are the file's.
  const CommbenchOutput file = read_commbench_output((dir / "probes/set2.commbench.json").string());
  EXPECT_EQ(probes[3].probe.remote->fit.segments.size(), file.probe->remote->fit.segments.size());
  EXPECT_EQ(probes[3].probe.collectives.size(), file.probe->collectives.size());
  EXPECT_EQ(collector::site_probes(conn, "star8", std::string("slurm")).size(), 0u);
  EXPECT_EQ(collector::site_probes(conn, "star8").size(), 4u);
  fs::remove_all(root);
}

}  // namespace
}  // namespace hetscale::test
