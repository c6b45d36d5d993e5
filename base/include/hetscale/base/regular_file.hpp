// Reading a whole configuration file that somebody else may have named: only a regular
// file, never more than a given size, and never anything that can block or grow (a FIFO,
// a device, /dev/zero) or that belongs to a running process (/proc).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {

/// Why a file could not be read; what() == "cannot read <path>: <reason>".
class FileReadError : public Error {
 public:
  FileReadError(const std::filesystem::path& path, const std::string& reason)
      : Error("cannot read " + path.string() + ": " + reason), reason_(reason) {}
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string reason_;
};

/// The cap on files the SPANK plugin reads for a step (partition files).
inline constexpr std::size_t kMaxPartitionFileBytes = 4u << 20;
/// The cap on site tables (a million-node table in its usual form is well below it).
inline constexpr std::size_t kMaxSiteTableBytes = 256u << 20;

/// The content of the regular file at `path`. It is opened without blocking, without
/// becoming a controlling terminal and closed on exec, then checked with fstat/fstatfs
/// before a byte is read. Throws FileReadError when the file cannot be opened,
/// is not a regular file, lies on procfs, or is larger than `max_bytes` (also when it
/// grows past the cap while being read).
std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes);

/// read_regular_file of a file that must also be trusted (file_trust.hpp): the file as
/// opened is owned by one of `owners` and writable by nobody else; a symbolic link is
/// refused (O_NOFOLLOW). Throws FileReadError "cannot read P: is owned by uid 1001, not
/// uid 0 or 1000" and the like.
std::string read_trusted_file(const std::filesystem::path& path, std::size_t max_bytes,
                              std::span<const uid_t> owners);

}  // namespace hetscale
