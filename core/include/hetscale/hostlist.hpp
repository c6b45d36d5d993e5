// Slurm host-list expressions ("n[1-3,7]", "hpc-[001-128]-ib", "a1,b[2-3]"), expanded
// and compressed exactly as Slurm's `scontrol show hostnames` / `hostlist` do.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale {

/// Expands a host-list expression into host names, in order, keeping duplicates.
/// Throws ExpressionError (1-based column into `expression`) on malformed input.
std::vector<std::string> expand_hostlist(std::string_view expression);

/// Compresses host names into the shortest expression Slurm would print for them
/// (sorted, consecutive numbers merged into ranges, zero padding kept).
std::string compress_hostlist(std::span<const std::string> hosts);

}  // namespace hetscale
