// The report as a library call: read the views, build the page, write DIR/index.html;
// `hetscale report` and the study's report stage both call write_report.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hetscale::report {

struct ReportOptions {
  std::string db;                            // libpq connection URI
  std::vector<std::string> experiments;      // NAME or OWNER/NAME...; empty: every experiment with data
  std::map<std::string, std::string> twins;  // experiment -> its twin experiment
  std::filesystem::path output_dir;          // index.html is written into it
  std::string title = "hetscale scalability report";
};

struct ReportResult {
  std::filesystem::path file;  // the absolute path of the index.html written
};

/// Reads every view as of one moment (a snapshot transaction), builds the report and writes
/// it atomically (readers never see half a report).
ReportResult write_report(const ReportOptions& options);

}  // namespace hetscale::report
