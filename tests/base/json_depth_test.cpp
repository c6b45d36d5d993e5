#include "hetscale/base/json_depth.hpp"

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

}  // namespace
}  // namespace hetscale
