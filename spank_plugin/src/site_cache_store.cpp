#include "site_cache_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/file_trust.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/site/site_table_cache.hpp"

namespace hetscale::spank {
namespace {

// Owned by us and writable by nobody else: what a cache must be before we believe it.
bool trusted(const std::filesystem::path& path) {
  const uid_t us = ::geteuid();
  return !untrusted_reason(path, std::span<const uid_t>(&us, 1));
}

std::optional<SiteTable> read_cache(const std::filesystem::path& file, const FileStamp& stamp,
                                    std::span<const std::string> hosts) {
  if (!trusted(file.parent_path()) || !trusted(file)) return std::nullopt;
  std::string text;
  try {
    text = read_text_file(file, "site table cache");
  } catch (const Error&) {
    return std::nullopt;  // a cache that cannot be read is only a cache
  }
  return parse_site_cache(text, stamp, hosts);
}

// Writes a temporary file beside the cache and renames it over, so that a concurrent
// step reads either the old copy or the new one, never half of one.
void write_cache(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::path dir = file.parent_path();
  ::mkdir(dir.c_str(), 0755);  // may already exist
  if (!trusted(dir)) return;
  try {
    write_file_atomically(file, text, 0644);
  } catch (const Error&) {
    // A cache that cannot be written is only a cache: the table was read all the same.
  }
}

}  // namespace

std::filesystem::path cache_file_for(const std::filesystem::path& site,
                                     const std::filesystem::path& cache_dir) {
  std::string name = site.string();
  std::replace(name.begin(), name.end(), '/', '%');
  return cache_dir / (name + ".cache");
}

SiteTable load_site_table_cached(const std::filesystem::path& site,
                                 const std::filesystem::path& cache_dir,
                                 const SiteTableLoader& load, std::span<const std::string> hosts) {
  if (cache_dir.empty()) return load(site);
  FileStamp stamp = stamp_of(site);
  std::filesystem::path file = cache_file_for(site, cache_dir);
  if (std::optional<SiteTable> cached = read_cache(file, stamp, hosts)) return std::move(*cached);
  SiteTable table = load(site);
  if (std::optional<std::string> text = format_site_cache(table, stamp)) write_cache(file, *text);
  return table;
}

}  // namespace hetscale::spank
