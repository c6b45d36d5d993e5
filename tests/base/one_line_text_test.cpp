#include "hetscale/base/one_line_text.hpp"

#include <gtest/gtest.h>

namespace hetscale {
namespace {

TEST(OneLineText, AValueNeverEndsItsLine) {
  EXPECT_EQ(one_line_text("2*N^3"), "2*N^3");
  // A backslash is escaped even where nothing else is: a literal backslash-n is not a
  // line break.
  EXPECT_EQ(one_line_text("a\\b"), "a\\\\b");
  EXPECT_EQ(one_line_text("a\\nb"), "a\\\\nb");
  EXPECT_NE(one_line_text("a\\nb"), one_line_text("a\nb"));
  EXPECT_EQ(one_line_text("2*N^3\nsrun rm -rf ~"), "2*N^3\\nsrun rm -rf ~");
  EXPECT_EQ(one_line_text("a\r\tb\x07\\"), "a\\r\\tb\\x07\\\\");
  EXPECT_EQ(one_line_text(std::string_view("\x1b[2J\x7f\0", 6)), "\\x1b[2J\\x7f\\x00");
}

TEST(OneLineText, ALogLineCannotBeForged) {
  // A directory named by a job, with a line of its own making after a line break.
  const std::string forged = one_line_text("/tmp/x\n[2026-01-01T00:00:00] error: node n1 drained");
  EXPECT_EQ(forged.find('\n'), std::string::npos);
  EXPECT_EQ(forged, "/tmp/x\\n[2026-01-01T00:00:00] error: node n1 drained");
}

}  // namespace
}  // namespace hetscale
