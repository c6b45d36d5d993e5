// Numbers as text: the one reading of a whole text as a finite number, and numbers written
// for messages.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace hetscale {

/// The whole text as one finite number (no blanks, no trailing characters, no inf or
/// nan); nullopt otherwise.
[[nodiscard]] std::optional<double> finite_number(std::string_view text);

/// finite_number, or Error "<what>: '<text>' is not a number".
[[nodiscard]] double parse_number(std::string_view text, std::string_view what);

/// How interval_text writes a number: at 4 significant digits unless told otherwise.
using NumberText = std::function<std::string(double)>;

/// A figure with its interval, for people: the one text of every text table, the study's
/// psi.txt and the report (which passes its own `number`). The figure (then `unit`, when
/// given) and its bounds, "0.7352 [0.6104, 0.8617]"; a bound that is absent (open: beyond
/// what was measured) reads "open", "1200 [open, 1530]", and both absent "[open, open]";
/// without bounds but with a `reason` (the short reason there is no interval) the figure
/// and the reason, "0.7352 (too few runs)".
[[nodiscard]] std::string interval_text(double value, const std::optional<double>& low,
                                        const std::optional<double>& high,
                                        std::string_view reason, const NumberText& number = {},
                                        std::string_view unit = {});

}  // namespace hetscale

namespace hetscale::detail {

/// Shortest text that reads back as the same double ("0.1", "-890", "nan").
std::string shortest_text(double value);

/// Rounded to `digits` significant digits for people ("500.2", "1.28e+04").
std::string rounded_text(double value, int digits = 4);

}  // namespace hetscale::detail
