#include "weights_option.hpp"

#include <gtest/gtest.h>

#include "hetscale/error.hpp"

namespace hetscale::spank {
namespace {

TEST(WeightsOption, Keywords) {
  EXPECT_EQ(parse_weights_option("off").kind, WeightsRequest::Kind::off);
  EXPECT_EQ(parse_weights_option("marked").kind, WeightsRequest::Kind::marked);
  EXPECT_EQ(parse_weights_option("equalized").kind, WeightsRequest::Kind::equalized);
  EXPECT_FALSE(parse_weights_option("off").wants_weights());
  EXPECT_TRUE(parse_weights_option("marked").wants_weights());
}

TEST(WeightsOption, FileNeedsASlash) {
  WeightsRequest request = parse_weights_option("./part.toml");
  EXPECT_EQ(request.kind, WeightsRequest::Kind::file);
  EXPECT_EQ(request.file, "./part.toml");
  EXPECT_EQ(to_option_value(request), "./part.toml");
  EXPECT_EQ(to_option_value(parse_weights_option("marked")), "marked");
}

TEST(WeightsOption, BadValueMessage) {
  const char* expected =
      "hetscale: option: bad value 'markd' for --hetscale-weights (off, marked, equalized or a "
      "partition file path containing '/', e.g. ./part.toml)";
  try {
    parse_weights_option("markd");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), expected);
  }
  EXPECT_THROW(parse_weights_option(""), Error);
}

}  // namespace
}  // namespace hetscale::spank
