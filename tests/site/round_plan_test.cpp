#include "hetscale/site/round_plan.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

const std::filesystem::path fixture =
    std::filesystem::path(HETSCALE_FIXTURES_DIR) / "plans/mm-small.json";

nlohmann::json valid() {
  return to_json(load_round_plan(fixture));
}

std::string error_of(const nlohmann::json& document) {
  try {
    round_plan_from_json(document);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RoundPlan, LoadsTheFixture) {
  const RoundPlan plan = load_round_plan(fixture);
  EXPECT_EQ(plan.created, "2026-11-21T06:00:00Z");
  EXPECT_EQ(plan.experiment.name, "mm-small");
  EXPECT_EQ(plan.experiment.parameter, "N");
  EXPECT_DOUBLE_EQ(plan.experiment.target_efficiency, 0.3);
  EXPECT_EQ(plan.site.speed_unit, "Mflops");
  ASSERT_EQ(plan.site.nodes.size(), 4u);
  EXPECT_EQ(plan.site.nodes[3].state, NodeState::degraded);
  EXPECT_EQ(plan.site.nodes[2].processors, 2u);
  ASSERT_EQ(plan.machine_sets.size(), 2u);
  EXPECT_EQ(plan.machine_sets[1].set.nodes.size(), 4u);
  EXPECT_EQ(plan.machine_sets[1].set.group_counts[1].first, "server");
  EXPECT_EQ(plan.machine_sets[1].set.group_counts[1].second, 2u);
  EXPECT_DOUBLE_EQ(plan.machine_sets[1].set.marked_speed, 200.0);
  EXPECT_EQ(plan.machine_sets[1].parameter_values, (std::vector<double>{200, 400, 800}));
}

TEST(RoundPlan, SurvivesARoundTrip) {
  const nlohmann::json once = valid();
  EXPECT_EQ(to_json(round_plan_from_json(once)), once);
  EXPECT_TRUE(is_round_plan(once));
  EXPECT_FALSE(is_round_plan(nlohmann::json{{"schema", 1}, {"ranks", nlohmann::json::array()}}));
}

// What `jobgen --refine --db` needs: the round, the spec's text and its [refine] settings.
nlohmann::json with_round() {
  nlohmann::json j = valid();
  j["round"] = 2;
  j["experiment"]["spec"] = {{"path", "/home/u/mm.toml"}, {"text", "name = \"mm-small\"\n"}};
  j["experiment"]["refine"] = {{"steps", {0.02, 0.04}}, {"tolerance", 0.05}, {"max_rounds", 3}};
  j["study_token"] = "0a1b2c3d";
  return j;
}

TEST(RoundPlan, CarriesTheRoundTheStudyTokenTheSpecAndTheRefineSettings) {
  const RoundPlan plan = round_plan_from_json(with_round());
  EXPECT_EQ(plan.round, 2u);
  EXPECT_EQ(plan.study_token, "0a1b2c3d");
  ASSERT_TRUE(plan.experiment.spec.has_value());
  EXPECT_EQ(plan.experiment.spec->path, "/home/u/mm.toml");
  EXPECT_EQ(plan.experiment.spec->text, "name = \"mm-small\"\n");
  ASSERT_TRUE(plan.experiment.refine.has_value());
  EXPECT_EQ(plan.experiment.refine->steps, (std::vector<double>{0.02, 0.04}));
  EXPECT_DOUBLE_EQ(plan.experiment.refine->tolerance, 0.05);
  EXPECT_EQ(plan.experiment.refine->max_rounds, 3u);
  EXPECT_EQ(to_json(plan), with_round());
  // The text survives the file's own round trip too (quotes, newlines).
  const RoundPlan again = parse_round_plan(to_json(plan).dump(2), "plan.json");
  EXPECT_EQ(again.experiment.spec->text, plan.experiment.spec->text);
}

// Plans of older jobgens have none of them, and are written back without them.
TEST(RoundPlan, OlderPlansHaveNoRound) {
  const RoundPlan plan = load_round_plan(fixture);
  EXPECT_FALSE(plan.round.has_value());
  EXPECT_FALSE(plan.study_token.has_value());
  EXPECT_FALSE(plan.experiment.spec.has_value());
  EXPECT_FALSE(plan.experiment.refine.has_value());
  const nlohmann::json j = to_json(plan);
  EXPECT_FALSE(j.contains("round"));
  EXPECT_FALSE(j.contains("study_token"));
  EXPECT_FALSE(j["experiment"].contains("spec"));
  EXPECT_FALSE(j["experiment"].contains("refine"));
}

TEST(RoundPlan, NamesTheInvalidRefineField) {
  nlohmann::json j = with_round();
  j["round"] = -1;
  EXPECT_EQ(error_of(j), "field 'round' must be a non-negative integer");
  j = with_round();
  j["experiment"]["spec"].erase("text");
  EXPECT_EQ(error_of(j), "missing field 'experiment.spec.text'");
  j = with_round();
  j["experiment"]["spec"]["path"] = "";
  EXPECT_EQ(error_of(j), "field 'experiment.spec.path' must not be empty");
  j = with_round();
  j["experiment"]["refine"]["tolerance"] = 1;
  EXPECT_EQ(error_of(j), "field 'experiment.refine.tolerance' must be less than 1");
  j = with_round();
  j["experiment"]["refine"]["steps"] = {0.04, 0.02};
  EXPECT_EQ(error_of(j), "field 'experiment.refine.steps[1]' must be above the step before");
  j = with_round();
  j["experiment"]["refine"]["steps"] = nlohmann::json::array();
  EXPECT_EQ(error_of(j), "field 'experiment.refine.steps' must not be empty");
  j = with_round();
  j["experiment"]["refine"]["rounds"] = 3;
  EXPECT_EQ(error_of(j), "unknown field 'experiment.refine.rounds'");
}

// The token goes into #SBATCH --job-name lines: nothing but its 8 hexadecimal digits.
TEST(RoundPlan, NamesAnInvalidStudyToken) {
  for (const std::string token : {"0A1B2C3D", "0a1b2c3", "0a1b2c3d4", "0a1b2c3\n", "0a1b 2c3", ""}) {
    nlohmann::json j = with_round();
    j["study_token"] = token;
    EXPECT_EQ(error_of(j), "field 'study_token' must be 8 lowercase hexadecimal digits (got " + j["study_token"].dump() +
                               ")");
  }
  nlohmann::json j = with_round();
  j["study_token"] = 12345678;
  EXPECT_EQ(error_of(j), "field 'study_token' must be a string");
}

TEST(RoundPlan, NamesTheInvalidField) {
  nlohmann::json j = valid();
  j["schema"] = 7;
  EXPECT_EQ(error_of(j), "field 'schema' must be 1 (got 7)");
  j = valid();
  j["machine_sets"][1]["marked_speed"] = 0;
  EXPECT_EQ(error_of(j), "field 'machine_sets[1].marked_speed' must be a positive number");
  j = valid();
  j["machine_sets"][1]["index"] = 3;
  EXPECT_EQ(error_of(j), "field 'machine_sets[1].index' must be 1");
  j = valid();
  j["machine_sets"][0]["nodes"][1] = "zz";
  EXPECT_EQ(error_of(j), "field 'machine_sets[0].nodes[1]' names unknown node 'zz'");
  j = valid();
  j["machine_sets"][0]["group_counts"][0]["nodes"] = 2;
  EXPECT_EQ(error_of(j), "field 'machine_sets[0].group_counts' add up to 3 nodes, not 2");
  j = valid();
  j["experiment"]["target_efficiency"] = 1.5;
  EXPECT_EQ(error_of(j), "field 'experiment.target_efficiency' must be at most 1");
  j = valid();
  j["site"]["nodes"][0]["group"] = "gpu";
  EXPECT_EQ(error_of(j), "field 'site.nodes[0].group' names unknown group 'gpu'");
  j = valid();
  j["site"]["nodes"][0]["state"] = "broken";
  EXPECT_EQ(error_of(j),
            "field 'site.nodes[0].state' must be one of ok, degraded, excluded (got 'broken')");
  j = valid();
  j["experiment"].erase("parameter");
  EXPECT_EQ(error_of(j), "missing field 'experiment.parameter'");
}

TEST(RoundPlan, SyntaxErrorsCarryLineAndColumn) {
  try {
    parse_round_plan("{\n  \"schema\": 1,\n  \"site\" 3\n}", "plan.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().str(), "plan.json:3:10");
  }
  try {
    parse_round_plan(R"({"schema": 1})", "plan.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "plan.json: missing field 'experiment'");
  }
}

TEST(RoundPlan, ATextNestedTooDeeplyIsRefusedBeforeParsing) {
  try {
    parse_round_plan("{\n  \"schema\": " + std::string(100000, '['), "plan.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    // The first '[' is at column 13 of line 2 and opens level 2; the 64th opens level 65.
    EXPECT_STREQ(e.what(), "plan.json:2:76: invalid JSON: nesting deeper than 64");
  }
  try {  // under the limit: parsed, and the wrong schema is named by its kind
    parse_round_plan(R"({"schema": )" + std::string(60, '[') + std::string(60, ']') + "}", "plan.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "plan.json: field 'schema' must be 1 (got a list)");
  }
}

TEST(RoundPlan, ANumberBeyondADoubleIsAConfigError) {
  // nlohmann reports it as out_of_range, not as a parse error (found by fuzz/round_plan).
  try {
    parse_round_plan(R"({"schema": 1, "round": 1e400})", "plan.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "plan.json: invalid JSON: number overflow parsing '1e400'");
  }
}

}  // namespace
}  // namespace hetscale
