// Nested, doubling, group-balanced machine sets (docs/science.md section 2, scalability tester).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "hetscale/site/machine_set.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {

enum class SetPolicy {
  stop,  // STAS: end when a group can no longer give its balanced share
  fill   // top the shortfall up from the other groups instead
};

struct MachineSetOptions {
  std::size_t start = 2;  // nodes in the first set
  std::size_t max = 0;    // largest set allowed, in nodes; 0 = no limit
  SetPolicy policy = SetPolicy::stop;
  bool include_degraded = false;  // degraded nodes are used only when asked
};

/// Builds the sets; throws Error when not even the first set can be formed.
std::vector<MachineSet> build_machine_sets(const SiteTable& site, const MachineSetOptions& options);

}  // namespace hetscale
