#include "hetscale/base/executable_search.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>

namespace hetscale {

std::optional<std::filesystem::path> find_on_path(std::string_view name, std::string_view path_list,
                                                  const std::filesystem::path& base) {
  for (std::size_t at = 0; at <= path_list.size();) {
    const std::size_t end = std::min(path_list.find(':', at), path_list.size());
    const std::filesystem::path candidate = base / std::string(path_list.substr(at, end - at)) / std::string(name);
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return std::nullopt;
}

}  // namespace hetscale
