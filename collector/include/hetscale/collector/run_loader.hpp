// Loading validated run records: one transaction per batch, plain COPY into runs and
// rank_timings. The client's share (keys, COPY rows) is prepared apart from the
// transaction, so that it can run on another thread while the server loads a batch.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hetscale/collector/copy_buffer.hpp"
#include "hetscale/collector/pg.hpp"
#include "hetscale/site/run_record_reader.hpp"

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

/// A batch made ready without the database: its runs by natural key (duplicates dropped,
/// the first line wins) and their COPY rows but for the ids the transaction assigns.
/// Refers to the records it was prepared from.
struct PreparedBatch {
  struct Run {
    const RunRecord* record;
    std::string key;            // hex SHA-256 of run_identity()
    std::size_t run_rows_end;   // end of this run's row in run_rows
    std::size_t rank_rows_end;  // end of this run's rows in rank_rows
  };
  std::size_t records = 0;         // records in the batch, duplicates included
  std::vector<Run> runs;           // in key order
  std::string keys;                // JSON array of the keys
  std::string experiment_rows;     // JSON [[name, code, workload, parameter], ...]
  std::string experiment_names;    // JSON array
  pg::CopyBuffer run_rows;         // runs rows from run_key on
  pg::BinaryCopyBuffer rank_rows;  // rank_timings rows but for their last field, run_id
};

/// The client's share of loading `records`: no database, no side effects. `source` is the
/// file name stored with each run (with the record's line).
PreparedBatch prepare_run_batch(std::span<const NumberedRunRecord> records,
                                const std::string& source);

/// Loads a prepared batch in one transaction: all of it or nothing; may be called again
/// with the same batch after a failure. Throws pg::DbError.
BatchCounts load_prepared_batch(pg::Connection& conn, const PreparedBatch& batch);

/// Both steps at once. Loads one batch in one transaction: all of it or nothing. `source` is the
/// file name stored with each run (with the record's line). Throws pg::DbError.
BatchCounts load_run_batch(pg::Connection& conn, std::span<const NumberedRunRecord> records,
                           const std::string& source);

}  // namespace hetscale::collector
