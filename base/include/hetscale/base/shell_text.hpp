// Text pasted into generated shell and sbatch scripts (jobgen's set scripts, the study's
// controller.sbatch): the one shell quoting and the one way a value stays on its comment
// line.
#pragma once

#include <string>
#include <string_view>

namespace hetscale {

/// `text` as one shell word: unchanged when it holds only letters, digits and
/// `._/+:=@,-` (and is not empty), else in single quotes with each `'` written `'\''`.
/// Any byte, a line break included, survives the round trip through the shell.
[[nodiscard]] std::string shell_quote(std::string_view text);

/// `text` for a `#` comment line: unchanged unless it holds a line break or another
/// control character, each of which is written as a C escape (`\n`, `\r`, `\t`, `\x07`),
/// a backslash then as `\\`; the comment stays one line whatever the value.
[[nodiscard]] std::string comment_text(std::string_view text);

}  // namespace hetscale
