#include "common/kernel_weights.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale {
namespace {

std::string message_of(std::string_view text, std::size_t ranks) {
  try {
    (void)parse_kernel_weights(text, ranks);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(KernelWeights, Equal) {
  EXPECT_EQ(parse_kernel_weights("equal", 4), (std::vector<double>{0.25, 0.25, 0.25, 0.25}));
}

TEST(KernelWeights, ListIsNormalised) {
  const auto w = parse_kernel_weights("1.0,0.5", 2);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_DOUBLE_EQ(w[0], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(w[1], 1.0 / 3.0);
  EXPECT_EQ(parse_kernel_weights("3", 1), std::vector<double>{1.0});
}

TEST(KernelWeights, Errors) {
  EXPECT_EQ(message_of("1,2,3", 2), "--weights: 3 weights given for 2 ranks; give one per rank or 'equal'");
  EXPECT_EQ(message_of("1,0", 2), "--weights: weight 2 is '0'; every weight must be positive");
  EXPECT_EQ(message_of("1,-2", 2), "--weights: weight 2 is '-2'; every weight must be positive");
  EXPECT_EQ(message_of("1,abc", 2), "--weights: 'abc' is not a number");
  EXPECT_EQ(message_of("1,", 2), "--weights: '' is not a number");
  EXPECT_EQ(message_of("1,2x", 2), "--weights: '2x' is not a number");
  EXPECT_EQ(message_of("nan,1", 2), "--weights: 'nan' is not a number");
  EXPECT_EQ(message_of("", 1), "--weights: '' is not a number");
}

TEST(ParseNumber, WholeTextOnly) {
  EXPECT_DOUBLE_EQ(parse_number("0.25", "HETSCALE_WEIGHT"), 0.25);
  EXPECT_DOUBLE_EQ(parse_number("1e3", "x"), 1000.0);
  EXPECT_THROW((void)parse_number(" 1", "x"), Error);
  EXPECT_THROW((void)parse_number("inf", "x"), Error);
}

}  // namespace
}  // namespace hetscale
