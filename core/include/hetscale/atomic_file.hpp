// Replacing a file whole: readers (the SPANK plugin, dashboards, a browser) see either the
// old content or the new one, never a part.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

namespace hetscale {

/// Writes `text` to a new temporary file in `path`'s directory (".<name>.XXXXXX", so the
/// rename stays on one file system), flushes it to disk, gives it `mode`, renames it over
/// `path`, then flushes the directory. Throws Error "cannot write <path>: <reason>"; the
/// temporary file is removed on failure and `path` is left as it was.
void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           mode_t mode = 0644);

}  // namespace hetscale
