// A site grown to more nodes of the same mix: what the twin simulates for "this cluster,
// but with N nodes" (docs/twin.md, "Growing the site").
#pragma once

#include <cstddef>

#include "hetscale/site/site_table.hpp"

namespace hetscale {

/// `site` with nodes added until it has `nodes` nodes that are not excluded. Each group
/// grows in proportion to its share of those nodes (largest remainders, ties to the group
/// declared first); a new node copies its group's first `ok` node (else its first
/// `degraded` one): processors and per-processor marked speed, state `ok`, and is named
/// `<group>-t<k>`, k = 1, 2, ... within the group. The existing nodes stay as they are,
/// first. Throws Error when `nodes` is smaller than the site's eligible nodes, when the
/// site has none, or when a new name is taken already.
SiteTable grow_site_table(const SiteTable& site, std::size_t nodes);

}  // namespace hetscale
