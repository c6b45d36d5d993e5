#include "hetscale/collector/set_equalization.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hetscale/base/error.hpp"
#include "hetscale/site/partition_file.hpp"

namespace hetscale {
namespace {

std::size_t column(const Table& table, const std::string& name) {
  for (std::size_t c = 0; c < table.columns.size(); ++c)
    if (table.columns[c] == name) return c;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

double number(const Table& table, std::size_t row, const std::string& name) {
  return std::get<double>(table.rows[row][column(table, name)]);
}

TEST(SetEqualization, CsvWithVariationOrTh) {
  const auto variation = CsvTable::parse("node,speed,variation\nn1,2,0\nn2,1,0.3\n", "v.csv");
  EXPECT_FALSE(node_csv_gives_th(variation));
  const auto nodes = equalization_nodes_from_csv(variation, "v.csv", 0);
  EXPECT_EQ(nodes.source, "v.csv");
  EXPECT_EQ(nodes.names, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(nodes.computers[0].speed, 2);
  EXPECT_EQ(nodes.computers[1].variation, 0.3);
  EXPECT_TRUE(nodes.stats.empty());

  // th 0.5 over a correlation time of 4 s: k = 0.5 x sqrt(4) = 1.
  const auto th = CsvTable::parse("node,speed,th\nn1,1,0\nn2,1,0.5\n", "th.csv");
  EXPECT_TRUE(node_csv_gives_th(th));
  EXPECT_DOUBLE_EQ(equalization_nodes_from_csv(th, "th.csv", 4).computers[1].variation, 1);
  EXPECT_THROW(equalization_nodes_from_csv(th, "th.csv", 0), Error);
}

TEST(SetEqualization, CsvErrorsNameTheCell) {
  const auto both = CsvTable::parse("node,speed,variation,th\nn1,1,0,0\n", "b.csv");
  EXPECT_THROW(node_csv_gives_th(both), ConfigError);
  const auto typo = CsvTable::parse("node,speed,variance\nn1,1,0\n", "t.csv");
  EXPECT_THROW(node_csv_gives_th(typo), ConfigError);
  try {
    equalization_nodes_from_csv(CsvTable::parse("node,speed,variation\nn1,0,0\n", "z.csv"), "z.csv",
                                0);
    FAIL() << "a zero speed was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().line, 2u);
    EXPECT_EQ(e.message(), "speed must be positive");
  }
  EXPECT_THROW(equalization_nodes_from_csv(
                   CsvTable::parse("node,speed,variation\nn1,1,-1\n", "n.csv"), "n.csv", 0),
               ConfigError);
  EXPECT_THROW(
      equalization_nodes_from_csv(CsvTable::parse("node,speed,variation\n", "e.csv"), "e.csv", 0),
      Error);
}

TEST(SetEqualization, TimingsGiveStatsAndTheRunTimeVariation) {
  // Two runs; a node's seconds per op is its time over (weight x work).
  std::vector<RankSample> ranks;
  for (long long run = 0; run < 2; ++run) {
    ranks.push_back({run, "n1", 0.5, 100, 50.0 * (run == 0 ? 1.0 : 1.2)});
    ranks.push_back({run, "n2", 0.5, 100, 100.0});
  }
  const auto nodes = equalization_nodes_from_timings("runs", node_timing_stats(ranks), {});
  ASSERT_EQ(nodes.names, (std::vector<std::string>{"n1", "n2"}));
  ASSERT_EQ(nodes.stats.size(), 2u);
  EXPECT_EQ(nodes.stats[0].repetitions, 2u);
  // n1: 1 and 1.2 s/op, mean 1.1, so speed 1/1.1; n2: 2 s/op, steady.
  EXPECT_NEAR(nodes.computers[0].speed, 1 / 1.1, 1e-12);
  EXPECT_EQ(nodes.computers[1].variation, 0);
  EXPECT_EQ(nodes.computers[0].variation, variable_computer_from(nodes.stats[0]).variation);
  EXPECT_FALSE(nodes.from_availability);
  EXPECT_FALSE(nodes.variation.empty());
  EXPECT_TRUE(nodes.note.empty());

  std::vector<RankSample> one_run(ranks.begin(), ranks.begin() + 2);
  EXPECT_THROW(equalization_nodes_from_timings("runs", node_timing_stats(one_run), {}), Error);
}

TEST(SetEqualization, SimulationGivesEachNodeItsVariation) {
  // k = 0.1: TH = k / sqrt(2/3 x interval) at interval 1.5 s is 0.1.
  const std::vector<VariableComputer> computers{{4, 0.1}, {2, 0}};
  SimulationOptions options;
  options.max_interval = 1.5;
  const auto sim = equalization_simulation(computers, options);
  ASSERT_EQ(sim.computers.size(), 2u);
  EXPECT_DOUBLE_EQ(sim.computers[0].max_power, 8);
  EXPECT_DOUBLE_EQ(sim.computers[0].mean_availability, 0.5);
  EXPECT_NEAR(sim.computers[0].availability_sd, 0.1 * 0.5, 1e-12);
  EXPECT_EQ(sim.computers[1].availability_sd, 0);
  EXPECT_EQ(sim.options.max_interval, 1.5);
  EXPECT_TRUE(sim.note.empty());

  // k = 2 needs TH 0.5 over a correlation time of 16 s: intervals of 24 s.
  const std::vector<VariableComputer> unsteady{{1, 2}, {1, 0}};
  const auto longer = equalization_simulation(unsteady, options);
  EXPECT_DOUBLE_EQ(longer.options.max_interval, 24);
  EXPECT_NEAR(longer.computers[0].availability_sd, 0.5 * 0.5, 1e-12);
  EXPECT_NE(longer.note.find("lengthened from 1.5 s to 24 s"), std::string::npos) << longer.note;
}

TEST(SetEqualization, PlanMethodsAndTable) {
  // Equal speeds, k = 0 and 1, 1 s each at step 1: X = 2 (the case of equalization_test).
  const std::vector<VariableComputer> computers{{1, 0}, {1, 1}};
  auto plan = plan_equalization(computers, 1, "case", nullptr);
  EXPECT_DOUBLE_EQ(plan.total_work, 2);
  ASSERT_EQ(plan.methods.size(), 2u);
  EXPECT_EQ(plan.methods[0].name, "proportional");
  EXPECT_EQ(plan.methods[0].partition.work, proportional_partition(computers, 2).work);
  EXPECT_EQ(plan.methods[1].name, "equalized");
  EXPECT_EQ(plan.methods[1].partition.work, choose_partition(computers, 2, "case").partition.work);
  EXPECT_EQ(&written_method(plan), &plan.methods[1]);
  EXPECT_EQ(plan.methods[1].simulated.tau, 0);  // not simulated

  EqualizationNodes nodes{"by hand", {"n1", "n2"}, computers, {}, {}, {}, false};
  const Table table = equalization_table(nodes, plan);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.columns.size(), 12u);
  EXPECT_DOUBLE_EQ(number(table, 0, "proportional_weight"), 0.5);
  const double r = (std::sqrt(17.0) - 1) / 4;  // equalized: t2 = r^2
  EXPECT_NEAR(number(table, 1, "equalized_weight"), r * r / 2, 1e-12);
  EXPECT_DOUBLE_EQ(number(table, 0, "step2_weight"), plan.chosen.partition.work[0] / 2);
  EXPECT_DOUBLE_EQ(number(table, 1, "t_plus_sigma_step1"), 2);  // t = 1, sigma = 1 x sqrt(1)
  EXPECT_EQ(std::get<std::string>(table.rows[0][column(table, "case")]), "equal-speeds");
  EXPECT_DOUBLE_EQ(number(table, 0, "modelled_tau_equalized"),
                   modelled_tau(computers, equalized_partition(computers, 2).work));

  const std::string text = equalization_text(nodes, plan);
  EXPECT_NE(text.find("case: equal-speeds: "), std::string::npos) << text;
  EXPECT_NE(text.find("step 2 (case)"), std::string::npos) << text;

  // linearised: step 2 by case is stored as `equalized`, the linearised one is written.
  plan = plan_equalization(computers, 1, "linearised", nullptr);
  ASSERT_EQ(plan.methods.size(), 3u);
  EXPECT_EQ(plan.methods[1].partition.work, plan.chosen.two_step.step2.work);
  EXPECT_EQ(written_method(plan).name, "equalized_linear");
  EXPECT_EQ(written_method(plan).partition.work,
            choose_partition(computers, 2, "linearised").partition.work);
}

TEST(SetEqualization, SimulatedRiskIsAgainstStepOne) {
  const std::vector<VariableComputer> computers{{1, 0}, {1, 0.5}};
  SimulationOptions options;
  options.repetitions = 200;
  const auto sim = equalization_simulation(computers, options);
  const auto plan = plan_equalization(computers, 10, "case", &sim);
  const auto step1 = simulate(sim.computers, plan.methods[0].partition.work, sim.options);
  EXPECT_EQ(plan.methods[0].simulated.tau, step1.tau);
  EXPECT_EQ(plan.methods[1].simulated.deadline, step1.tau);
  const std::string text = simulation_text(plan, sim);
  EXPECT_NE(text.find("simulated (200 repetitions, seed 1,"), std::string::npos) << text;
  EXPECT_NE(text.find("  equalized "), std::string::npos) << text;
}

TEST(SetEqualization, PartitionFileWhereThePluginLooks) {
  const std::vector<VariableComputer> computers{{3, 0}, {1, 0}};
  const auto plan = plan_equalization(computers, 1, "case", nullptr);
  EqualizationNodes nodes{"by hand", {"n2", "n1"}, computers, {}, {}, {}, false};
  const auto dir = std::filesystem::path(::testing::TempDir()) / "set-equalization";
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(write_equalized_partition(nodes, plan, "lab", {}, {}).empty());
  const auto path = write_equalized_partition(nodes, plan, "lab", {}, dir);
  // Root's is the site's partition; any other user's goes to their own directory.
  EXPECT_EQ(path, equalized_partition_path(dir, std::vector<std::string>{"n1", "n2"}, ::geteuid()));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().rfind("# Written by hetscale equalize (case) from by hand\n", 0), 0u);
  const auto partition = parse_partition(text.str(), path.string());
  EXPECT_EQ(partition.site, "lab");
  ASSERT_EQ(partition.nodes.size(), 2u);
  // No variation: step 1 stands, shares in proportion to the speeds 3 and 1.
  EXPECT_EQ(partition.nodes[0].host, "n2");
  EXPECT_NEAR(partition.nodes[0].weight, 0.75, 1e-15);
  EXPECT_NEAR(partition.nodes[1].weight, 0.25, 1e-15);
  EXPECT_EQ(write_equalized_partition(nodes, plan, "lab", dir / "p.toml", dir), dir / "p.toml");
  EXPECT_TRUE(std::filesystem::exists(dir / "p.toml"));
  std::filesystem::remove_all(dir);
}

// Two users equalizing the same nodes into one partitions directory (mode 1777, as a
// study's equalize stage writes there): each gets a file of their own, never the other's,
// and the site's file (root's) stays as it was.
TEST(SetEqualization, TwoUsersEqualizingTheSameNodesEachWriteTheirOwn) {
  ASSERT_EQ(::geteuid(), 0U) << "acting as two users needs root (the tests run as root, as scripts/test.sh does)";
  const std::vector<VariableComputer> computers{{3, 0}, {1, 0}};
  const auto plan = plan_equalization(computers, 1, "case", nullptr);
  EqualizationNodes nodes{"by hand", {"n2", "n1"}, computers, {}, {}, {}, false};
  const auto dir = std::filesystem::path(::testing::TempDir()) / "set-equalization-users";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ASSERT_EQ(::chmod(dir.c_str(), 01777), 0);
  const auto site = write_equalized_partition(nodes, plan, "lab", {}, dir);
  EXPECT_EQ(site, dir / "n[1-2].toml");
  const auto as = [&](uid_t uid) {
    EXPECT_EQ(::seteuid(uid), 0);
    std::filesystem::path path;
    std::string error;
    try {
      path = write_equalized_partition(nodes, plan, "lab", {}, dir);
    } catch (const std::exception& e) {
      error = e.what();
    }
    EXPECT_EQ(::seteuid(0), 0);
    EXPECT_EQ(error, "");
    return path;
  };
  const auto a = as(60001);
  const auto b = as(60002);
  EXPECT_EQ(a, dir / "uid-60001" / "n[1-2].toml");
  EXPECT_EQ(b, dir / "uid-60002" / "n[1-2].toml");
  struct stat st {};
  ASSERT_EQ(::stat(a.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 60001U);
  ASSERT_EQ(::stat(b.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 60002U);
  EXPECT_EQ(as(60001), a);  // replaced in place the next time
  ASSERT_EQ(::stat(site.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0U);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetscale
