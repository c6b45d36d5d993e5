// Speed units of marked speeds (the site table's `speed_unit`), converted to base units
// (operations, bytes) per second, so that E_s = W / (T C) takes W in operations, T in
// seconds and C in operations per second.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace hetscale {

struct SpeedUnit {
  std::string_view name;  // as written in a site table, case-sensitive: "Mflops"
  double scale;           // base units per second in one unit: 1e6 for "Mflops"
  bool operations;        // counts operations (flops, flop/s, op/s), not bytes (B/s...)
};

/// Every known unit, in a fixed order (used in error messages and docs).
std::span<const SpeedUnit> known_speed_units();

/// Scale of a unit name; throws Error listing the known names when it is unknown.
double speed_unit_scale(std::string_view unit);

/// A speed given in `unit`, in base units per second.
double to_base_speed(double speed, std::string_view unit);

/// flop/s in one `unit` when the unit counts operations (flops, flop/s, op/s with their
/// prefixes); nullopt for a byte rate (a STREAM-like benchmark) and for a name this file
/// does not know ("speed-factor"): such speeds need a conversion from elsewhere.
std::optional<double> flops_scale(std::string_view unit);

/// Seconds in one time unit: "s", "ms", "us", "ns", "min", "h" (case-sensitive); throws
/// Error listing the known names when it is unknown.
double time_unit_seconds(std::string_view unit);

}  // namespace hetscale
