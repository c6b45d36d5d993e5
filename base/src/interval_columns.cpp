#include "hetscale/base/interval_columns.hpp"

#include "hetscale/base/number_text.hpp"

namespace hetscale {

void add_interval_columns(std::vector<std::string>& columns, const std::string& name,
                          TableFormat format) {
  columns.push_back(name);
  if (format == TableFormat::table) return;
  for (const char* suffix : {"_low", "_high", "_interval_note"}) columns.push_back(name + suffix);
}

void add_interval_cells(std::vector<Cell>& row, const std::optional<double>& value,
                        const std::optional<double>& low, const std::optional<double>& high,
                        const std::string& reason, const std::string& note, TableFormat format) {
  const auto optional_cell = [](const std::optional<double>& v) {
    return v ? Cell(*v) : Cell(std::monostate{});
  };
  if (format == TableFormat::table) {
    if (!value)
      row.emplace_back(std::monostate{});
    else if (!low && !high && reason.empty() && note.empty())  // no interval asked for
      row.emplace_back(*value);
    else
      row.emplace_back(interval_text(*value, low, high, reason));
    return;
  }
  row.push_back(optional_cell(value));
  row.push_back(optional_cell(low));
  row.push_back(optional_cell(high));
  if (note.empty())
    row.emplace_back(std::monostate{});
  else
    row.emplace_back(note);
}

}  // namespace hetscale
