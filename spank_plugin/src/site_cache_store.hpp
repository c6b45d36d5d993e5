// Loading the site table through an on-disk cache (site_table_cache.hpp), so a step on
// a 10,000-node site does not parse the TOML again while it is unchanged.
#pragma once

#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "hetscale/site/site_table.hpp"

namespace hetscale::spank {

using SiteTableLoader = std::function<SiteTable(const std::filesystem::path&)>;

/// Returns the table at `site`: from `cache_dir` when a fresh copy is there, else from
/// `load` (and then stores a copy). The cache is only trusted, and only written, in a
/// directory owned by the current user that nobody else may write (root under
/// slurmstepd); cache trouble never fails a step, it only costs the parse. An empty
/// `cache_dir` disables the cache.
/// With `hosts`, a table from the cache holds only those nodes (see parse_site_cache).
SiteTable load_site_table_cached(const std::filesystem::path& site,
                                 const std::filesystem::path& cache_dir,
                                 const SiteTableLoader& load,
                                 std::span<const std::string> hosts = {});

/// The cache file for `site` in `cache_dir` ("/etc/hetscale/site.toml" ->
/// "%etc%hetscale%site.toml.cache").
std::filesystem::path cache_file_for(const std::filesystem::path& site,
                                     const std::filesystem::path& cache_dir);

}  // namespace hetscale::spank
