#include "settings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace hetscale {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A temporary directory holding a system file and a home; nothing from the real $HOME.
class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-settings-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "etc");
    fs::create_directories(dir_ / "home");
    environment_.system_file = dir_ / "etc" / "hetscale.toml";
    environment_.home = (dir_ / "home").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  fs::path user_file() const { return dir_ / "home" / ".config" / "hetscale" / "hetscale.toml"; }

  fs::path dir_;
  SettingsEnvironment environment_;
};

TEST_F(SettingsTest, NothingConfiguredLeavesEverySettingUnset) {
  const Settings s = load_settings(environment_);
  EXPECT_FALSE(s.database.is_set());
  EXPECT_FALSE(s.site.is_set());
  EXPECT_FALSE(s.kernel_dir.is_set());
  ASSERT_EQ(s.files.size(), 2u);
  EXPECT_EQ(s.files[0].path, environment_.system_file);
  EXPECT_FALSE(s.files[0].found);
  EXPECT_EQ(s.files[1].path, user_file());
  EXPECT_FALSE(s.files[1].found);
}

TEST_F(SettingsTest, UserFileOverridesSystemFileKeyByKey) {
  write(environment_.system_file, "database = \"service=system\"\nsite = \"/srv/site.toml\"\n");
  write(user_file(), "# mine\ndatabase = \"service=mine\"\n");
  const Settings s = load_settings(environment_);
  EXPECT_EQ(s.database.value, "service=mine");
  EXPECT_EQ(s.database.origin.kind, SettingOrigin::Kind::file);
  EXPECT_EQ(s.database.origin.str(), user_file().string() + ":2:1");
  EXPECT_EQ(s.site.value, "/srv/site.toml");
  EXPECT_EQ(s.site.origin.str(), environment_.system_file.string() + ":2:1");
  EXPECT_TRUE(s.files[0].found);
  EXPECT_TRUE(s.files[1].found);
}

TEST_F(SettingsTest, XdgConfigHomeReplacesDotConfig) {
  const fs::path xdg = dir_ / "xdg";
  environment_.xdg_config_home = xdg.string();
  write(user_file(), "database = \"service=dotconfig\"\n");
  write(xdg / "hetscale" / "hetscale.toml", "database = \"service=xdg\"\n");
  const Settings s = load_settings(environment_);
  EXPECT_EQ(s.database.value, "service=xdg");
  EXPECT_EQ(s.files.back().path, xdg / "hetscale" / "hetscale.toml");
}

TEST_F(SettingsTest, RelativeXdgConfigHomeIsIgnored) {
  environment_.xdg_config_home = "relative/dir";
  EXPECT_EQ(config_file_paths(environment_).back(), user_file());
}

TEST_F(SettingsTest, NoHomeMeansOnlyTheSystemFile) {
  environment_.home.reset();
  EXPECT_EQ(config_file_paths(environment_), std::vector<fs::path>{environment_.system_file});
}

TEST_F(SettingsTest, EnvironmentOverridesFilesAndOptionOverridesEnvironment) {
  write(user_file(), "database = \"service=file\"\n");
  environment_.hetscale_db = "postgresql://env/hetscale";
  Settings s = load_settings(environment_);
  EXPECT_EQ(s.database.value, "postgresql://env/hetscale");
  EXPECT_EQ(s.database.origin.str(), "HETSCALE_DB");
  s.database.override_by_option("", "--db");  // not given
  EXPECT_EQ(s.database.origin.str(), "HETSCALE_DB");
  s.database.override_by_option("postgresql://option/hetscale", "--db");
  EXPECT_EQ(s.database.value, "postgresql://option/hetscale");
  EXPECT_EQ(s.database.origin.str(), "--db");
}

TEST_F(SettingsTest, EmptyEnvironmentVariableCountsAsUnset) {
  write(user_file(), "database = \"service=file\"\n");
  environment_.hetscale_db = "";
  EXPECT_EQ(load_settings(environment_).database.value, "service=file");
}

TEST_F(SettingsTest, RelativePathsAreRelativeToTheFile) {
  write(environment_.system_file, "site = \"sites/a.toml\"\nkernel_dir = \"/opt/hetscale/bin\"\n");
  const Settings s = load_settings(environment_);
  EXPECT_EQ(s.site.value, (dir_ / "etc" / "sites" / "a.toml").string());
  EXPECT_EQ(s.kernel_dir.value, "/opt/hetscale/bin");
}

TEST_F(SettingsTest, DefaultFillsOnlyAnUnsetSetting) {
  write(environment_.system_file, "kernel_dir = \"/opt/k\"\n");
  Settings s = load_settings(environment_);
  s.kernel_dir.default_to("/usr/bin", "beside the executable");
  EXPECT_EQ(s.kernel_dir.value, "/opt/k");
  s.site.default_to("/x", "none");
  EXPECT_EQ(s.site.origin.kind, SettingOrigin::Kind::default_value);
  EXPECT_EQ(s.site.origin.str(), "default (none)");
}

TEST_F(SettingsTest, UnknownKeyIsAnErrorAtItsPlace) {
  write(user_file(), "database = \"service=x\"\n\n  partitoin = \"batch\"\n");
  try {
    (void)load_settings(environment_);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, user_file().string());
    EXPECT_EQ(e.where().line, 3u);
    EXPECT_EQ(e.where().column, 3u);
    EXPECT_THAT(e.message(), HasSubstr("unknown key 'partitoin'"));
    EXPECT_THAT(e.message(), HasSubstr("database, site or kernel_dir"));
  }
}

TEST_F(SettingsTest, WrongTypeIsAnErrorAtTheValue) {
  write(environment_.system_file, "site = 42\n");
  try {
    (void)load_settings(environment_);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, environment_.system_file.string());
    EXPECT_EQ(e.where().line, 1u);
    EXPECT_EQ(e.where().column, 8u);
    EXPECT_EQ(e.message(), "'site' must be a string, not an integer");
  }
}

TEST_F(SettingsTest, TableIsAWrongTypeToo) {
  write(environment_.system_file, "[database]\nhost = \"h\"\n");
  EXPECT_THROW((void)load_settings(environment_), ConfigError);
}

TEST_F(SettingsTest, EmptyValueIsAnError) {
  write(environment_.system_file, "database = \"\"\n");
  try {
    (void)load_settings(environment_);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.message(), "'database' must not be empty");
    EXPECT_EQ(e.where().line, 1u);
  }
}

TEST_F(SettingsTest, SyntaxErrorNamesFileAndLine) {
  write(user_file(), "database = \"service=x\"\nsite = \n");
  try {
    (void)load_settings(environment_);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, user_file().string());
    EXPECT_EQ(e.where().line, 2u);
    EXPECT_THAT(e.message(), HasSubstr("syntax error"));
  }
}

TEST_F(SettingsTest, MissingMessageNamesOptionVariableAndFiles) {
  const Settings s = load_settings(environment_);
  const std::string message = missing_setting_message(s, "database");
  EXPECT_THAT(message, HasSubstr("--db"));
  EXPECT_THAT(message, HasSubstr("HETSCALE_DB"));
  EXPECT_THAT(message, HasSubstr(environment_.system_file.string()));
  EXPECT_THAT(message, HasSubstr(user_file().string()));
  const std::string site = missing_setting_message(s, "site");
  EXPECT_THAT(site, HasSubstr("--site"));
  EXPECT_THAT(site, ::testing::Not(HasSubstr("HETSCALE_DB")));
}

}  // namespace
}  // namespace hetscale
