// A value written into a line of text that must stay one line whatever the value holds: a
// comment line of a generated script, a line of slurmd's log. The one way such a value is
// escaped.
#pragma once

#include <string>
#include <string_view>

namespace hetscale {

/// `text` with every line break and other control character (bytes below 0x20 and 0x7f)
/// written as a C escape (`\n`, `\r`, `\t`, `\x07`) and every backslash as `\\`, so
/// that the line stays one line and a reader tells an escape from text (a literal `\n`
/// comes out as `\\n`); unchanged when it holds neither.
[[nodiscard]] std::string one_line_text(std::string_view text);

}  // namespace hetscale
