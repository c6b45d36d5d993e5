// Reading scontrol's `--oneliner` output: one record per line, "Key=value Key=value ...".
// Shared by the partition check and the node states.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale::jobgen {

/// The value of `key=` in one "Key=value Key=value" line (values hold no blanks).
std::optional<std::string> scontrol_field(std::string_view line, std::string_view key);

/// The non-blank lines of `text`, each without its line end.
std::vector<std::string_view> scontrol_lines(std::string_view text);

}  // namespace hetscale::jobgen
