#include "step_reader.hpp"

#include "hetscale/base/error.hpp"
#include "hetscale/site/hostlist.hpp"

namespace hetscale::spank {
namespace {

[[noreturn]] void bad_step(const std::string& message) {
  throw Error("hetscale: step: " + message);
}

std::string required_env(const SlurmApi& slurm, const std::string& name) {
  std::optional<std::string> value = slurm.getenv(name);
  if (!value || value->empty()) bad_step(name + " is not set");
  if (value->size() > kMaxStepEnvChars)
    bad_step(name + " is longer than " + std::to_string(kMaxStepEnvChars) + " characters");
  return *value;
}

// A host name that can safely become part of a file name.
void check_path_safe(const std::string& host) {
  if (host.empty() || host.find('/') != std::string::npos || host.find("..") != std::string::npos)
    bad_step("node name '" + host + "' cannot be used in a path ('/' or '..')");
}

void check_count(const char* what, std::uint64_t from_env, std::optional<std::uint64_t> item) {
  if (item && *item != from_env) {
    bad_step(std::string(what) + ": the step environment says " + std::to_string(from_env) +
             ", Slurm says " + std::to_string(*item));
  }
}

}  // namespace

StepLayout read_step_layout(const SlurmApi& slurm) {
  std::string nodelist = required_env(slurm, "SLURM_STEP_NODELIST");
  std::string tasks = required_env(slurm, "SLURM_STEP_TASKS_PER_NODE");
  std::uint64_t cpus_per_task = slurm.item(Item::cpus_per_task).value_or(1);
  std::optional<std::uint64_t> node_count = slurm.item(Item::node_count);
  HostlistLimits limits;
  if (node_count) limits.max_hosts = static_cast<std::size_t>(std::max<std::uint64_t>(*node_count, 1));
  StepLayout layout;
  try {
    std::vector<std::string> hosts = expand_hostlist(nodelist, limits);
    std::vector<std::uint32_t> counts = parse_tasks_per_node(tasks, limits.max_hosts);
    layout = make_step_layout(hosts, counts, static_cast<std::uint32_t>(cpus_per_task));
  } catch (const ExpressionError& error) {
    bad_step("bad SLURM_STEP_NODELIST '" + nodelist.substr(0, 200) + "': " + error.what());
  } catch (const Error& error) {
    bad_step(error.what());
  }
  for (const StepNode& node : layout.nodes) check_path_safe(node.host);
  check_count("nodes", layout.nodes.size(), node_count);
  check_count("tasks", layout.total_tasks(), slurm.item(Item::total_task_count));
  std::optional<std::uint64_t> node_id = slurm.item(Item::node_id);
  if (node_id && *node_id < layout.nodes.size()) {
    check_count("tasks on this node", layout.nodes[*node_id].tasks,
                slurm.item(Item::local_task_count));
  }
  return layout;
}

std::uint32_t this_node_index(const SlurmApi& slurm, const StepLayout& layout) {
  std::optional<std::uint64_t> id = slurm.item(Item::node_id);
  if (!id) {
    // Without Slurm's own id, this node's name is the only clue.
    std::optional<std::string> name = slurm.getenv("SLURMD_NODENAME");
    for (std::size_t i = 0; name && i < layout.nodes.size(); ++i) {
      if (layout.nodes[i].host == *name) return static_cast<std::uint32_t>(i);
    }
    bad_step("cannot tell which node of the step this is");
  }
  if (*id >= layout.nodes.size()) {
    bad_step("Slurm's node id " + std::to_string(*id) + " is outside the step's " +
             std::to_string(layout.nodes.size()) + " nodes");
  }
  return static_cast<std::uint32_t>(*id);
}

}  // namespace hetscale::spank
