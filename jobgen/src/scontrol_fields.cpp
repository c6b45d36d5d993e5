#include "scontrol_fields.hpp"

#include <algorithm>

namespace hetscale::jobgen {

std::optional<std::string> scontrol_field(std::string_view line, std::string_view key) {
  for (std::size_t at = 0; at < line.size();) {
    const std::size_t end = std::min(line.find_first_of(" \n", at), line.size());
    const std::string_view word = line.substr(at, end - at);
    if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=')
      return std::string(word.substr(key.size() + 1));
    at = end + 1;
  }
  return std::nullopt;
}

std::vector<std::string_view> scontrol_lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.find_first_not_of(' ') != std::string_view::npos) out.push_back(line);
    at = end + 1;
  }
  return out;
}

}  // namespace hetscale::jobgen
