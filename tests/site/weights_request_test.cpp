#include "hetscale/site/weights_request.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

TEST(WeightsRequest, Keywords) {
  EXPECT_EQ(parse_weights_request("off").kind, WeightsRequest::Kind::off);
  EXPECT_EQ(parse_weights_request("marked").kind, WeightsRequest::Kind::marked);
  EXPECT_EQ(parse_weights_request("equalized").kind, WeightsRequest::Kind::equalized);
  EXPECT_FALSE(parse_weights_request("off").wants_weights());
  EXPECT_TRUE(parse_weights_request("marked").wants_weights());
}

TEST(WeightsRequest, FileNeedsASlash) {
  WeightsRequest request = parse_weights_request("./part.toml");
  EXPECT_EQ(request.kind, WeightsRequest::Kind::file);
  EXPECT_EQ(request.file, "./part.toml");
  EXPECT_EQ(to_option_value(request), "./part.toml");
  EXPECT_EQ(to_option_value(parse_weights_request("marked")), "marked");
}

TEST(WeightsRequest, BadValueMessage) {
  const char* expected =
      "hetscale: option: bad value 'markd' for --hetscale-weights (off, marked, equalized or a "
      "partition file path containing '/', e.g. ./part.toml)";
  try {
    parse_weights_request("markd");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), expected);
  }
  EXPECT_THROW(parse_weights_request(""), Error);
}

}  // namespace
}  // namespace hetscale
