// A figure with its interval as a table (text_table.hpp) shows it: one cell in text
// tables, the figure, its bounds and its note in columns of their own in JSON and CSV.
// `hetscale analyze` and `hetscale predict` print their figures so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetscale/base/text_table.hpp"

namespace hetscale {

/// In `table` format one column NAME whose cell is interval_text ("0.7352 [0.6104,
/// 0.8617]", or the figure and `reason`, the short reason it has none: "1234 (too few
/// runs)"); in JSON and CSV the columns NAME, NAME_low, NAME_high and NAME_interval_note
/// (`note`, the reason or an open bound in full). A figure that is absent gives empty
/// cells; one with neither bounds nor a reason nor a note, its bare figure.
void add_interval_columns(std::vector<std::string>& columns, const std::string& name,
                          TableFormat format);
void add_interval_cells(std::vector<Cell>& row, const std::optional<double>& value,
                        const std::optional<double>& low, const std::optional<double>& high,
                        const std::string& reason, const std::string& note, TableFormat format);

}  // namespace hetscale
