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

TEST(BinaryCopyBuffer, WritesFieldsInNetworkByteOrder) {
  BinaryCopyBuffer b;
  b.start_row(4);
  b.int4(-2);
  b.int8(258);
  b.float8(1.0);
  b.text("n1");
  using namespace std::string_literals;
  EXPECT_EQ(b.data(),
            "\x00\x04"s                                          // fields
            "\x00\x00\x00\x04\xff\xff\xff\xfe"s                  // int4 -2
            "\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x01\x02"s  // int8 258
            "\x00\x00\x00\x08\x3f\xf0\x00\x00\x00\x00\x00\x00"s  // float8 1.0
            "\x00\x00\x00\x02n1"s);                              // text
}

TEST(BinaryCopyBuffer, HeaderAndTrailerAreTheFormatsOwn) {
  using namespace std::string_literals;
  EXPECT_EQ(BinaryCopyBuffer::header(), "PGCOPY\n\xff\r\n\0"s + std::string(8, '\0'));
  EXPECT_EQ(BinaryCopyBuffer::trailer(), "\xff\xff"s);
}

}  // namespace
}  // namespace hetscale::pg
