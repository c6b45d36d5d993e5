// Blocked LU building blocks of the MPI kernel `lu` (docs/kernels.md): the block sizes,
// the column step of the panel factorisation, and the solve with the factors. Rows are
// augmented as in `ge`: n coefficients then the right-hand side.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hetscale::kernels {

/// The largest block of columns (a panel's width) of `lu`.
inline constexpr std::size_t lu_max_block = 128;
/// The smallest: a block narrower than this makes the updates too thin for dgemm.
inline constexpr std::size_t lu_min_block = 8;
/// The width of the sub-panels a panel is factorised in (their updates go through dgemm).
inline constexpr std::size_t lu_inner_block = 16;

/// NB of `lu` at size n on `ranks` ranks: n / (8 ranks), clamped to [lu_min_block,
/// lu_max_block], so that every rank gets several blocks of columns whenever n allows it.
[[nodiscard]] std::size_t lu_block_size(std::size_t n, std::size_t ranks) noexcept;

/// LU factorisation with partial pivoting of a `rows` x `width` panel (rows >= width;
/// row-major, leading dimension `ld`), in place: L below the diagonal (unit diagonal not
/// stored), U on and above it. Column j's pivot is the row of largest magnitude at or
/// below j; pivots[j] is that row (relative to the panel), swapped with row j across the
/// panel's width only. Sub-panels of lu_inner_block columns: column steps inside, then
/// their block row of U (solve_unit_lower) and the rows below (multiply_subtract).
/// Throws Error naming column `first_column + j` when a column has no non-zero pivot.
void factor_panel(std::size_t rows, std::size_t width, double* a, std::size_t ld, std::size_t* pivots,
                  std::size_t first_column = 0);

/// Whole solve on one process, as `lu` does it on one rank: blocked LU of the augmented
/// rows (stride n + 1) by panels of `block` columns (factor_panel, the panel's row swaps
/// on the rest of the rows, solve_unit_lower, multiply_subtract), then
/// solve_with_factors. Overwrites `augmented` with the factors; throws Error when
/// singular. The marked-speed version of `lu`.
[[nodiscard]] std::vector<double> solve_blocked(std::size_t n, std::span<double> augmented,
                                                std::size_t block = lu_max_block);

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
