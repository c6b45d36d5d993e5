#include "common/layout.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale::kernels {

IntLayout int_layout(const std::vector<std::size_t>& rows, std::size_t items_per_row) {
  IntLayout layout;
  std::size_t offset = 0;
  for (std::size_t r : rows) {
    const std::size_t count = r * items_per_row;
    if ((items_per_row != 0 && count / items_per_row != r) || offset + count > static_cast<std::size_t>(INT_MAX)) {
      throw Error("problem too large for MPI's int counts (" + std::to_string(offset + count) + " items)");
    }
    layout.counts.push_back(static_cast<int>(count));
    layout.displacements.push_back(static_cast<int>(offset));
    offset += count;
  }
  return layout;
}

void pack_rows_by_owner(const double* rows, std::size_t stride, std::span<const int> owners,
                        const IntLayout& layout, double* packed) {
  std::vector<std::size_t> next(layout.displacements.begin(), layout.displacements.end());
  for (std::size_t g = 0; g < owners.size(); ++g) {
    std::size_t& at = next[static_cast<std::size_t>(owners[g])];
    std::copy_n(rows + g * stride, stride, packed + at);
    at += stride;
  }
}

void unpack_rows_by_owner(const double* packed, std::size_t stride, std::span<const int> owners,
                          const IntLayout& layout, double* rows) {
  std::vector<std::size_t> next(layout.displacements.begin(), layout.displacements.end());
  for (std::size_t g = 0; g < owners.size(); ++g) {
    std::size_t& at = next[static_cast<std::size_t>(owners[g])];
    std::copy_n(packed + at, stride, rows + g * stride);
    at += stride;
  }
}

}  // namespace hetscale::kernels
