// Whether a file (or directory) the SPANK plugin reads as root may be believed: owned by
// one of the expected users and writable by nobody else. The one rule for the site table
// cache and the equalized partitions.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace hetscale {

/// Why the file whose stat is `st` may not be believed ("is owned by uid 1001, not uid 0
/// or 1000", "is writable by its group or others (mode 0664)"), or nullopt when it is
/// owned by one of `owners` and neither group- nor world-writable.
std::optional<std::string> untrusted_reason(const struct stat& st, std::span<const uid_t> owners);

/// untrusted_reason of `path` itself (lstat: a symbolic link is never trusted, it is
/// owned by whoever made it, not by what it points to); a path that cannot be stat'ed is
/// not trusted either.
std::optional<std::string> untrusted_reason(const std::filesystem::path& path,
                                            std::span<const uid_t> owners);

}  // namespace hetscale
