// The outputs recorded from each Slurm release by scripts/record-slurm-outputs.sh
// (tests/fixtures/slurm/<release>/, each with a README naming the commands and the jobs).
#pragma once

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace hetscale::slurm::test
