// replace_invalid_utf8: every byte outside a well-formed UTF-8 sequence becomes U+FFFD and
// is counted; well-formed text passes unchanged, and is not copied.
#include "hetscale/base/utf8_text.hpp"

#include <gtest/gtest.h>

namespace hetscale {
namespace {

constexpr std::string_view fffd = "\xEF\xBF\xBD";

std::string replaced(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

TEST(ReplaceInvalidUtf8, WellFormedTextIsUnchanged) {
  for (std::string_view text : {std::string_view(""), std::string_view("plain ascii"),
                                std::string_view("r\xC3\xA9sum\xC3\xA9"),       // 2 bytes
                                std::string_view("\xE2\x82\xAC 20"),            // 3 bytes
                                std::string_view("\xF0\x9F\x98\x80"),           // 4 bytes
                                std::string_view("\xF4\x8F\xBF\xBF"),           // U+10FFFF
                                std::string_view("\xEF\xBF\xBD")}) {            // U+FFFD itself
    const Utf8Repair r = replace_invalid_utf8(text);
    EXPECT_FALSE(r.repaired.has_value());  // not copied
    EXPECT_EQ(r.text(text).data(), text.data());
    EXPECT_EQ(r.replaced_bytes, 0U);
  }
}

TEST(ReplaceInvalidUtf8, EachBadByteBecomesOneReplacementCharacter) {
  Utf8Repair r = replace_invalid_utf8("bad\xFFname");
  EXPECT_EQ(r.text("bad\xFFname"), replaced({"bad", fffd, "name"}));
  EXPECT_EQ(r.replaced_bytes, 1U);
  r = replace_invalid_utf8("r\xE9sum\xE9");  // Latin-1
  EXPECT_EQ(r.repaired, replaced({"r", fffd, "sum", fffd}));
  EXPECT_EQ(r.replaced_bytes, 2U);
}

TEST(ReplaceInvalidUtf8, FormsTable3_7RefusesAreReplaced) {
  struct Case {
    std::string_view input;
    std::size_t bytes;
  };
  for (const Case c : {Case{"\xC0\xAF", 2},              // overlong '/'
                       Case{"\xE0\x80\xAF", 3},          // overlong, 3 bytes
                       Case{"\xF0\x80\x80\xAF", 4},      // overlong, 4 bytes
                       Case{"\xED\xA0\x80", 3},          // a surrogate, U+D800
                       Case{"\xF4\x90\x80\x80", 4},      // above U+10FFFF
                       Case{"\xF5\x80\x80\x80", 4},      // no such lead byte
                       Case{"\x80", 1},                  // a continuation alone
                       Case{"\xE2\x82", 2}}) {           // cut short at the end
    SCOPED_TRACE(testing::PrintToString(std::string(c.input)));
    const Utf8Repair r = replace_invalid_utf8(c.input);
    EXPECT_EQ(r.replaced_bytes, c.bytes);
    std::string expected;
    for (std::size_t i = 0; i < c.bytes; ++i) expected += fffd;
    EXPECT_EQ(r.repaired, expected);
  }
  // A sequence cut short before a good character keeps the good one.
  const Utf8Repair r = replace_invalid_utf8("\xE2\x82" "a\xC3\xA9");
  EXPECT_EQ(r.repaired, replaced({fffd, fffd, "a\xC3\xA9"}));
  EXPECT_EQ(r.replaced_bytes, 2U);
}

}  // namespace
}  // namespace hetscale
