// How rows of an N-row problem are shared among ranks in proportion to their speed
// weights (docs/science.md section 1, the "HoHe" strategy). Pure functions: the kernels use
// them for their MPI layouts, the tests check them without MPI.
#pragma once

#include <cstddef>
#include <memory>
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
/// rows of rank i, so every suffix (the rows still to eliminate) stays balanced too. The
/// blocked LU deals its blocks of columns the same way (weighted block-cyclic).
[[nodiscard]] std::vector<int> cyclic_owners(std::size_t n, std::span<const double> weights);

/// cyclic_owners(n, weights), dealt once for the ranks of one process that ask for the
/// same map in turn: the twin simulates every rank in one process, where each rank dealing
/// its own was 15% of a 1024-rank lu simulation (O(n p) each). Keeps the last map asked
/// for; thread-safe.
[[nodiscard]] std::shared_ptr<const std::vector<int>> shared_cyclic_owners(std::size_t n,
                                                                           std::span<const double> weights);

}  // namespace hetscale
