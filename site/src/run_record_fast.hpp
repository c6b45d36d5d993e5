// Internal: a fast reader of one run record's JSON text (simdjson), for bulk loading.
// It accepts only records that run_record_from_json accepts too, and gives the same
// RunRecord; anything it is not sure about (an error, a duplicate key, a huge number)
// it declines, and the caller falls back to the nlohmann path, whose messages name the
// field. So its answers never differ from the reference path's, only its speed does.
#pragma once

#include <optional>
#include <string_view>

#include "hetscale/site/run_record.hpp"

namespace hetscale::fast {

std::optional<RunRecord> run_record_from_text(std::string_view text);

}  // namespace hetscale::fast
