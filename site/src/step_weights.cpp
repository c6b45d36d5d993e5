#include "hetscale/site/step_weights.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <unordered_map>

#include "hetscale/base/sha256.hpp"
#include "hetscale/site/weight_shares.hpp"

namespace hetscale {
namespace {

// CPUs that really count for one rank: Slurm may place more CPUs on a node than the
// table says a job can use (oversubscription); then the node counts only its processors.
double effective_cpus(const StepNode& step_node, const Node& node) {
  double asked = static_cast<double>(step_node.tasks) * step_node.cpus_per_task;
  double usable = std::min(asked, static_cast<double>(node.processors));
  return usable / step_node.tasks;
}

// Every rank's count, node by node, for normalise_shares.
std::vector<std::uint64_t> tasks_of(const StepLayout& layout) {
  std::vector<std::uint64_t> counts;
  counts.reserve(layout.nodes.size());
  for (const auto& step_node : layout.nodes) counts.push_back(step_node.tasks);
  return counts;
}

// C must be a number the environment can carry: speeds near the largest double overflow.
void check_system_speed(const StepWeights& weights) {
  if (!std::isfinite(weights.system_speed)) {
    throw Error("the step's marked speed is not finite (marked speed x processors overflows)");
  }
}

// Normalises the per-node rank shares in `shares` into the nodes' rank weights.
void set_node_weights(StepWeights& weights, std::vector<double> shares, const StepLayout& layout,
                      std::string_view what) {
  const std::vector<std::uint64_t> counts = tasks_of(layout);
  normalise_shares(shares, counts, what);
  for (std::size_t i = 0; i < shares.size(); ++i) weights.nodes[i].rank_weight = shares[i];
}

StepWeights equal_fallback(const SiteTable& table, const StepLayout& layout) {
  StepWeights out;
  out.source = "equal";
  std::vector<double> cpus;
  cpus.reserve(layout.nodes.size());
  for (const auto& step_node : layout.nodes) {
    const Node* node = table.find_node(step_node.host);
    double rank_speed = node ? node->marked_speed * effective_cpus(step_node, *node) : 0.0;
    out.nodes.push_back({node ? node->group : "unknown", rank_speed, 0.0});
    out.system_speed += rank_speed * step_node.tasks;
    cpus.push_back(step_node.cpus_per_task);
  }
  check_system_speed(out);
  set_node_weights(out, std::move(cpus), layout, "weights by CPUs");
  return out;
}

std::string site_label(const SiteTable& table) {
  if (!table.source.empty()) return table.source.string();
  return table.name.empty() ? std::string("<memory>") : table.name;
}

}  // namespace

StepWeights::Rank StepWeights::rank(std::uint32_t node_index, std::uint64_t global_rank) const {
  if (node_index >= nodes.size()) {
    throw Error("node index " + std::to_string(node_index) + " is outside the step (" +
                std::to_string(nodes.size()) + " nodes)");
  }
  const NodeWeights& node = nodes[node_index];
  double weight = node.rank_weight;
  if (!rank_weights.empty()) {
    if (global_rank >= rank_weights.size()) {
      throw Error("rank " + std::to_string(global_rank) + " is outside the step (" +
                  std::to_string(rank_weights.size()) + " ranks)");
    }
    weight = rank_weights[global_rank];
  }
  return {weight, node.rank_speed, node.group};
}

StepWeights marked_weights(const SiteTable& table, const StepLayout& layout, OnMissing on_missing) {
  if (layout.nodes.empty()) throw Error("step has no node");
  StepWeights out;
  out.source = "marked";
  out.nodes.reserve(layout.nodes.size());
  for (const auto& step_node : layout.nodes) {
    const Node* node = table.find_node(step_node.host);
    if (node == nullptr) {
      if (on_missing == OnMissing::equal) return equal_fallback(table, layout);
      throw Error("node " + step_node.host + " of the step is not in site table " +
                  site_label(table));
    }
    double rank_speed = node->marked_speed * effective_cpus(step_node, *node);
    out.nodes.push_back({node->group, rank_speed, 0.0});
    out.system_speed += rank_speed * step_node.tasks;
  }
  check_system_speed(out);
  std::vector<double> speeds;
  speeds.reserve(out.nodes.size());
  for (const auto& node : out.nodes) speeds.push_back(node.rank_speed);
  set_node_weights(out, std::move(speeds), layout, "marked weights");
  return out;
}

namespace {

void apply_node_partition(StepWeights& weights, const Partition& partition,
                          const StepLayout& layout) {
  std::unordered_map<std::string_view, const Partition::NodeShare*> by_host;
  for (const auto& share : partition.nodes) by_host.emplace(share.host, &share);
  std::unordered_map<std::string_view, bool> in_step;
  for (const auto& step_node : layout.nodes) {
    in_step.emplace(step_node.host, true);
    auto it = by_host.find(step_node.host);
    if (it == by_host.end()) {
      throw Error("partition " + partition.source + " does not list node " + step_node.host +
                  " of the step");
    }
  }
  for (const auto& share : partition.nodes) {
    if (!in_step.contains(share.host)) {
      throw Error("partition " + partition.source + " lists node " + share.host +
                  ", which is not in the step (" + share.where.str() + ")");
    }
  }
  // A node's share is split evenly between its ranks.
  std::vector<double> shares;
  shares.reserve(layout.nodes.size());
  for (const auto& step_node : layout.nodes)
    shares.push_back(by_host.at(step_node.host)->weight / step_node.tasks);
  set_node_weights(weights, std::move(shares), layout, "partition " + partition.source);
}

void apply_rank_partition(StepWeights& weights, const Partition& partition,
                          const StepLayout& layout) {
  std::uint64_t ranks = layout.total_tasks();
  std::vector<double> by_rank(ranks, 0.0);
  for (const auto& share : partition.ranks) {
    if (share.rank >= ranks) {
      throw Error("partition " + partition.source + " lists rank " + std::to_string(share.rank) +
                  ", which is not in the step of " + std::to_string(ranks) + " ranks (" +
                  share.where.str() + ")");
    }
    by_rank[share.rank] = share.weight;
  }
  for (std::uint64_t r = 0; r < ranks; ++r) {
    if (by_rank[r] == 0.0) {
      throw Error("partition " + partition.source + " does not list rank " + std::to_string(r) +
                  " of the step");
    }
  }
  normalise_shares(by_rank, {}, "partition " + partition.source);
  weights.rank_weights = std::move(by_rank);
}

}  // namespace

StepWeights partition_weights(StepWeights marked, const Partition& partition,
                              const StepLayout& layout, const SiteTable& table,
                              std::string source) {
  if (!partition.site.empty() && partition.site != table.name) {
    throw Error("partition " + partition.source + " was made for site '" + partition.site +
                "', the site table is for '" + table.name + "'");
  }
  if (partition.by == Partition::By::node) {
    apply_node_partition(marked, partition, layout);
  } else {
    apply_rank_partition(marked, partition, layout);
  }
  marked.source = std::move(source);
  return marked;
}

std::string weights_digest(const SiteTable& table, const StepLayout& layout,
                           const Partition* partition) {
  // One field per line, each value length-prefixed: no name can pass for another field.
  std::string text = "hetscale-weights-digest 1\n";
  auto field = [&text](std::string_view name, std::string_view value) {
    text += name;
    text += ' ';
    text += std::to_string(value.size());
    text += ':';
    text += value;
    text += '\n';
  };
  field("site", table.name);
  field("unit", table.speed_unit);
  for (const auto& step_node : layout.nodes) {
    field("host", step_node.host);
    if (const Node* node = table.find_node(step_node.host)) {
      field("group", node->group);
      field("processors", std::to_string(node->processors));
      field("speed", format_weight(node->marked_speed));
      field("state", to_string(node->state));
    } else {
      field("absent", "");
    }
  }
  if (partition != nullptr) field("partition", format_partition(*partition));
  return to_hex(sha256(text));
}

std::string format_weight(double value) {
  char buffer[40];
  int n = std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return std::string(buffer, static_cast<std::size_t>(n));
}

}  // namespace hetscale
