// How deep a JSON text nests, measured before any parser sees it: a recursive parser (or
// a recursive dump in an error message) would exhaust the stack on a text such as
// `{"schema":` followed by 100,000 `[`. Every reader of JSON that hetscale did not write
// itself refuses a text nested deeper than kMaxJsonNesting.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace hetscale {

/// Deeper than any JSON hetscale reads (sacct's is about 8 levels, run records 4).
inline constexpr std::size_t kMaxJsonNesting = 64;

/// The byte offset of the first `[` or `{` (outside strings) that opens level `limit` + 1,
/// or nothing when the text never nests deeper than `limit`. Not a validator: it only
/// counts brackets, skipping strings and their escapes.
[[nodiscard]] std::optional<std::size_t> json_nesting_beyond(std::string_view text, std::size_t limit);

}  // namespace hetscale
