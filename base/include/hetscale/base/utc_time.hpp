// The current time as the project writes it in plans, node records, study states and
// invocations: UTC, whole seconds, ISO 8601 ("2026-11-24T08:52:21Z").
#pragma once

#include <string>

namespace hetscale {

/// Now, as "YYYY-MM-DDTHH:MM:SSZ".
[[nodiscard]] std::string utc_time_now();

}  // namespace hetscale
