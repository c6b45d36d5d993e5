// A site table from declared speeds (docs/site-table.md, "Declared speeds"): a centre that
// knows its nodes' speeds writes them down, one node a line, instead of classifying them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "hetscale/site/site_table.hpp"

namespace hetscale {

/// What a file of declared speeds does not say: the [site] name and the unit of its speeds.
struct DeclaredSite {
  std::string name = "site";
  std::string speed_unit = "speed-factor";
};

/// The [site] benchmark of a table of declared speeds: no benchmark measured them.
inline constexpr std::string_view kDeclaredBenchmark = "declared";

/// Parses declared speeds into a site table. One node a line, `NAME key=value...`, words
/// separated by blanks; blank lines and everything after '#' are ignored. NAME is one host
/// name (no host-list expression); the keys are `group` (required), `cpus` (processors, a
/// positive integer, default 1) and `speed` (the per-processor marked speed, a positive
/// number, default 1.0). Groups come in the order of their first node, nodes in file
/// order, every node "ok"; the result is then checked as any site table is read.
/// Throws ConfigError naming source_name:line:col for a word that is not key=value, an
/// unknown or repeated key, a node without a group, a bad number, a name that is not one
/// host name, a node listed twice, a group whose nodes declare different speeds, and a
/// file without nodes.
SiteTable parse_declared_nodes(std::string_view text, const std::string& source_name,
                               const DeclaredSite& site);

/// Reads and parses a file of declared speeds; an unreadable file is a ConfigError too.
SiteTable load_declared_nodes(const std::filesystem::path& path, const DeclaredSite& site);

}  // namespace hetscale
