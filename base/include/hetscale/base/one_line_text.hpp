// A value written into a line of text that must stay one line whatever the value holds: a
// comment line of a generated script, a line of slurmd's log. The one way such a value is
// escaped.
#pragma once

#include <string>
#include <string_view>

namespace hetscale {

/// `text` unchanged unless it holds a line break or another control character (bytes below
/// 0x20 and 0x7f), each of which is then written as a C escape (`\n`, `\r`, `\t`, `\x07`),
/// a backslash as `\\`: the line stays one line, and a reader tells an escape from text.
[[nodiscard]] std::string one_line_text(std::string_view text);

}  // namespace hetscale
