// Partition files (site/src/partition_file.cpp): written by `hetscale equalize` or by hand,
// read by the SPANK plugin. Any text parses or raises ConfigError; an accepted partition
// written back with format_partition reads back the same, and gives every rank of a run
// on its nodes (or ranks) a finite, non-negative weight, summing to 1, unless its shares
// span so wide a range that a weight would be 0, which is refused.
#include <cmath>
#include <numeric>

#include "fuzz_targets.hpp"
#include "hetscale/site/partition_file.hpp"

namespace {

using hetscale::fuzz::require;

// Runs with more ranks than this are not built from a partition by rank.
constexpr std::uint32_t max_ranks_checked = 10'000;

void require_same(const hetscale::Partition& a, const hetscale::Partition& b) {
  require(a.by == b.by && a.site == b.site && a.node_list == b.node_list,
          "partition round trip: header differs");
  require(a.nodes.size() == b.nodes.size() && a.ranks.size() == b.ranks.size(),
          "partition round trip: entry count differs");
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    require(a.nodes[i].host == b.nodes[i].host && a.nodes[i].weight == b.nodes[i].weight,
            "partition round trip: node " + a.nodes[i].host + " differs");
  }
  for (std::size_t i = 0; i < a.ranks.size(); ++i) {
    require(a.ranks[i].rank == b.ranks[i].rank && a.ranks[i].weight == b.ranks[i].weight,
            "partition round trip: rank " + std::to_string(a.ranks[i].rank) + " differs");
  }
}

void check_weights(const hetscale::Partition& partition) {
  std::vector<std::string> rank_hosts;
  if (partition.by == hetscale::Partition::By::node) {
    for (const auto& node : partition.nodes) rank_hosts.push_back(node.host);
  } else {
    std::uint32_t top = 0;
    for (const auto& rank : partition.ranks) top = std::max(top, rank.rank);
    if (top >= max_ranks_checked || top + 1 != partition.ranks.size()) return;
    rank_hosts.assign(top + 1, "n1");
  }
  std::vector<double> weights;
  try {
    weights = hetscale::weights_for_ranks(partition, rank_hosts);
  } catch (const hetscale::Error& e) {
    // The one refusal of a parsed partition (normalise_shares): a weight would be 0.
    require(std::string(e.what()).find("the shares span too wide a range") != std::string::npos,
            std::string("weights_for_ranks refused: ") + e.what());
    return;
  }
  require(weights.size() == rank_hosts.size(), "one weight per rank");
  for (double w : weights)
    require(std::isfinite(w) && w >= 0, "rank weight negative or not finite");
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  require(std::abs(total - 1) < 1e-9, "rank weights do not sum to 1");
}

}  // namespace

int hetscale_fuzz_partition(const std::uint8_t* data, std::size_t size) {
  hetscale::Partition partition;
  try {
    partition = hetscale::parse_partition(hetscale::fuzz::text_of(data, size), "fuzz.toml");
  } catch (const hetscale::ConfigError&) {
    return 0;
  }
  require(!partition.nodes.empty() || !partition.ranks.empty(), "partition without entries");
  const std::string text = hetscale::format_partition(partition);
  hetscale::Partition again;
  try {
    again = hetscale::parse_partition(text, "formatted.toml");
  } catch (const hetscale::ConfigError& e) {
    throw hetscale::fuzz::PropertyBroken(std::string("formatted partition rejected: ") + e.what());
  }
  require_same(partition, again);
  check_weights(partition);
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_partition(data, size);
}
#endif
