// Writing a file so that readers (the SPANK plugin, a browser, smpirun) see the old
// contents or the new, never half of them.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

namespace hetscale {

/// Writes `text` to a fresh temporary file beside `path` (mkstemp: ".<name>.XXXXXX", so
/// that the rename stays on one file system), gives it `mode`, flushes it to disk, renames
/// it over `path`, then flushes the directory. Creates missing parent directories. On
/// failure the temporary is removed, `path` is left as it was, and Error says "cannot
/// write PATH: why". The one atomic replacement of the project: site tables, partition
/// files, reports, the plugin's cache, twin platforms.
void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           mode_t mode = 0644);

/// Renames the finished file `from` over `to` (both on one file system, e.g. a run record
/// a kernel wrote beside its final place), then flushes the directory of `to`. On failure
/// both are left as they were, and Error says "cannot write TO: why".
void move_file_into_place(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace hetscale
