#include "hetscale/base/json_depth.hpp"

#include "hetscale/base/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hetscale {
namespace {

TEST(JsonDepth, CountsBracketsOutsideStrings) {
  EXPECT_FALSE(json_nesting_beyond(R"({"a": [1, {"b": [2]}]})", 4).has_value());
  EXPECT_EQ(json_nesting_beyond(R"({"a": [1, {"b": [2]}]})", 3), 16U);  // the fourth level
  // Brackets inside strings, also after escaped quotes and backslashes, do not count.
  EXPECT_FALSE(json_nesting_beyond(R"({"a": "[[[[\"[[[\\", "b": "{{{{"})", 1).has_value());
  EXPECT_FALSE(json_nesting_beyond("", 0).has_value());
  EXPECT_FALSE(json_nesting_beyond("]]]]", 0).has_value());  // unbalanced closes: the parser's to refuse
}

TEST(JsonDepth, FindsTheFirstBracketPastTheLimitOfADeepText) {
  const std::string deep = R"({"schema":)" + std::string(100000, '[');
  const auto at = json_nesting_beyond(deep, kMaxJsonNesting);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(*at, 10U + kMaxJsonNesting - 1);  // '{' is level 1, so the 64th '[' is level 65
}

TEST(JsonDepth, RefusesADeepTextNamingFileLineAndColumn) {
  EXPECT_NO_THROW(require_json_nesting_within_limit(R"({"a": [[1]]})", "plan.json"));
  const std::string deep = "{\n  \"schema\": " + std::string(100000, '[');
  try {
    require_json_nesting_within_limit(deep, "plan.json", 7);
    FAIL() << "a text 100,000 levels deep passed";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, "plan.json");
    EXPECT_EQ(e.where().line, 8U);                         // the line after the '{'
    EXPECT_EQ(e.where().column, 13U + kMaxJsonNesting - 1);  // 12 characters before the first '['
    EXPECT_NE(e.message().find("nesting deeper than 64"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace hetscale
