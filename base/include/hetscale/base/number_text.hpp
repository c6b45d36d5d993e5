// Numbers as text: the one reading of a whole text as a finite number, and numbers written
// for messages.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hetscale {

/// The whole text as one finite number (no blanks, no trailing characters, no inf or
/// nan); nullopt otherwise.
[[nodiscard]] std::optional<double> finite_number(std::string_view text);

/// finite_number, or Error "<what>: '<text>' is not a number".
[[nodiscard]] double parse_number(std::string_view text, std::string_view what);

}  // namespace hetscale

namespace hetscale::detail {

/// Shortest text that reads back as the same double ("0.1", "-890", "nan").
std::string shortest_text(double value);

/// Rounded to `digits` significant digits for people ("500.2", "1.28e+04").
std::string rounded_text(double value, int digits = 4);

}  // namespace hetscale::detail
