// How deep a JSON text nests, measured before any parser sees it: a recursive parser (or
// a recursive dump in an error message) would exhaust the stack on a text such as
// `{"schema":` followed by 100,000 `[`. Every reader of JSON that hetscale did not write
// itself refuses a text nested deeper than kMaxJsonNesting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hetscale {

/// Deeper than any JSON hetscale reads (sacct's is about 8 levels, run records 4).
inline constexpr std::size_t kMaxJsonNesting = 64;

/// The byte offset of the first `[` or `{` (outside strings) that opens level `limit` + 1,
/// or nothing when the text never nests deeper than `limit`. Not a validator: it only
/// counts brackets, skipping strings and their escapes.
[[nodiscard]] std::optional<std::size_t> json_nesting_beyond(std::string_view text, std::size_t limit);

/// Every JSON reader calls this before its parser sees `text`. Throws
/// ConfigError("<source>:<line>:<column>: invalid JSON: nesting deeper than 64") at the
/// bracket that opens level kMaxJsonNesting + 1; `first_line` is the line `text` starts on
/// (a JSON Lines reader passes the line's number, a whole-file reader 1).
void require_json_nesting_within_limit(std::string_view text, const std::string& source,
                                       std::uint32_t first_line = 1);

}  // namespace hetscale
