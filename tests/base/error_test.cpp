#include "hetscale/base/error.hpp"

#include <gtest/gtest.h>

namespace hetscale {
namespace {

TEST(ConfigError, NamesFileLineAndColumn) {
  ConfigError error({"site.toml", 12, 5}, "unknown key 'speed'");
  EXPECT_STREQ(error.what(), "site.toml:12:5: unknown key 'speed'");
  EXPECT_EQ(error.where().line, 12u);
  EXPECT_EQ(error.message(), "unknown key 'speed'");
}

TEST(ConfigError, OmitsUnknownParts) {
  EXPECT_STREQ(ConfigError({"site.toml", 0, 0}, "cannot read").what(), "site.toml: cannot read");
  EXPECT_STREQ(ConfigError({"", 3, 0}, "bad").what(), "<input>:3: bad");
}

TEST(ExpressionError, NamesColumn) {
  ExpressionError error(7, "unexpected ')'");
  EXPECT_STREQ(error.what(), "column 7: unexpected ')'");
  EXPECT_EQ(error.column(), 7u);
}

}  // namespace
}  // namespace hetscale
