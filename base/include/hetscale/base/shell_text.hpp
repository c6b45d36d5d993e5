// Text pasted into generated shell and sbatch scripts (jobgen's set scripts, the study's
// controller.sbatch): the one shell quoting. A value on a comment line goes through
// one_line_text (one_line_text.hpp).
#pragma once

#include <string>
#include <string_view>

namespace hetscale {

/// `text` as one shell word: unchanged when it holds only letters, digits and
/// `._/+:=@,-` (and is not empty), else in single quotes with each `'` written `'\''`.
/// Any byte, a line break included, survives the round trip through the shell.
[[nodiscard]] std::string shell_quote(std::string_view text);

}  // namespace hetscale
