#include "hetscale/base/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace hetscale {
namespace {

std::string table_text(const Cell& cell) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "-"; }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(double d) const { return fmt::format("{:.6g}", d); }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
  };
  return std::visit(Visitor{}, cell);
}

std::string csv_text(const Cell& cell) {
  struct Visitor {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(const std::string& s) const {
      if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
      std::string quoted = "\"";
      for (char c : s) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
      return quoted + '"';
    }
    std::string operator()(double d) const { return fmt::format("{}", d); }  // shortest round-trip
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
  };
  return std::visit(Visitor{}, cell);
}

nlohmann::json json_value(const Cell& cell) {
  struct Visitor {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    nlohmann::json operator()(const std::string& s) const { return s; }
    nlohmann::json operator()(double d) const { return d; }
    nlohmann::json operator()(std::int64_t i) const { return i; }
  };
  return std::visit(Visitor{}, cell);
}

bool is_number(const Cell& cell) {
  return std::holds_alternative<double>(cell) || std::holds_alternative<std::int64_t>(cell);
}

void print_aligned(std::ostream& out, const Table& table) {
  std::vector<std::size_t> width(table.columns.size());
  for (std::size_t c = 0; c < table.columns.size(); ++c) width[c] = table.columns[c].size();
  std::vector<std::vector<std::string>> text;
  for (const auto& row : table.rows) {
    auto& line = text.emplace_back();
    for (std::size_t c = 0; c < row.size(); ++c) {
      line.push_back(table_text(row[c]));
      width[c] = std::max(width[c], line.back().size());
    }
  }
  auto emit = [&](const std::vector<std::string>& cells, const std::vector<Cell>* row) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool right = row != nullptr && is_number((*row)[c]);
      if (c > 0) line += "  ";
      line += right ? fmt::format("{:>{}}", cells[c], width[c])
                    : fmt::format("{:<{}}", cells[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  emit(table.columns, nullptr);
  for (std::size_t r = 0; r < table.rows.size(); ++r) emit(text[r], &table.rows[r]);
}

}  // namespace

nlohmann::json table_json(const Table& table) {
  auto rows = nlohmann::json::array();
  for (const auto& row : table.rows) {
    auto object = nlohmann::json::object();
    for (std::size_t c = 0; c < row.size(); ++c) object[table.columns[c]] = json_value(row[c]);
    rows.push_back(std::move(object));
  }
  return rows;
}

void print_table(std::ostream& out, const Table& table, TableFormat format) {
  switch (format) {
    case TableFormat::table:
      print_aligned(out, table);
      return;
    case TableFormat::json:
      out << table_json(table).dump(2) << '\n';
      return;
    case TableFormat::csv: {
      auto line = [&](const auto& cells, auto text) {
        for (std::size_t c = 0; c < cells.size(); ++c) out << (c ? "," : "") << text(cells[c]);
        out << '\n';
      };
      line(table.columns, [](const std::string& s) { return csv_text(Cell{s}); });
      for (const auto& row : table.rows) line(row, csv_text);
      return;
    }
  }
}

}  // namespace hetscale
