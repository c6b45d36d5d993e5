// hetscale config, and --db/--site taken from HETSCALE_DB and the config files. Every test
// of this binary runs with HOME in an empty temporary directory and without HETSCALE_DB or
// XDG_CONFIG_HOME (a global environment below): no test reads the developer's own config.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

fs::path isolated_home() {
  return fs::temp_directory_path() / ("hetscale-cli-home-" + std::to_string(::getpid()));
}

class IsolatedSettings : public ::testing::Environment {
 public:
  void SetUp() override {
    fs::remove_all(isolated_home());
    fs::create_directories(isolated_home());
    ::setenv("HOME", isolated_home().c_str(), 1);
    ::unsetenv("XDG_CONFIG_HOME");
    ::unsetenv("HETSCALE_DB");
  }
  void TearDown() override { fs::remove_all(isolated_home()); }
};

[[maybe_unused]] const auto* const isolated = ::testing::AddGlobalTestEnvironment(new IsolatedSettings);

class Config : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(user_file().parent_path()); }
  void TearDown() override {
    fs::remove_all(isolated_home() / ".config");
    ::unsetenv("HETSCALE_DB");
  }
  static fs::path user_file() { return isolated_home() / ".config" / "hetscale" / "hetscale.toml"; }
  static void write_config(const std::string& text) { std::ofstream(user_file()) << text; }
};

TEST_F(Config, PrintsEachSettingWithItsOriginAndMasksThePassword) {
  write_config("database = \"postgresql://alice:s3cret@db.example/hetscale\"\n\nsite = \"/srv/site.toml\"\n");
  const Result r = run_cli({"config"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("postgresql://alice:***@db.example/hetscale"));
  EXPECT_THAT(r.out, Not(HasSubstr("s3cret")));
  EXPECT_THAT(r.out, HasSubstr(user_file().string() + ":1:1"));
  EXPECT_THAT(r.out, HasSubstr(user_file().string() + ":3:1"));
  EXPECT_THAT(r.out, HasSubstr("default (beside the hetscale executable)"));
  EXPECT_THAT(r.out, HasSubstr(user_file().string() + " (read)"));
}

TEST_F(Config, EnvironmentOverridesTheFileAndTheOptionOverridesBoth) {
  write_config("database = \"service=from-file\"\n");
  ::setenv("HETSCALE_DB", "host=h password='p w' dbname=x", 1);
  Result r = run_cli({"config", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["settings"][0]["setting"], "database");
  EXPECT_EQ(json["settings"][0]["value"], "host=h password='***' dbname=x");
  EXPECT_EQ(json["settings"][0]["origin"], "HETSCALE_DB");
  EXPECT_TRUE(json["settings"][1]["value"].is_null());
  EXPECT_EQ(json["settings"][1]["origin"], "unset");
  EXPECT_EQ(json["files"][1]["path"], user_file().string());
  EXPECT_EQ(json["files"][1]["found"], true);

  r = run_cli({"config", "--format", "json", "--db", "postgresql://bob:pw@h/db", "--site", "s.toml"});
  ASSERT_EQ(r.code, 0) << r.err;
  json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["settings"][0]["value"], "postgresql://bob:***@h/db");
  EXPECT_EQ(json["settings"][0]["origin"], "--db");
  EXPECT_EQ(json["settings"][1]["value"], "s.toml");
  EXPECT_EQ(json["settings"][1]["origin"], "--site");
}

TEST_F(Config, BadConfigFileFailsEveryCommandThatReadsItAtFileLineColumn) {
  write_config("database = \"service=x\"\nsite = [\"a\"]\n");
  for (const std::vector<std::string>& command : {std::vector<std::string>{"config"}, {"sets"}}) {
    const Result r = run_cli(command);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(user_file().string() + ":2:8: 'site' must be a string, not an array"));
  }
}

TEST_F(Config, MissingDatabaseNamesOptionVariableAndFiles) {
  const Result r = run_cli({"db", "migrate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "hetscale db migrate: no database: give --db, set HETSCALE_DB or set `database` in "
                   "/etc/hetscale/hetscale.toml or " +
                       user_file().string() + " (see --help)\n");
}

TEST_F(Config, SiteTableComesFromTheConfigFile) {
  EXPECT_EQ(run_cli({"sets"}).code, 2);
  write_config("site = \"" + site_config("three-group-head.toml") + "\"\n");
  const Result r = run_cli({"sets", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)[0]["set"], 0);
}

}  // namespace
}  // namespace hetscale::cli::testing
