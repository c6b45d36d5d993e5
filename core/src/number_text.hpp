// Numbers in messages. Internal to hetscale_core (not installed).
#pragma once

#include <string>

namespace hetscale::detail {

/// Shortest text that reads back as the same double ("0.1", "-890", "nan").
std::string shortest_text(double value);

/// Rounded to `digits` significant digits for people ("500.2", "1.28e+04").
std::string rounded_text(double value, int digits = 4);

}  // namespace hetscale::detail
