// Reading JSON Lines files of run records (docs/run-record.md), with the file and line of
// every invalid record: the collector loads nothing of a bad batch, or sets bad lines
// aside when asked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/site/run_record.hpp"

namespace hetscale {

/// A valid record and the line it came from (1-based).
struct NumberedRunRecord {
  std::uint32_t line = 0;
  RunRecord record;
};

/// An invalid line, kept so that it can be written to a rejects file unchanged.
struct RejectedLine {
  SourceLocation where;  // file and line (column for JSON syntax errors)
  std::string message;   // e.g. "field 'wall_seconds' must be a positive number"
  std::string text;      // the line as read, without its newline
};

enum class OnInvalid {
  fail,  // throw ConfigError at the first invalid line
  skip   // collect it in RunRecordFile::rejected and go on
};

struct RunRecordFile {
  std::vector<NumberedRunRecord> records;
  std::vector<RejectedLine> rejected;
  /// The line number of an unterminated last line (no '\n' after it: a writer still
  /// writing, or a short write), which is neither read nor rejected: a later read takes
  /// it once it is complete. 0 when the file ends with a complete line.
  std::uint32_t held_back_line = 0;
};

/// Parses one line; throws ConfigError "<source>:<line>[:<col>]: <message>".
RunRecord parse_run_record_line(std::string_view text, const std::string& source_name,
                                std::uint32_t line);

/// Reads every non-blank line that ends with '\n'; a non-blank unterminated last line is
/// held back (RunRecordFile::held_back_line). With OnInvalid::fail the first invalid line
/// throws ConfigError naming source_name and the line.
RunRecordFile read_run_records(std::istream& in, const std::string& source_name,
                               OnInvalid on_invalid);
/// Same, from a file; an unreadable file throws ConfigError "<path>: cannot read".
RunRecordFile read_run_records(const std::filesystem::path& file, OnInvalid on_invalid);

}  // namespace hetscale
