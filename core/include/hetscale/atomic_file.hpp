// Writing a file so that readers see the old contents or the new, never half of them.
#pragma once

#include <filesystem>
#include <string_view>

namespace hetscale {

/// Writes `text` to a fresh temporary file beside `path` (mkstemp, mode 0644), flushes it
/// and renames it over `path`. Creates missing parent directories. On failure the
/// temporary is removed, `path` is left as it was, and Error says "cannot write PATH: why".
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace hetscale
