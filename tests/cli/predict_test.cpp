// hetscale predict's argument checks, found before any database is opened (the forecast
// itself is tested against PostgreSQL in tests/integration/predict).
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace hetscale::cli::testing {
namespace {

Result predict(const std::vector<std::string>& extra) {
  std::vector<std::string> args{"predict", "--db", "postgresql://unused", "--experiment", "e"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

TEST(Predict, TargetMustBeAnEfficiency) {
  for (const char* target : {"0", "1.5", "-0.2"}) {
    const auto r = predict({"--target", target});
    EXPECT_EQ(r.code, 2) << target;
    EXPECT_EQ(r.err, "hetscale predict: --target must be in (0, 1] (see --help)\n");
  }
}

TEST(Predict, BadWhatIfSpecsNameTheSpec) {
  const auto r = predict({"--target", "0.5", "--what-if", "group:100:4", "--what-if", "add:two:x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hetscale predict: --what-if 'add:two:x': 'two' is not a positive node count "
            "(expected add:K:GROUP or group:SPEED:K, K a positive whole number of nodes, SPEED a "
            "positive marked speed) (see --help)\n");
}

TEST(Predict, MalformedFitSetsAreUsageErrors) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "the list is empty"},           {"0,,1", "an empty item"},
      {"0,", "an empty item"},             {",1", "an empty item"},
      {"a", "'a' is not a set index"},     {"-1", "'-1' is not a set index"},
      {"1.5", "'1.5' is not a set index"}, {"0 1", "'0 1' is not a set index"}};
  for (const auto& [list, why] : cases) {
    const auto r = predict({"--target", "0.5", "--fit-sets", list});
    EXPECT_EQ(r.code, 2) << list;
    EXPECT_EQ(r.err, "hetscale predict: --fit-sets '" + list + "': " + why +
                         " (expected comma-separated machine set indices, e.g. 0,1) (see --help)\n");
  }
}

TEST(Predict, SiteFileMustExist) {
  const auto r = predict({"--target", "0.5", "--site", "/nonexistent/site.toml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--site"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hetscale::cli::testing
