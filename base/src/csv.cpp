#include "hetscale/base/csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "hetscale/base/error.hpp"
#include "hetscale/base/text_file.hpp"

namespace hetscale {
namespace {

struct Row {
  std::vector<std::string> cells;
  std::vector<std::uint32_t> columns;
};

Row split_row(std::string_view line, const std::string& source, std::uint32_t line_number) {
  Row row;
  std::size_t i = 0;
  for (;;) {
    row.columns.push_back(static_cast<std::uint32_t>(i + 1));
    std::string cell;
    if (i < line.size() && line[i] == '"') {
      const std::size_t open = i++;
      for (;; ++i) {
        if (i >= line.size())
          throw ConfigError({source, line_number, static_cast<std::uint32_t>(open + 1)},
                            "unterminated quote");
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell += '"';
            ++i;
          } else {
            ++i;
            break;
          }
        } else {
          cell += line[i];
        }
      }
      if (i < line.size() && line[i] != ',')
        throw ConfigError({source, line_number, static_cast<std::uint32_t>(i + 1)},
                          "unexpected character after a quoted field");
    } else {
      const std::size_t end = std::min(line.find(',', i), line.size());
      cell = std::string(line.substr(i, end - i));
      while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t')) cell.pop_back();
      const std::size_t lead = cell.find_first_not_of(" \t");
      row.columns.back() += static_cast<std::uint32_t>(lead == std::string::npos ? 0 : lead);
      cell = lead == std::string::npos ? std::string() : cell.substr(lead);
      i = end;
    }
    row.cells.push_back(std::move(cell));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return row;
}

bool blank_or_comment(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || line[first] == '#';
}

}  // namespace

CsvTable CsvTable::parse(std::string_view text, const std::string& source) {
  CsvTable table;
  table.source_ = source;
  std::uint32_t line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_number;
    start = end + 1;
    if (blank_or_comment(line)) continue;
    auto row = split_row(line, source, line_number);
    if (table.header_.empty()) {
      table.header_ = std::move(row.cells);
      table.header_columns_ = std::move(row.columns);
      table.header_line_ = line_number;
      for (std::size_t c = 0; c < table.header_.size(); ++c)
        for (std::size_t d = 0; d < c; ++d)
          if (table.header_[c] == table.header_[d])
            throw ConfigError({source, line_number, table.header_columns_[c]},
                              "column '" + table.header_[c] + "' appears twice");
      continue;
    }
    if (row.cells.size() != table.header_.size())
      throw ConfigError({source, line_number, 1}, "expected " +
                                                      std::to_string(table.header_.size()) +
                                                      " fields (as in the header), found " +
                                                      std::to_string(row.cells.size()));
    table.cells_.push_back(std::move(row.cells));
    table.columns_.push_back(std::move(row.columns));
    table.lines_.push_back(line_number);
  }
  if (table.header_.empty()) throw ConfigError({source, 0, 0}, "no header row");
  return table;
}

CsvTable CsvTable::load(const std::filesystem::path& path) {
  return parse(read_text_file(path, "file"), path.string());
}

bool CsvTable::has_column(std::string_view name) const {
  return std::find(header_.begin(), header_.end(), name) != header_.end();
}

std::size_t CsvTable::column_index(std::string_view name) const {
  const auto it = std::find(header_.begin(), header_.end(), name);
  if (it == header_.end())
    throw ConfigError({source_, header_line_, 1}, "missing column '" + std::string(name) + "'");
  return static_cast<std::size_t>(it - header_.begin());
}

const std::string& CsvTable::text(std::size_t row, std::string_view column) const {
  return cells_.at(row)[column_index(column)];
}

SourceLocation CsvTable::where(std::size_t row, std::string_view column) const {
  return {source_, lines_.at(row), columns_.at(row)[column_index(column)]};
}

double CsvTable::number(std::size_t row, std::string_view column) const {
  const auto& cell = text(row, column);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size() ||
      !std::isfinite(value))
    throw ConfigError(where(row, column),
                      "column '" + std::string(column) + "': '" + cell + "' is not a number");
  return value;
}

void CsvTable::allow_only(const std::vector<std::string>& columns) const {
  for (std::size_t c = 0; c < header_.size(); ++c)
    if (std::find(columns.begin(), columns.end(), header_[c]) == columns.end()) {
      std::string known;
      for (const auto& name : columns) known += (known.empty() ? "" : ", ") + name;
      throw ConfigError({source_, header_line_, header_columns_[c]},
                        "unknown column '" + header_[c] + "' (known: " + known + ")");
    }
}

}  // namespace hetscale
