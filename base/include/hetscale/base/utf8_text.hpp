// Text that must be UTF-8 (JSON, the database's text columns) made of bytes from outside:
// the one repair, which replaces what is not UTF-8 instead of refusing the whole text.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hetscale {

struct Utf8Repair {
  std::optional<std::string> repaired;  // the input with U+FFFD for each replaced byte; none when well-formed
  std::size_t replaced_bytes = 0;       // how many bytes were replaced

  /// The text to read: the repaired copy, else `input` (the text that was given) itself.
  [[nodiscard]] std::string_view text(std::string_view input) const {
    return repaired ? std::string_view(*repaired) : input;
  }
};

/// `text` with every byte that is not part of a well-formed UTF-8 sequence (Unicode's
/// table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF, no truncated
/// sequence) replaced by U+FFFD, one replacement character per byte. Well-formed text is
/// not copied (a sacct answer may be 512 MiB): `repaired` is empty and the count 0.
Utf8Repair replace_invalid_utf8(std::string_view text);

}  // namespace hetscale
