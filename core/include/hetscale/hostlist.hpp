// Slurm host-list expressions ("n[1-3,7]", "hpc-[001-128]-ib", "a1,b[2-3]"), expanded
// and compressed exactly as Slurm's `scontrol show hostnames` / `hostlist` do.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale {

/// Expands a host-list expression into host names, in order, keeping duplicates.
/// Throws ExpressionError (1-based column into `expression`) on malformed input and on
/// more than 1,000,000 hosts. Stricter than Slurm in places: docs/hostlists.md.
std::vector<std::string> expand_hostlist(std::string_view expression);

/// Compresses host names exactly as `scontrol show hostlist` does: order and duplicates
/// are kept (sort first for the shortest text), each run of consecutive numbers with
/// the same prefix and a compatible zero padding becomes a range, and neighbouring
/// ranges of one prefix share a bracket. expand_hostlist(compress_hostlist(h)) == h.
std::string compress_hostlist(std::span<const std::string> hosts);

}  // namespace hetscale
