#include "hetscale/base/text_table.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace hetscale {
namespace {

Table sample() {
  return {{"node", "speed", "runs"},
          {{std::string("n1"), 2.5, std::int64_t{3}},
           {std::string("long,name \"x\""), std::monostate{}, std::int64_t{12}}}};
}

std::string printed(const Table& table, TableFormat format) {
  std::ostringstream out;
  print_table(out, table, format);
  return out.str();
}

TEST(TextTable, AlignsTextAndHeadersLeftAndNumbersRight) {
  EXPECT_EQ(printed(sample(), TableFormat::table),
            "node           speed  runs\n"
            "n1               2.5     3\n"
            "long,name \"x\"  -        12\n");
}

TEST(TextTable, CsvQuotesWhatNeedsItAndLeavesEmptyCellsEmpty) {
  EXPECT_EQ(printed(sample(), TableFormat::csv),
            "node,speed,runs\n"
            "n1,2.5,3\n"
            "\"long,name \"\"x\"\"\",,12\n");
}

TEST(TextTable, JsonKeysRowsByColumnWithNullForEmpty) {
  const auto j = table_json(sample());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["node"], "n1");
  EXPECT_DOUBLE_EQ(j[0]["speed"].get<double>(), 2.5);
  EXPECT_EQ(j[1]["runs"], 12);
  EXPECT_TRUE(j[1]["speed"].is_null());
  EXPECT_EQ(printed(sample(), TableFormat::json), j.dump(2) + "\n");
}

TEST(TextTable, RealsKeepSixDigitsInTablesAndRoundTripInCsv) {
  const Table t{{"x"}, {{1.0 / 3.0}}};
  EXPECT_EQ(printed(t, TableFormat::table), "x\n0.333333\n");
  EXPECT_EQ(printed(t, TableFormat::csv), "x\n0.3333333333333333\n");
}

}  // namespace
}  // namespace hetscale
