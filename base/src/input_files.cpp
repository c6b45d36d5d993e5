#include "hetscale/base/input_files.hpp"

#include <algorithm>

namespace hetscale {
namespace fs = std::filesystem;

std::vector<fs::path> input_files(const fs::path& input, std::initializer_list<std::string_view> extensions) {
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return {input};
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(input)) {
    const fs::path& p = entry.path();
    const std::string extension = p.extension().string();
    if (entry.is_regular_file() &&
        std::find(extensions.begin(), extensions.end(), std::string_view(extension)) != extensions.end())
      files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace hetscale
