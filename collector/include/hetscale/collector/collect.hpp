// `hetscale collect`: run records (JSON Lines, *.jsonl or stdin), plan files (*.json) and
// network probes (*.commbench.json, network_probes.hpp) into the database. Everything is read and validated before anything is written, so an
// invalid record loads nothing (or, when skipping, goes to the rejects file).
#pragma once

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "hetscale/collector/session.hpp"

namespace hetscale::collector {

// One output of `sacct --json`, and where it came from (a file, or the command run).
struct SacctOutput {
  std::string source;
  std::string text;
};

struct CollectOptions {
  std::vector<std::string> inputs;   // files, directories (recursive), "-" = stdin
  std::vector<std::string> jobcomp;  // Slurm jobcomp/filetxt files (docs/collector.md)
  std::vector<SacctOutput> sacct;    // job accounting from slurmdbd (ended jobs are stored)
  std::string cluster;               // for jobcomp lines that say Cluster=unknown
  bool skip_invalid = false;         // reject bad lines instead of failing
  std::filesystem::path rejects = "hetscale-rejects.jsonl";  // appended to when skipping
  std::size_t batch_size = 5000;                             // records per transaction
  std::size_t connections = 2;  // sessions loading batches at once (1: one after the other)
  Backoff backoff;
};

struct CollectReport {
  std::size_t record_files = 0;
  std::size_t plans = 0;
  std::size_t records = 0;    // valid records read
  std::size_t rejected = 0;   // invalid lines set aside
  std::size_t held_back = 0;  // unterminated last lines, left for a later collect
  long long runs_added = 0;
  long long runs_present = 0;  // already in the database
  long long rank_rows_added = 0;
  std::size_t jobs_read = 0;  // job completion lines read, and ended jobs of sacct
  long long jobs_added = 0;   // ... not in the database before
  std::size_t replaced_bytes = 0;  // bytes of jobcomp lines and sacct outputs that were not UTF-8, read as U+FFFD
  std::size_t jobs_set_aside = 0;  // jobcomp lines that read more than one way, not stored
  std::size_t probes = 0;     // network probe files read
  long long probes_added = 0;  // ... not in the database before
};

/// Throws ConfigError for an unreadable input or (without skip_invalid) the first invalid
/// record, naming file and line; pg::DbError / Error for database failures. Retries and
/// rejected lines are reported on `log`.
CollectReport collect(const std::string& uri, const CollectOptions& options,
                      std::istream& stdin_stream, std::ostream& log);

}  // namespace hetscale::collector
