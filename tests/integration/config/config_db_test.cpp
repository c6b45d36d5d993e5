// `hetscale db migrate` and `hetscale config` as a user runs them: the executable with no
// --db, the database coming from HETSCALE_DB or from a config file whose `database` is a
// libpq service (PGSERVICEFILE). Real libpq, real server; HOME and XDG_CONFIG_HOME point
// into a temporary directory, so the developer's own config is never read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/process.hpp"
#include "test_database.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string hetscale = std::string(HETSCALE_BINARY_DIR) + "/bin/hetscale";

class ConfigDb : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetscale-config-db-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "home");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // HOME, XDG_CONFIG_HOME and HETSCALE_DB of the child: nothing from the caller's.
  std::vector<std::string> environment(const std::string& hetscale_db) const {
    return {"HOME=" + (dir_ / "home").string(), "XDG_CONFIG_HOME=" + (dir_ / "xdg").string(),
            "HETSCALE_DB=" + hetscale_db, "PGSERVICEFILE=" + (dir_ / "pg_service.conf").string()};
  }
  CommandResult run(std::vector<std::string> args, const std::string& hetscale_db = "") const {
    args.insert(args.begin(), hetscale);
    return run_command(args, std::chrono::seconds(60), environment(hetscale_db));
  }
  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  fs::path dir_;
  TestDatabase db_;
};

// "postgresql://user@host:port/name" -> its parts, for a service file.
struct UriParts {
  std::string user, host, port, dbname;
};
UriParts parts_of(const std::string& uri) {
  const std::string rest = uri.substr(uri.find("://") + 3);
  const std::size_t at = rest.find('@');
  const std::size_t colon = rest.find(':', at);
  const std::size_t slash = rest.find('/', colon);
  const std::size_t query = rest.find('?', slash);
  return {rest.substr(0, at), rest.substr(at + 1, colon - at - 1), rest.substr(colon + 1, slash - colon - 1),
          rest.substr(slash + 1, query == std::string::npos ? std::string::npos : query - slash - 1)};
}

TEST_F(ConfigDb, MigrateWithOnlyHetscaleDb) {
  CommandResult r = run({"db", "migrate"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("no database: give --db, set HETSCALE_DB or set `database` in"));

  r = run({"db", "migrate"}, db_.uri());
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_THAT(r.out, StartsWith("database at schema version "));
  EXPECT_THAT(r.out, HasSubstr("(was 0; applied 1, 2,"));
  r = run({"db", "migrate"}, db_.uri());
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_THAT(r.out, HasSubstr(": nothing to apply"));
  EXPECT_EQ(db_.scalar("SELECT count(*) > 0 FROM information_schema.schemata WHERE schema_name = 'hetscale'"),
            "t");
}

TEST_F(ConfigDb, MigrateThroughAServiceNamedInTheConfigFile) {
  const UriParts p = parts_of(db_.uri());
  write(dir_ / "pg_service.conf", "[hetscale_it]\nhost=" + p.host + "\nport=" + p.port + "\ndbname=" + p.dbname +
                                      "\nuser=" + p.user + "\n");
  const fs::path config = dir_ / "xdg" / "hetscale" / "hetscale.toml";
  write(config, "# the password lives in ~/.pgpass, never here\ndatabase = \"service=hetscale_it\"\n");

  CommandResult r = run({"config", "--format", "json"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_THAT(r.out, HasSubstr("\"value\": \"service=hetscale_it\""));
  EXPECT_THAT(r.out, HasSubstr("\"origin\": \"" + config.string() + ":2:1\""));

  r = run({"db", "migrate"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_THAT(r.out, HasSubstr("(was 0; applied 1, 2,"));
  // The same database as the URI names: the schema is there.
  EXPECT_EQ(db_.scalar("SELECT count(*) > 0 FROM information_schema.schemata WHERE schema_name = 'hetscale'"),
            "t");

  // A service the file does not hold is libpq's error, not a silent fallback.
  write(config, "database = \"service=no_such_service\"\n");
  r = run({"db", "migrate"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("no_such_service"));
}

}  // namespace
}  // namespace hetscale::test
