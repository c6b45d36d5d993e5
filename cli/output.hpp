// Tabular output shared by every subcommand: a human table, JSON (stable keys) or CSV.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace hetscale::cli {

enum class Format { table, json, csv };

/// A cell: empty (null), text, real or integer.
using Cell = std::variant<std::monostate, std::string, double, std::int64_t>;

struct Table {
  std::vector<std::string> columns;  // also the JSON keys and CSV header: keep them stable
  std::vector<std::vector<Cell>> rows;
};

/// Adds `--format table|json|csv` to a subcommand.
void add_format_option(CLI::App& command, Format& format);

/// JSON form of a table: an array with one object per row, keyed by column.
nlohmann::json to_json(const Table& table);

/// Prints in the chosen format. Reals: 6 significant digits in tables, full precision
/// (round-trip) in JSON and CSV.
void print(std::ostream& out, const Table& table, Format format);

}  // namespace hetscale::cli
