// MPI counts and displacements (int, as MPI wants them) for weighted row blocks.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hetscale::kernels {

struct IntLayout {
  std::vector<int> counts;
  std::vector<int> displacements;
};

/// counts[i] = rows[i] * items_per_row, displacements their prefix sums; throws Error
/// when a count or the total does not fit MPI's int.
[[nodiscard]] IntLayout int_layout(const std::vector<std::size_t>& rows, std::size_t items_per_row);

/// Rows of `stride` values in position order, row g owned by rank owners[g], copied into
/// `packed` rank by rank at `layout`'s displacements: what rank 0 scatters.
void pack_rows_by_owner(const double* rows, std::size_t stride, std::span<const int> owners,
                        const IntLayout& layout, double* packed);

/// The inverse: a gathered `packed` buffer back into position order.
void unpack_rows_by_owner(const double* packed, std::size_t stride, std::span<const int> owners,
                          const IntLayout& layout, double* rows);

}  // namespace hetscale::kernels
