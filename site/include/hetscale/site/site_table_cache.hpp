// A compact, line-based copy of a parsed site table, so that a process that starts for
// every job step (slurmstepd) need not parse a 10,000-node TOML file each time. The
// copy names the size, mtime and inode of the file it came from; any change makes it
// stale. It is disposable: anything unexpected in it only means "parse the TOML again".
// It keeps what a job step needs: not the [network] table (SiteTable::network is empty).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "hetscale/site/site_table.hpp"

namespace hetscale {

/// Identity of a file's current contents (from stat).
struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint64_t inode = 0;

  bool operator==(const FileStamp&) const = default;
};

/// Stat of `path`; throws Error "cannot read PATH: reason" when it cannot be stat'ed.
FileStamp stamp_of(const std::filesystem::path& path);

/// The cache text of `table`, loaded from a file with stamp `stamp`; nullopt when a
/// name holds a tab or a line break (such a table is simply not cached).
std::optional<std::string> format_site_cache(const SiteTable& table, const FileStamp& stamp);

/// The table back, when `text` is a well-formed cache for `expected`; else nullopt.
/// With `only_nodes`, just those nodes are kept (every group is): a job step needs a
/// handful of a 10,000-node table, and building the rest costs more than the scan.
std::optional<SiteTable> parse_site_cache(std::string_view text, const FileStamp& expected,
                                          std::span<const std::string> only_nodes = {});

}  // namespace hetscale
