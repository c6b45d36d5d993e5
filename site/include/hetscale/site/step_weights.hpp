// Per-rank speed weights of a step (docs/site-table.md, docs/admin.md): a rank's marked speed is
// its node's per-processor speed x the CPUs it was allocated; weights sum to 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/site/partition_file.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/site/step_layout.hpp"

namespace hetscale {

/// What to do with a step node the site table does not list.
enum class OnMissing { fail, equal };

/// The per-rank values of one node of the step (all its ranks share them unless the
/// partition is per rank).
struct NodeWeights {
  std::string group;       // "unknown" for a node absent from the table (on_missing=equal)
  double rank_speed = 0;   // marked speed of each rank on this node (0 when unknown)
  double rank_weight = 0;  // share of each rank on this node
};

struct StepWeights {
  std::string source;                // HETSCALE_WEIGHTS_SOURCE: marked, equalized, file or equal
  double system_speed = 0;           // C: sum of the ranks' marked speeds
  std::vector<NodeWeights> nodes;    // parallel to StepLayout::nodes
  std::vector<double> rank_weights;  // only for a per-rank partition, by global rank
  std::string digest;                // HETSCALE_WEIGHTS_DIGEST (weights_digest), when computed

  /// Values of the rank `global_rank` running on step node `node_index`.
  struct Rank {
    double weight;
    double marked_speed;
    std::string_view group;
  };
  /// Throws Error when the node index or rank is outside the step.
  [[nodiscard]] Rank rank(std::uint32_t node_index, std::uint64_t global_rank) const;
};

/// Weights proportional to marked speed. A node absent from the table is an Error
/// ("node n9 of the step is not in site table T") with OnMissing::fail; with
/// OnMissing::equal the whole step falls back to weights proportional to CPUs only
/// (source "equal"). A node given more CPUs than its table `processors` counts only
/// its processors, shared evenly by its ranks.
StepWeights marked_weights(const SiteTable& table, const StepLayout& layout, OnMissing on_missing);

/// Replaces the weights of `marked` by the partition's, normalised to sum 1; `source`
/// becomes "equalized" or "file". Throws Error naming the mismatch: a step node or rank
/// missing from the partition, an entry not in the step, another site.
StepWeights partition_weights(StepWeights marked, const Partition& partition,
                              const StepLayout& layout, const SiteTable& table, std::string source);

/// What a step's weights came from, as HETSCALE_WEIGHTS_DIGEST carries it: the SHA-256
/// (64 hex digits) of the site table's name and unit, the table's row of every step node
/// (name, group, processors, per-processor speed, state, in step order), and the partition
/// when there is one (format_partition). Every node of a step computes it on its own, so
/// nodes that read different versions of the table or the partition get different digests;
/// a change to nodes outside the step does not change it.
std::string weights_digest(const SiteTable& table, const StepLayout& layout,
                           const Partition* partition);

/// A weight as the environment carries it: 17 significant digits.
std::string format_weight(double value);

}  // namespace hetscale
