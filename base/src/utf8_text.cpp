#include "hetscale/base/utf8_text.hpp"

namespace hetscale {
namespace {

constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed sequence at text[at], or 0 when the byte there starts none.
std::size_t sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char first = byte(at);
  if (first < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;  // the range of the second byte (table 3-7)
  unsigned char high = 0xBF;
  if (first >= 0xC2 && first <= 0xDF) {
    length = 2;
  } else if (first >= 0xE0 && first <= 0xEF) {
    length = 3;
    if (first == 0xE0) low = 0xA0;   // no overlong form
    if (first == 0xED) high = 0x9F;  // no surrogate
  } else if (first >= 0xF0 && first <= 0xF4) {
    length = 4;
    if (first == 0xF0) low = 0x90;   // no overlong form
    if (first == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  return length;
}

}  // namespace

Utf8Repair replace_invalid_utf8(std::string_view text) {
  Utf8Repair out;
  std::size_t at = 0;
  // Most text is well-formed: it is not copied when no byte is replaced.
  while (at < text.size()) {
    const std::size_t length = sequence_length(text, at);
    if (length == 0) break;
    at += length;
  }
  if (at == text.size()) return out;
  std::string& repaired = out.repaired.emplace();
  repaired.reserve(text.size() + 16);
  repaired.append(text.substr(0, at));
  while (at < text.size()) {
    const std::size_t length = sequence_length(text, at);
    if (length == 0) {
      repaired.append(replacement);
      ++out.replaced_bytes;
      ++at;
    } else {
      repaired.append(text.substr(at, length));
      at += length;
    }
  }
  return out;
}

}  // namespace hetscale
