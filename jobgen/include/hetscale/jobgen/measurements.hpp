// The measured speed-efficiencies of a study, per machine set, read from the run records
// its array tasks wrote (DIR/records/*.jsonl). Stands in for the database query of
// `--refine` until the collector's layer is there: same records, read directly.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <vector>

#include "hetscale/efficiency_fit.hpp"
#include "hetscale/jobgen/study.hpp"

namespace hetscale::jobgen {

/// (parameter, E_s) per set index. E_s = W / (T C), with C the record's marked speed
/// (the plan's when the record has none) converted from the site's speed unit. Records
/// of other experiments are ignored. Throws Error "file:line: message" for a line that is
/// not a usable record.
std::map<std::size_t, std::vector<EfficiencyPoint>> read_measurements(const std::filesystem::path& records_dir,
                                                                      const Study& study);

}  // namespace hetscale::jobgen
