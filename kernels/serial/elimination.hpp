// Gaussian elimination building blocks shared by the MPI kernel `ge` and its one-process
// marked-speed version. Rows are augmented: n coefficients then the right-hand side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace hetscale::kernels {

/// HPL's acceptance threshold for the scaled residual (see scaled_residual).
inline constexpr double residual_bound = 16.0;

/// row[1..len) -= (row[0] / pivot[0]) * pivot[1..len): eliminates one entry of a row,
/// where both spans start at the pivot column. The hot loop of `ge`; vectorised.
void eliminate_entry(double* row, const double* pivot, std::size_t len) noexcept;

/// The pivot position a charged run (--compute flops, which searches nothing) takes at
/// column k of an n x n elimination: pseudo-random, uniform over k..n-1 (as partial
/// pivoting picks on a random matrix), the same on every rank, so that the row exchanges
/// still cost their messages. Shared by `ge` and `lu`.
[[nodiscard]] std::size_t stand_in_pivot(std::uint64_t seed, std::size_t n, std::size_t k) noexcept;

/// Solves the upper-triangular system held in the augmented rows (stride n + 1) of
/// `upper`; entries left of the diagonal are ignored.
[[nodiscard]] std::vector<double> back_substitute(std::size_t n, std::span<const double> upper);

/// ||A x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n), A taken from the augmented
/// rows (stride n + 1) of `augmented`, b its last column. Below residual_bound = correct.
[[nodiscard]] double scaled_residual(std::size_t n, std::span<const double> augmented,
                                     std::span<const double> x);

/// Whole solve on one process (partial pivoting, row swaps); overwrites `augmented`.
/// Throws Error on an exactly singular matrix.
[[nodiscard]] std::vector<double> solve_serial(std::size_t n, std::span<double> augmented);

}  // namespace hetscale::kernels
