// What exactly-once means for a loaded file, checked against the database: the runs' keys
// (a checksum of all of them), and the rank rows (counts, no duplicate, no orphan, sums).
#pragma once

#include <filesystem>
#include <string>
#include <utility>

#include "hetscale/collector/pg.hpp"

namespace hetscale::test {

/// The expected state after loading `file` (every record once).
struct ExpectedLoad {
  long long runs = 0;
  long long rank_rows = 0;
  std::string keys_md5;     // md5 of the sorted hex run keys joined by ','
  long long rank_sum = 0;   // sum of the rank numbers
  std::string compute_sum;  // sum of compute_seconds, 3 decimals
};

/// From the file alone; `conn` only computes the md5 (the server's, as stored_load's).
ExpectedLoad expected_load(const std::filesystem::path& file, pg::Connection& conn);

/// The same figures from the database, in one snapshot; rank_rows counts only rows of a
/// stored run with a distinct (run, rank), so duplicates or orphans make it differ.
ExpectedLoad stored_load(pg::Connection& conn);

/// runs and rank rows counted in one statement (one snapshot).
std::pair<long long, long long> stored_counts(pg::Connection& conn);

}  // namespace hetscale::test
