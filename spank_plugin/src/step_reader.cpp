#include "step_reader.hpp"

#include "hetscale/error.hpp"

namespace hetscale::spank {
namespace {

std::string required_env(const SlurmApi& slurm, const std::string& name) {
  std::optional<std::string> value = slurm.getenv(name);
  if (!value || value->empty()) throw Error("hetscale: step: " + name + " is not set");
  return *value;
}

}  // namespace

StepLayout read_step_layout(const SlurmApi& slurm) {
  std::string nodelist = required_env(slurm, "SLURM_STEP_NODELIST");
  std::string tasks = required_env(slurm, "SLURM_STEP_TASKS_PER_NODE");
  std::uint64_t cpus_per_task = slurm.item(Item::cpus_per_task).value_or(1);
  try {
    std::vector<std::string> hosts = slurm.expand_hostlist(nodelist);
    std::vector<std::uint32_t> counts = parse_tasks_per_node(tasks);
    return make_step_layout(hosts, counts, static_cast<std::uint32_t>(cpus_per_task));
  } catch (const Error& error) {
    throw Error(std::string("hetscale: step: ") + error.what());
  }
}

std::uint32_t this_node_index(const SlurmApi& slurm, const StepLayout& layout) {
  if (std::optional<std::string> name = slurm.getenv("SLURMD_NODENAME")) {
    for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
      if (layout.nodes[i].host == *name) return static_cast<std::uint32_t>(i);
    }
    throw Error("hetscale: step: this node " + *name + " is not in the step node list");
  }
  std::optional<std::uint64_t> id = slurm.item(Item::node_id);
  if (!id || *id >= layout.nodes.size()) {
    throw Error("hetscale: step: cannot tell which node of the step this is");
  }
  return static_cast<std::uint32_t>(*id);
}

}  // namespace hetscale::spank
