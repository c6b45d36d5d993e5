// Slurm host-list expressions ("n[1-3,7]", "hpc-[001-128]-ib", "a1,b[2-3]"), expanded
// and compressed exactly as Slurm's `scontrol show hostnames` / `hostlist` do.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale {

/// Bounds on what one expression may ask for, checked before anything is built, so a
/// short crafted name cannot expand to gigabytes. The defaults fit a site of a million
/// nodes; a caller that knows how many hosts to expect (the nodes of a step) passes that.
struct HostlistLimits {
  std::size_t max_length = 1u << 20;     // characters of the expression
  std::size_t max_brackets = 8;          // bracket groups in one host name ("a[1-2]b[3-4]": 2)
  std::size_t max_hosts = 1'000'000;     // hosts in the expansion
  std::size_t max_bytes = 64u << 20;     // characters of all host names together
};

/// Expands a host-list expression into host names, in order, keeping duplicates.
/// Throws ExpressionError (1-based column into `expression`) on malformed input and on
/// an expansion over `limits`. Stricter than Slurm in places: docs/hostlists.md.
std::vector<std::string> expand_hostlist(std::string_view expression,
                                         const HostlistLimits& limits = {});

/// A top-level term of an expression ("b[2-3]" in "a1,b[2-3],c"): its 1-based column and
/// the index of its first host in the expansion.
struct HostlistTerm {
  std::size_t column = 1;
  std::size_t first_host = 0;
};

/// expand_hostlist that also says where each host came from, so that a caller can point
/// at the term of one host ("n3" in "n[5-8],n3"). `terms` is replaced, one per term.
std::vector<std::string> expand_hostlist(std::string_view expression,
                                         std::vector<HostlistTerm>& terms,
                                         const HostlistLimits& limits = {});

/// Compresses host names exactly as `scontrol show hostlist` does: order and duplicates
/// are kept (sort first for the shortest text), each run of consecutive numbers with
/// the same prefix and a compatible zero padding becomes a range, and neighbouring
/// ranges of one prefix share a bracket. expand_hostlist(compress_hostlist(h)) == h.
std::string compress_hostlist(std::span<const std::string> hosts);

/// Natural host-name order: digit runs compare as numbers ("n2" < "n10"), the rest as text;
/// equal numbers with different zero padding order by length so the order is total.
bool natural_host_less(std::string_view a, std::string_view b);

/// Sorted copy of `hosts` in natural order (for compressing a set into the shortest list).
std::vector<std::string> sort_hostnames(std::span<const std::string> hosts);

}  // namespace hetscale
