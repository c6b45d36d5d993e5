#include "hetscale/site/step_weights.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace hetscale {
namespace {

// CPUs that really count for one rank: Slurm may place more CPUs on a node than the
// table says a job can use (oversubscription); then the node counts only its processors.
double effective_cpus(const StepNode& step_node, const Node& node) {
  double asked = static_cast<double>(step_node.tasks) * step_node.cpus_per_task;
  double usable = std::min(asked, static_cast<double>(node.processors));
  return usable / step_node.tasks;
}

StepWeights equal_fallback(const SiteTable& table, const StepLayout& layout) {
  StepWeights out;
  out.source = "equal";
  double total_cpus = 0;
  for (const auto& step_node : layout.nodes) {
    const Node* node = table.find_node(step_node.host);
    double rank_speed = node ? node->marked_speed * effective_cpus(step_node, *node) : 0.0;
    out.nodes.push_back({node ? node->group : "unknown", rank_speed, 0.0});
    out.system_speed += rank_speed * step_node.tasks;
    total_cpus += static_cast<double>(step_node.tasks) * step_node.cpus_per_task;
  }
  for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
    out.nodes[i].rank_weight = layout.nodes[i].cpus_per_task / total_cpus;
  }
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
  for (auto& node : out.nodes) node.rank_weight = node.rank_speed / out.system_speed;
  return out;
}

namespace {

void apply_node_partition(StepWeights& weights, const Partition& partition,
                          const StepLayout& layout) {
  std::unordered_map<std::string_view, const Partition::NodeShare*> by_host;
  for (const auto& share : partition.nodes) by_host.emplace(share.host, &share);
  std::unordered_map<std::string_view, bool> in_step;
  double total = 0;
  for (const auto& step_node : layout.nodes) {
    in_step.emplace(step_node.host, true);
    auto it = by_host.find(step_node.host);
    if (it == by_host.end()) {
      throw Error("partition " + partition.source + " does not list node " + step_node.host +
                  " of the step");
    }
    total += it->second->weight;
  }
  for (const auto& share : partition.nodes) {
    if (!in_step.contains(share.host)) {
      throw Error("partition " + partition.source + " lists node " + share.host +
                  ", which is not in the step (" + share.where.str() + ")");
    }
  }
  for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
    double node_share = by_host.at(layout.nodes[i].host)->weight / total;
    weights.nodes[i].rank_weight = node_share / layout.nodes[i].tasks;
  }
}

void apply_rank_partition(StepWeights& weights, const Partition& partition,
                          const StepLayout& layout) {
  std::uint64_t ranks = layout.total_tasks();
  std::vector<double> by_rank(ranks, 0.0);
  double total = 0;
  for (const auto& share : partition.ranks) {
    if (share.rank >= ranks) {
      throw Error("partition " + partition.source + " lists rank " + std::to_string(share.rank) +
                  ", which is not in the step of " + std::to_string(ranks) + " ranks (" +
                  share.where.str() + ")");
    }
    by_rank[share.rank] = share.weight;
    total += share.weight;
  }
  for (std::uint64_t r = 0; r < ranks; ++r) {
    if (by_rank[r] == 0.0) {
      throw Error("partition " + partition.source + " does not list rank " + std::to_string(r) +
                  " of the step");
    }
    by_rank[r] /= total;
  }
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

std::string format_weight(double value) {
  char buffer[40];
  int n = std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return std::string(buffer, static_cast<std::size_t>(n));
}

}  // namespace hetscale
