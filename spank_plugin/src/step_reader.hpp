// Reads the layout of the current step (remote context). The node list and tasks per
// node come from the step's environment, which the job's submitter controls; they are
// bounded and checked against Slurm's own items before anything else uses them.
#pragma once

#include "hetscale/site/step_layout.hpp"
#include "slurm_api.hpp"

namespace hetscale::spank {

/// Longest SLURM_STEP_NODELIST / SLURM_STEP_TASKS_PER_NODE value the plugin reads.
inline constexpr std::size_t kMaxStepEnvChars = 1u << 20;

/// Step node list (SLURM_STEP_NODELIST, expanded by hetscale's bounded host-list parser),
/// tasks per node (SLURM_STEP_TASKS_PER_NODE) and CPUs per task (item
/// S_STEP_CPUS_PER_TASK). Checked against Slurm's items where it gives them: the node
/// count (S_JOB_NNODES), the total tasks (S_JOB_TOTAL_TASK_COUNT) and this node's tasks
/// (S_JOB_LOCAL_TASK_COUNT, at S_JOB_NODEID). No host name may contain '/' or "..", since
/// names become parts of file paths. Throws Error "hetscale: step: ...".
StepLayout read_step_layout(const SlurmApi& slurm);

/// Index of this node in `layout`: Slurm's node id item (SLURMD_NODENAME only where Slurm
/// gives no id). Throws Error "hetscale: step: ..." when the id is outside the layout.
std::uint32_t this_node_index(const SlurmApi& slurm, const StepLayout& layout);

}  // namespace hetscale::spank
