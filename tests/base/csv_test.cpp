#include "hetscale/base/csv.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace hetscale {
namespace {

std::string message(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Csv, ReadsHeaderRowsCommentsAndQuotes) {
  const auto t = CsvTable::parse("# computers\nname, speed\n\"n,1\", 2.5\n\nn2,3\n", "c.csv");
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.text(0, "name"), "n,1");
  EXPECT_DOUBLE_EQ(t.number(0, "speed"), 2.5);
  EXPECT_DOUBLE_EQ(t.number(1, "speed"), 3);
  EXPECT_TRUE(t.has_column("speed"));
  EXPECT_FALSE(t.has_column("work"));
  EXPECT_EQ(t.where(1, "speed").str(), "c.csv:5:4");
}

TEST(Csv, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(message([] { (void)CsvTable::parse("a,b\n1,x\n", "c.csv").number(0, "b"); }),
            "c.csv:2:3: column 'b': 'x' is not a number");
  EXPECT_EQ(message([] { CsvTable::parse("a,b\n1\n", "c.csv"); }),
            "c.csv:2:1: expected 2 fields (as in the header), found 1");
  EXPECT_EQ(message([] { (void)CsvTable::parse("a,b\n1,2\n", "c.csv").text(0, "c"); }),
            "c.csv:1:1: missing column 'c'");
  EXPECT_EQ(message([] { CsvTable::parse("a,a\n", "c.csv"); }),
            "c.csv:1:3: column 'a' appears twice");
  EXPECT_EQ(message([] { CsvTable::parse("a\n\"x\n", "c.csv"); }), "c.csv:2:1: unterminated quote");
  EXPECT_EQ(message([] { CsvTable::parse("# only a comment\n", "c.csv"); }),
            "c.csv: no header row");
  EXPECT_EQ(message([] {
              CsvTable::parse("a,spede\n", "c.csv").allow_only({"a", "speed"});
            }),
            "c.csv:1:3: unknown column 'spede' (known: a, speed)");
  EXPECT_EQ(message([] { CsvTable::load("/nonexistent/x.csv"); }),
            "/nonexistent/x.csv: cannot read the file");
}

}  // namespace
}  // namespace hetscale
