// A table of results printed three ways: aligned text for people, JSON (an array of
// objects keyed by column) and CSV. Every command's and every stage's tabular output.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace hetscale {

enum class TableFormat { table, json, csv };

/// A cell: empty (null), text, real or integer.
using Cell = std::variant<std::monostate, std::string, double, std::int64_t>;

struct Table {
  std::vector<std::string> columns;  // also the JSON keys and CSV header: keep them stable
  std::vector<std::vector<Cell>> rows;
};

/// JSON form of a table: an array with one object per row, keyed by column.
nlohmann::json table_json(const Table& table);

/// Prints in the chosen format. Reals: 6 significant digits in tables, full precision
/// (round-trip) in JSON and CSV; an empty cell is `-` in tables, null in JSON, nothing in CSV.
void print_table(std::ostream& out, const Table& table, TableFormat format);

}  // namespace hetscale
