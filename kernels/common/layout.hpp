// MPI counts and displacements (int, as MPI wants them) for weighted row blocks.
#pragma once

#include <cstddef>
#include <vector>

namespace hetscale::kernels {

struct IntLayout {
  std::vector<int> counts;
  std::vector<int> displacements;
};

/// counts[i] = rows[i] * items_per_row, displacements their prefix sums; throws Error
/// when a count or the total does not fit MPI's int.
[[nodiscard]] IntLayout int_layout(const std::vector<std::size_t>& rows, std::size_t items_per_row);

}  // namespace hetscale::kernels
