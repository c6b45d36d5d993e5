#include "hetscale/base/json_depth.hpp"

#include "hetscale/base/error.hpp"

namespace hetscale {

std::optional<std::size_t> json_nesting_beyond(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character, whatever it is
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > limit) return i;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return std::nullopt;
}

void require_json_nesting_within_limit(std::string_view text, const std::string& source,
                                       std::uint32_t first_line) {
  const auto too_deep = json_nesting_beyond(text, kMaxJsonNesting);
  if (!too_deep) return;
  SourceLocation where{source, first_line, 1};
  for (std::size_t i = 0; i < *too_deep; ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  throw ConfigError(where, "invalid JSON: nesting deeper than " + std::to_string(kMaxJsonNesting));
}

}  // namespace hetscale
