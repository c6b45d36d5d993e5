// Reading a whole file as text (inputs the tool keeps or parses whole).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace hetscale {

/// The file's bytes. Throws ConfigError "path: cannot read the <what>" when it cannot be
/// opened.
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace hetscale
