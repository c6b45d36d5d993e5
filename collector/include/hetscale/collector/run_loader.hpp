// Loading validated run records: COPY into temporary staging tables, then one
// INSERT ... SELECT ... ON CONFLICT DO NOTHING, in one transaction per batch.
#pragma once

#include <span>
#include <string>

#include "hetscale/collector/pg.hpp"
#include "hetscale/run_record_reader.hpp"

namespace hetscale::collector {

/// What one batch changed.
struct BatchCounts {
  long long runs_added = 0;       // new rows in hetscale.runs
  long long runs_present = 0;     // records whose run was already stored (same run_key)
  long long rank_rows_added = 0;  // new rows in hetscale.rank_timings
};

/// The natural key's input: the identifying fields of a record as canonical JSON text
/// (docs/schema.md, runs.run_key = sha256 of it).
std::string run_identity(const RunRecord& record);

/// Loads one batch in one transaction: all of it or nothing. `source` is the file name
/// stored with each run (with the record's line). Throws pg::DbError.
BatchCounts load_run_batch(pg::Connection& conn, std::span<const NumberedRunRecord> records,
                           const std::string& source);

}  // namespace hetscale::collector
