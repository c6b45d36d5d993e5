// Numbers as text for people: a figure with its interval (every text table, the report).
#include "hetscale/base/number_text.hpp"

#include <gtest/gtest.h>

namespace hetscale {
namespace {

TEST(NumberText, IntervalTextShowsTheFigureAndItsBounds) {
  EXPECT_EQ(interval_text(0.73518, 0.61042, 0.86171, "too few runs"), "0.7352 [0.6104, 0.8617]");
  EXPECT_EQ(interval_text(1234.4, std::nullopt, 1530, "too few runs"), "1234 [open, 1530]");
  EXPECT_EQ(interval_text(1234.4, 1100, std::nullopt, "too few runs"), "1234 [1100, open]");
  EXPECT_EQ(interval_text(2e12, 1.8e12, 2.25e12, "x"), "2e+12 [1.8e+12, 2.25e+12]");
  EXPECT_EQ(interval_text(0.61, std::nullopt, std::nullopt, "1 run"), "0.61 (1 run)");
}

// Both bounds beyond the measured sizes (no reason: the interval exists, it is open at both
// ends) is an interval, not its absence.
TEST(NumberText, BothBoundsOpenReadOpenOpen) {
  EXPECT_EQ(interval_text(1.02, std::nullopt, std::nullopt, ""), "1.02 [open, open]");
}

// The report passes its own number format and a unit; the rule is the same.
TEST(NumberText, IntervalTextWritesNumbersAndUnitAsTold) {
  const NumberText bracketed = [](double v) { return "<" + detail::rounded_text(v, 2) + ">"; };
  EXPECT_EQ(interval_text(434312, 401000, std::nullopt, "", bracketed, "op"),
            "<4.3e+05> op [<4e+05>, open]");
  EXPECT_EQ(interval_text(0.5, std::nullopt, std::nullopt, "1 run", bracketed, "op"),
            "<0.5> op (1 run)");
}

}  // namespace
}  // namespace hetscale
