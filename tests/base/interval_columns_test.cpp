#include "hetscale/base/interval_columns.hpp"

#include <gtest/gtest.h>

namespace hetscale {
namespace {

TEST(IntervalColumns, OneCellInTextTablesFourInJsonAndCsv) {
  std::vector<std::string> columns;
  add_interval_columns(columns, "psi", TableFormat::table);
  EXPECT_EQ(columns, std::vector<std::string>{"psi"});
  columns.clear();
  add_interval_columns(columns, "psi", TableFormat::csv);
  EXPECT_EQ(columns, (std::vector<std::string>{"psi", "psi_low", "psi_high", "psi_interval_note"}));
  std::vector<Cell> row;
  add_interval_cells(row, 0.73518, 0.61042, 0.86171, "", "", TableFormat::table);
  add_interval_cells(row, 1234.4, std::nullopt, std::nullopt, "too few runs",
                     "too few runs: 1 at 800", TableFormat::table);
  add_interval_cells(row, 2.5, std::nullopt, std::nullopt, "", "", TableFormat::table);
  add_interval_cells(row, 7.0, std::nullopt, std::nullopt, "",
                     "lower bound open: 9 of 9; upper bound open: 0 of 9", TableFormat::table);
  add_interval_cells(row, std::nullopt, std::nullopt, std::nullopt, "x", "x: y",
                     TableFormat::table);
  EXPECT_EQ(row, (std::vector<Cell>{std::string("0.7352 [0.6104, 0.8617]"),
                                    std::string("1234 (too few runs)"), 2.5,
                                    std::string("7 [open, open]"), std::monostate{}}));
  row.clear();
  add_interval_cells(row, 1.5, 1.0, std::nullopt, "", "upper bound open: 3 of 9",
                     TableFormat::json);
  EXPECT_EQ(row, (std::vector<Cell>{1.5, 1.0, std::monostate{},
                                    std::string("upper bound open: 3 of 9")}));
}

}  // namespace
}  // namespace hetscale
