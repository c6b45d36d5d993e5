// Reads the layout of the current step from Slurm (remote context).
#pragma once

#include "hetscale/step_layout.hpp"
#include "slurm_api.hpp"

namespace hetscale::spank {

/// Step node list (SLURM_STEP_NODELIST), tasks per node (SLURM_STEP_TASKS_PER_NODE) and
/// CPUs per task (item S_STEP_CPUS_PER_TASK). Throws Error "hetscale: step: ...".
StepLayout read_step_layout(const SlurmApi& slurm);

/// Index of this node in `layout`: its name (SLURMD_NODENAME) when Slurm gives it, else
/// the node id item. Throws Error "hetscale: step: ..." when neither fits the layout.
std::uint32_t this_node_index(const SlurmApi& slurm, const StepLayout& layout);

}  // namespace hetscale::spank
