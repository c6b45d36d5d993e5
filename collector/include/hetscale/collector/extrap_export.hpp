// An experiment's measurements in Extra-P's JSON Lines input format (one run per line:
// {"callpath", "metric", "params", "value"}): per machine set over the problem parameter,
// and, where the sets measured the same sizes, over the processor count p and the
// problem parameter together. Layouts and file names: docs/collector.md.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

/// The name of the processor-count parameter in the two-parameter lines.
inline constexpr const char* extrap_processors_parameter = "p";

/// Extra-P models a parameter from at least this many values of it.
inline constexpr std::size_t extrap_min_values = 5;

struct ExtrapSetFile {
  int set_index = 0;
  std::string lines;  // params {<parameter>}, callpath "<code>.set<k>"
  std::size_t runs = 0;
};

struct ExtrapExport {
  std::vector<ExtrapSetFile> sets;  // one per machine set with runs, ascending
  // params {p, <parameter>}, callpath "<code>": the runs at the sizes every set measured.
  // Empty (grid_runs 0) when the runs form no such grid; grid_refusal then says why.
  std::string grid;
  std::size_t grid_runs = 0;
  std::string grid_refusal;
};

/// Reads the runs of `experiment` (each ordered by set, parameter, repetition, run id).
/// Throws Error for an unknown experiment, one without a parameter, or one whose
/// parameter is itself named "p".
ExtrapExport export_extrap(pg::Connection& conn, const std::string& experiment);

/// Where set `set_index`'s file goes beside `file`: "x.jsonl" -> "x.set2.jsonl".
std::filesystem::path extrap_set_path(const std::filesystem::path& file, int set_index);

}  // namespace hetscale::collector
