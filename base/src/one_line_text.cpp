#include "hetscale/base/one_line_text.hpp"

#include <cstdio>

namespace hetscale {
namespace {

bool control(unsigned char c) { return c < 0x20 || c == 0x7f; }

}  // namespace

std::string one_line_text(std::string_view text) {
  bool clean = true;
  for (char c : text) clean = clean && c != '\\' && !control(static_cast<unsigned char>(c));
  if (clean) return std::string(text);
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (control(static_cast<unsigned char>(c))) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace hetscale
