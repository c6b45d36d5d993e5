// The shape of one Slurm job step as the SPANK plugin sees it: nodes in step order,
// tasks on each, CPUs each task was allocated.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetscale {

struct StepNode {
  std::string host;
  std::uint32_t tasks = 0;          // tasks of the step on this node
  std::uint32_t cpus_per_task = 1;  // CPUs Slurm allocated to each of them
};

struct StepLayout {
  std::vector<StepNode> nodes;  // in step order (node id 0 first)

  [[nodiscard]] std::uint64_t total_tasks() const;
};

/// Expands Slurm's compressed tasks-per-node syntax ("2(x3),1" -> 2,2,2,1), as found in
/// SLURM_STEP_TASKS_PER_NODE, into at most `max_nodes` counts. Throws Error naming the
/// bad part.
std::vector<std::uint32_t> parse_tasks_per_node(std::string_view text,
                                                std::size_t max_nodes = 1u << 20);

/// Pairs hosts with task counts. Throws Error when the counts differ or a node has no
/// task or cpus_per_task is 0.
StepLayout make_step_layout(std::span<const std::string> hosts,
                            std::span<const std::uint32_t> tasks_per_node,
                            std::uint32_t cpus_per_task);

}  // namespace hetscale
