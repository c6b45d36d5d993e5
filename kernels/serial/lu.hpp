// Blocked LU building blocks of the MPI kernel `lu` (docs/kernels.md): the block sizes,
// the column step of the panel factorisation, and the solve with the factors. Rows are
// augmented as in `ge`: n coefficients then the right-hand side.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hetscale::kernels {

/// The largest block of rows (and of columns of a panel) of `lu`.
inline constexpr std::size_t lu_max_block = 128;
/// The smallest: a block narrower than this makes the updates too thin for dgemm.
inline constexpr std::size_t lu_min_block = 8;
/// The width of the sub-panels a panel is factorised in (their updates go through dgemm).
inline constexpr std::size_t lu_inner_block = 16;

/// NB of `lu` at size n on `ranks` ranks: n / (8 ranks), clamped to [lu_min_block,
/// lu_max_block], so that every rank gets several blocks of rows whenever n allows it.
[[nodiscard]] std::size_t lu_block_size(std::size_t n, std::size_t ranks) noexcept;

/// One column step of the panel factorisation, both spans starting at the pivot column:
/// row[0] becomes the multiplier row[0] / pivot[0] (the entry of L) and
/// row[1..len) -= multiplier * pivot[1..len). Vectorised.
void eliminate_keeping_multiplier(double* row, const double* pivot, std::size_t len) noexcept;

/// Solves L U x = c with the factors held in the augmented rows (stride n + 1) of
/// `factors`: L unit lower (strictly below the diagonal), U upper (on and above it), c
/// the last column (the right-hand side in the pivoted row order). Forward substitution
/// overwrites the last column with L^-1 c, then back substitution gives x.
[[nodiscard]] std::vector<double> solve_with_factors(std::size_t n, std::span<double> factors);

}  // namespace hetscale::kernels
