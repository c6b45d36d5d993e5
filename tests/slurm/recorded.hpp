// The outputs recorded from each Slurm release by scripts/record-slurm-outputs.sh
// (tests/fixtures/slurm/<release>/, each with a README naming the commands and the jobs).
#pragma once

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/slurm/job_record.hpp"

namespace hetscale::slurm::test {

inline constexpr std::array<std::string_view, 3> releases = {"22.05", "24.11", "26.05"};

inline std::filesystem::path recorded_path(std::string_view release, std::string_view file) {
  return std::filesystem::path(HETSCALE_FIXTURES_DIR) / "slurm" / std::string(release) / std::string(file);
}

inline std::string recorded(std::string_view release, std::string_view file) {
  std::ifstream in(recorded_path(release, file), std::ios::binary);
  if (!in) throw std::runtime_error("no recorded output " + recorded_path(release, file).string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The recorded files of a release whose names start with `prefix` and end with `suffix`.
inline std::vector<std::string> recorded_files(std::string_view release, std::string_view prefix,
                                               std::string_view suffix) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(recorded_path(release, ""))) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(suffix)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Slurm's own reading of the names recording's jobs (names/sacct-parsable.txt, `sacct -P
/// -o JobID,JobName,State,ExitCode,WorkDir,Comment`), by JobID ("3", "6_0"; steps left out):
/// an independent reader to check the jobcomp and JSON readers against. A name with a line
/// break spans two lines of the file; they are joined with the break.
struct SacctParsableRow {
  std::string name, state, exit_code, work_dir;
};
inline std::map<std::string, SacctParsableRow> sacct_parsable_rows(std::string_view release) {
  std::istringstream in(recorded(release, "names/sacct-parsable.txt"));
  std::map<std::string, SacctParsableRow> rows;
  std::string pending;
  for (std::string line; std::getline(in, line);) {
    const std::string text = pending.empty() ? line : pending + "\n" + line;
    if (std::count(text.begin(), text.end(), '|') < 5) {  // the row goes on on the next line
      pending = text;
      continue;
    }
    pending.clear();
    std::vector<std::string> fields;
    std::string field;
    std::istringstream cells(text);
    while (std::getline(cells, field, '|')) fields.push_back(field);
    if (fields.size() < 5 || fields[0] == "JobID" || fields[0].find('.') != std::string::npos) continue;
    rows[fields[0]] = {fields[1], fields[2], fields[3], fields[4]};
  }
  return rows;
}

/// A job's JobID as `sacct -P` prints it: "3", or "6_0" for task 0 of array 6.
inline std::string sacct_parsable_id(const JobRecord& job) {
  return job.array_job_id && job.array_task_id
             ? std::to_string(*job.array_job_id) + "_" + std::to_string(*job.array_task_id)
             : std::to_string(job.job_id);
}

/// A value as slurmdbd stores it: MariaDB keeps a byte that is not UTF-8 as '?', where the
/// readers of Slurm's other outputs put U+FFFD.
inline std::string as_slurmdbd_stores(std::string text) {
  for (std::size_t at; (at = text.find("\xEF\xBF\xBD")) != std::string::npos;) text.replace(at, 3, "?");
  return text;
}

}  // namespace hetscale::slurm::test
