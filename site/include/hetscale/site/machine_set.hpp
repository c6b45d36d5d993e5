// One machine set of a study: its nodes, how many come from each group, and its marked
// speed C (docs/machine-sets.md). The sets are built by the model (hetscale/model/machine_sets.hpp)
// and carried in plan files (hetscale/site/round_plan.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace hetscale {

struct MachineSet {
  std::size_t index = 0;           // 0-based position in the sequence
  std::vector<std::string> nodes;  // members; a set's nodes start with its predecessor's
  std::vector<std::pair<std::string, std::size_t>> group_counts;  // in site-table group order
  double marked_speed = 0;  // C = sum of total_speed() of its nodes
};

}  // namespace hetscale
