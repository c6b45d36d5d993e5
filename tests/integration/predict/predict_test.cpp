// hetscale predict on a synthetic experiment generated from a known time model
// T = W/(C eta) + c0 [p>1] + c1 N^2 ceil(log2 p): the forecast must match the closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "synthetic_experiment.hpp"

namespace hetscale::test {
namespace {

using cli::testing::run_cli;

using Predict = SyntheticExperiment;

struct Expected {
  std::string kind;
  double marked_speed;  // Mflops
  double processes;
};

TEST_F(Predict, MatchesTheClosedForm) {
  const auto r = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic", "--target",
                          "0.5", "--doublings", "2", "--what-if", "group:300:4", "--format",
                          "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_LT(j["forecast_error"].get<double>(), 1e-6);  // exact data, exact model
  EXPECT_EQ(j["runs"], 21);
  const std::vector<Expected> expected{{"measured", 200, 2},   {"measured", 400, 4},
                                       {"measured", 800, 8},   {"doubling", 1600, 16},
                                       {"doubling", 3200, 32}, {"what_if", 2000, 12}};
  ASSERT_EQ(j["rows"].size(), expected.size());
  const std::string batch = std::to_string(j["batch"].get<long long>());
  auto conn = db_.connect();
  const pg::Result stored = conn.exec(R"sql(
    SELECT kind, marked_speed, predicted_parameter, predicted_work, predicted_psi,
           measured_parameter, relative_error, model
    FROM hetscale.capacity_forecast WHERE experiment = 'synthetic' ORDER BY position)sql",
                                      {});
  ASSERT_EQ(stored.rows(), static_cast<int>(expected.size()));
  double previous_c = 0;
  double previous_work = 0;
  double base_c = 0;  // the largest measured set, the what-if's base
  double base_work = 0;
  for (int i = 0; i < stored.rows(); ++i) {
    const auto& e = expected[static_cast<std::size_t>(i)];
    const double n = closed_form_parameter(e.marked_speed * 1e6, e.processes);
    const double work = 2 * n * n * n;
    SCOPED_TRACE(e.kind + " " + std::to_string(e.marked_speed));
    EXPECT_EQ(stored.text(i, 0), e.kind);
    EXPECT_DOUBLE_EQ(stored.number(i, 1), e.marked_speed);
    EXPECT_NEAR(stored.number(i, 2) / n, 1, 1e-6);
    EXPECT_NEAR(stored.number(i, 3) / work, 1, 3e-6);
    EXPECT_NEAR(j["rows"][i]["predicted_parameter"].get<double>() / n, 1, 1e-6);
    if (i == 0) {
      EXPECT_TRUE(stored.is_null(i, 4));
    } else if (e.kind == "what_if") {  // against the set it grows, not the previous row
      EXPECT_NEAR(stored.number(i, 4), (e.marked_speed * base_work) / (base_c * work), 1e-5);
      EXPECT_EQ(j["rows"][i]["label"], "group:300:4 on set 2");
      EXPECT_EQ(j["rows"][i]["psi_against"], "set 2");
    } else {
      EXPECT_NEAR(stored.number(i, 4), (e.marked_speed * previous_work) / (previous_c * work),
                  1e-5);
    }
    if (e.kind == "measured") {
      base_c = e.marked_speed;
      base_work = work;
    }
    if (e.kind == "measured") {
      // The measured parameter is read off the fitted E_s curve of 7 sizes: close, not exact.
      EXPECT_NEAR(stored.number(i, 5) / n, 1, 0.1);
      EXPECT_NEAR(stored.number(i, 6), (stored.number(i, 2) - stored.number(i, 5)) / stored.number(i, 5),
                  1e-12);
    } else {
      EXPECT_TRUE(stored.is_null(i, 5));
    }
    const std::string model(stored.text(i, 7));
    EXPECT_NE(model.find("0.01*[p>1]"), std::string::npos) << model;
    EXPECT_NE(model.find("2e-08*N^2*log2p"), std::string::npos) << model;
    previous_c = e.marked_speed;
    previous_work = work;
  }
}

// Fitted on the two smaller sets only, the model (exact there) still predicts the largest
// set's parameter to the closed form, and that row is marked as held out.
TEST_F(Predict, FitSetsPredictTheHeldOutSet) {
  const auto r = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic", "--target",
                          "0.5", "--doublings", "1", "--fit-sets", "1,0", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"], 14);
  EXPECT_EQ(j["held_out_runs"], 7);
  EXPECT_EQ(j["fit_sets"], nlohmann::json::array({0, 1}));
  EXPECT_LT(j["forecast_error"].get<double>(), 1e-6);
  EXPECT_LT(j["held_out_forecast_error"].get<double>(), 1e-6);
  const auto model = j["model"].get<std::string>();
  EXPECT_TRUE(model.ends_with("; fitted on sets 0,1 (14 runs)")) << model;
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 4u);
  const std::vector<std::string> fitted{"yes", "yes", "no"};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(rows[i]["kind"], "measured");
    EXPECT_EQ(rows[i]["fitted"], fitted[i]);
  }
  EXPECT_TRUE(rows[3]["fitted"].is_null());  // a doubling: neither fitted nor held out
  const double largest = closed_form_parameter(800e6, 8);
  EXPECT_NEAR(rows[2]["predicted_parameter"].get<double>() / largest, 1, 1e-6);
  EXPECT_NEAR(rows[3]["predicted_parameter"].get<double>() / closed_form_parameter(1600e6, 16),
              1, 1e-6);
  // The summary: mean |relative_error| of the held-out row alone, of the fitted ones.
  EXPECT_DOUBLE_EQ(j["held_out_parameter_error"].get<double>(),
                   std::abs(rows[2]["relative_error"].get<double>()));
  EXPECT_DOUBLE_EQ(j["fitted_parameter_error"].get<double>(),
                   (std::abs(rows[0]["relative_error"].get<double>()) +
                    std::abs(rows[1]["relative_error"].get<double>())) /
                       2);
  // The stored batch names the fitted sets in `model` (the schema has no other place).
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.capacity_forecast WHERE experiment = "
                       "'synthetic' AND model LIKE '%; fitted on sets 0,1 (14 runs)'"),
            "4");
  EXPECT_NEAR(std::stod(db_.scalar("SELECT predicted_parameter FROM hetscale.capacity_forecast "
                                   "WHERE kind = 'measured' AND set_index = 2")) /
                  largest,
              1, 1e-6);

  const auto table = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic",
                              "--target", "0.5", "--fit-sets", "0,1"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("run-time forecast on the 14 fitted runs: mean absolute relative "
                           "error 0.00%\nrun-time forecast on the 7 held-out runs: mean "
                           "absolute relative error 0.00%\nparameter at the target, mean "
                           "|relative_error|: held-out sets "),
            std::string::npos)
      << table.out;
  const auto csv = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic",
                            "--target", "0.5", "--fit-sets", "0,1", "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",relative_error,fitted,note\n"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",predicted_parameter,predicted_parameter_low,predicted_parameter_high,"
                         "predicted_parameter_interval_note,"),
            std::string::npos)
      << csv.out;
  EXPECT_NE(csv.out.find("\nmeasured,set 2,8,8,800,"), std::string::npos) << csv.out;
}

TEST_F(Predict, FitSetsMustBeMeasuredAndEnough) {
  auto r = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic", "--target", "0.5",
                    "--fit-sets", "0,5"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale predict: --fit-sets: set 5 is not a measured set of experiment 'synthetic' "
            "(sets with timed runs: 0,1,2)\n");
  r = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic", "--target", "0.5",
               "--fit-sets", "2"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale predict: --fit-sets 2: 7 run(s) on 1 process count(s); the model needs runs "
            "on at least 2 machine sets with different process counts to separate computation "
            "from communication: add one of sets 0,1\n");
  EXPECT_EQ(db_.scalar("SELECT count(*) FROM hetscale.predictions"), "0");
}

TEST_F(Predict, SiteGroupsGrowTheLargestSet) {
  std::ofstream(dir_.path() / "site.toml") << R"(
[site]
name = "synthetic"
speed_unit = "Mflops"
benchmark = "dgemm"

[[group]]
name = "slow"
marked_speed = 100

[[group]]
name = "fast"
marked_speed = 250

[[node]]
name = "n[1-8]"
group = "slow"

[[node]]
name = "f[1-2]"
group = "fast"
processors = 2
)";
  const auto r = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic", "--target",
                          "0.5", "--doublings", "0", "--what-if", "add:2:fast", "--site",
                          (dir_.path() / "site.toml").string(), "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  // 8 slow nodes + 2 fast nodes of 2 processors at 250: C = 1800, p = 12.
  EXPECT_NE(r.out.find("\nwhat_if,add:2:fast on set 2,10,12,1800,"), std::string::npos) << r.out;
  const double n = closed_form_parameter(1800e6, 12);
  EXPECT_NEAR(std::stod(db_.scalar("SELECT predicted_parameter FROM hetscale.capacity_forecast "
                                   "WHERE kind = 'what_if'")) / n,
              1, 1e-6);
}

TEST_F(Predict, TableFormatNamesTheModelAndError) {
  const auto r = run_cli(
      {"predict", "--db", db_.uri(), "--experiment", "synthetic", "--target", "0.5"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("run-time forecast on the 21 measured runs: mean absolute relative error 0.00%"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("32 nodes (2 x the previous set, beyond the site)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nintervals: 90% of one new run on each set, residual bootstrap of the "
                       "time model with run noise, percentile, 1000 resamples; "),
            std::string::npos)
      << r.out;
}

TEST_F(Predict, ErrorsAreClear) {
  auto r = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic", "--target", "0.3"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale predict: experiment 'synthetic' has no required work at target 0.3: run "
            "`hetscale analyze --db URI --experiment synthetic --target 0.3` first\n");
  r = run_cli({"predict", "--db", db_.uri(), "--experiment", "nothing", "--target", "0.5"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "hetscale predict: no experiment 'nothing' in the database\n");

  // One machine set only.
  std::vector<nlohmann::json> records;
  for (int i = 0; i < 3; ++i)
    records.push_back(run_record("one-set", 100.0 * (i + 1), 0, 0, 200,
                                 {{"n1", 0.5, 1, 0.1}, {"n2", 0.5, 1, 0.1}}, 500 + i));
  ASSERT_EQ(collect(db_.uri(), dir_.path() / "one.jsonl", records).code, 0);
  r = run_cli({"predict", "--db", db_.uri(), "--experiment", "one-set", "--target", "0.5"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale predict: experiment 'one-set' has timed runs on 1 machine set(s): the model "
            "needs at least 2 sets (different process counts) to separate computation from "
            "communication\n");

  r = run_cli({"predict", "--db", db_.uri(), "--experiment", "synthetic", "--target", "0.5",
               "--what-if", "add:2:gpu"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "hetscale predict: --what-if add:2:gpu: adding nodes of a site group needs the site "
            "table (--site FILE, or an experiment whose site is in the database)\n");
}

TEST(PredictWhatIf, BadSpecsAreUsageErrors) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"add:2", "three fields separated by ':' are needed"},
      {"add:0:fast", "'0' is not a positive node count"},
      {"add:x:fast", "'x' is not a positive node count"},
      {"add:2:", "the group name is empty"},
      {"group:-5:2", "'-5' is not a positive speed"},
      {"group:100:2.5", "'2.5' is not a positive node count"},
      {"remove:1:fast", "unknown kind 'remove'"}};
  for (const auto& [spec, why] : cases) {
    const auto r = run_cli({"predict", "--db", "postgresql://unused", "--experiment", "e",
                            "--target", "0.5", "--what-if", spec});
    EXPECT_EQ(r.code, 2) << spec;
    EXPECT_EQ(r.err, "hetscale predict: --what-if '" + spec + "': " + why +
                         " (expected add:K:GROUP or group:SPEED:K, K a positive whole number of "
                         "nodes, SPEED a positive marked speed) (see --help)\n");
  }
}

}  // namespace
}  // namespace hetscale::test
