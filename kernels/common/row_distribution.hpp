// How rows of an N-row problem are shared among ranks in proportion to their speed
// weights (docs/science.md section 1, the "HoHe" strategy). Pure functions: the kernels use
// them for their MPI layouts, the tests check them without MPI.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hetscale {

/// Throws Error unless there is at least one weight and every weight is finite and > 0.
void validate_weights(std::span<const double> weights);

/// The weights scaled to sum to 1 (validated first).
[[nodiscard]] std::vector<double> normalise_weights(std::span<const double> weights);

/// Contiguous blocks: counts[i] rows go to rank i, proportional to weights[i], by the
/// largest-remainder method (floors first, then one extra row each to the largest
/// fractional parts, ties to the lower rank). The counts sum exactly to n; a rank may get
/// 0 rows when n is smaller than the number of ranks or its weight is tiny.
[[nodiscard]] std::vector<std::size_t> block_counts(std::size_t n, std::span<const double> weights);

/// First row of each block: the exclusive prefix sums of counts.
[[nodiscard]] std::vector<std::size_t> block_offsets(std::span<const std::size_t> counts);

/// Weighted row-cyclic owner map for Gaussian elimination: owners[r] is the rank of row r.
/// Rows are dealt one at a time by smooth weighted round-robin: every rank's credit
/// grows by its weight, the rank with the most credit (lowest rank on ties) takes the
/// row and pays 1. Every prefix of k rows then holds within one row of k * weight[i]
/// rows of rank i, so every suffix (the rows still to eliminate) stays balanced too.
[[nodiscard]] std::vector<int> cyclic_owners(std::size_t n, std::span<const double> weights);

/// Weighted block-cyclic owner map (the blocked LU factorisation deals its columns by it):
/// the n rows or columns are cut into blocks of `block` (the last one shorter), the blocks
/// are dealt as cyclic_owners deals rows, and owners[r] is the rank of r's block. Throws
/// Error when `block` is 0.
[[nodiscard]] std::vector<int> block_cyclic_owners(std::size_t n, std::size_t block,
                                                   std::span<const double> weights);

}  // namespace hetscale
