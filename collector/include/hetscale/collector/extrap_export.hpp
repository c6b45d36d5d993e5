// An experiment's measurements in Extra-P's JSON Lines input format (one run per line:
// {"callpath", "metric", "params", "value"}), so that Extra-P can model the run time
// over the processor count p and the problem parameter. Mapping: docs/collector.md.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

/// The name of the processor-count parameter in the exported lines.
inline constexpr const char* extrap_processors_parameter = "p";

/// Writes one line per run of `experiment` (ordered by set, parameter, repetition, run
/// id) and returns how many. Throws Error for an unknown experiment, one without a
/// parameter, or one whose parameter is itself named "p".
std::size_t export_extrap(pg::Connection& conn, const std::string& experiment, std::ostream& out);

}  // namespace hetscale::collector
