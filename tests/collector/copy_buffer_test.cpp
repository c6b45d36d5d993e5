#include "hetscale/collector/copy_buffer.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace hetscale::pg {
namespace {

TEST(CopyBuffer, EscapesTextAndSeparatesColumns) {
  CopyBuffer b;
  b.text("a\tb\\c\nd\re");
  b.null();
  b.integer(-42);
  b.end_row();
  b.number(0.1);
  b.end_row();
  EXPECT_EQ(b.data(), "a\\tb\\\\c\\nd\\re\t\\N\t-42\n0.1\n");
}

TEST(CopyBuffer, NumbersReadBackExactly) {
  CopyBuffer b;
  b.number(1.0 / 3);
  b.number(1e300);
  b.number(std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(b.data(), "0.3333333333333333\t1e+300\t5e-324");
}

TEST(CopyBuffer, ATextThatLooksLikeNullIsEscaped) {
  CopyBuffer b;
  b.text("\\N");
  EXPECT_EQ(b.data(), "\\\\N");
}

}  // namespace
}  // namespace hetscale::pg
