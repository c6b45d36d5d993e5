// A small CSV reader for per-node input files (equalize, simulate): a header row, then
// one row per record; '#' starts a comment line. Errors name file:line:col.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {

class CsvTable {
 public:
  /// Parses `text`; `source` names it in errors. Quoted fields ("a,b", "say ""hi""") work.
  static CsvTable parse(std::string_view text, const std::string& source);
  static CsvTable load(const std::filesystem::path& path);

  [[nodiscard]] std::size_t rows() const { return cells_.size(); }
  [[nodiscard]] bool has_column(std::string_view name) const;
  /// Throws ConfigError at the header when the column is missing.
  [[nodiscard]] const std::string& text(std::size_t row, std::string_view column) const;
  /// A finite number, or a ConfigError naming the cell.
  [[nodiscard]] double number(std::size_t row, std::string_view column) const;
  /// Rejects columns other than these (a typo must not be ignored silently).
  void allow_only(const std::vector<std::string>& columns) const;
  [[nodiscard]] SourceLocation where(std::size_t row, std::string_view column) const;

 private:
  [[nodiscard]] std::size_t column_index(std::string_view name) const;
  std::string source_;
  std::vector<std::string> header_;
  std::vector<std::uint32_t> header_columns_;
  std::uint32_t header_line_ = 0;
  std::vector<std::vector<std::string>> cells_;
  std::vector<std::uint32_t> lines_;
  std::vector<std::vector<std::uint32_t>> columns_;  // 1-based column of every cell
};

}  // namespace hetscale
