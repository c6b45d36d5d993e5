// The local dense products and triangular solves, through OpenBLAS, and the Freivalds
// check of a product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace hetscale::kernels {

/// One BLAS thread per caller: one rank per processor (or one worker thread per
/// processor in the marked-speed benchmark) must not fan out over the other processors.
void use_single_threaded_blas() noexcept;

/// OpenBLAS's build description (for the run record's fingerprint).
[[nodiscard]] std::string blas_config();

/// c (rows x n) = a (rows x n) * b (n x n), row-major. rows may be 0.
void multiply(std::size_t rows, std::size_t n, const double* a, const double* b, double* c) noexcept;

/// c (rows x cols, leading dimension ldc) -= a (rows x depth, lda) * b (depth x cols, ldb),
/// row-major: the trailing-matrix update of `lu`. Nothing when a dimension is 0.
void multiply_subtract(std::size_t rows, std::size_t cols, std::size_t depth, const double* a,
                       std::size_t lda, const double* b, std::size_t ldb, double* c,
                       std::size_t ldc) noexcept;

/// b (rows x cols, ldb) = L^-1 b in place, L the rows x rows unit lower triangle of `l`
/// (leading dimension ldl; the diagonal and the upper part are not read), row-major: the
/// block row of U in `lu`. Nothing when a dimension is 0.
void solve_unit_lower(std::size_t rows, std::size_t cols, const double* l, std::size_t ldl, double* b,
                      std::size_t ldb) noexcept;

struct FreivaldsResult {
  bool ok = false;
  double worst_ratio = 0;  // max_i |(C r - A (B r))_i| / bound_i over all rounds
};

/// Checks C == A B (n x n, row-major) with `rounds` random +-1 vectors r: every
/// |(C r - A (B r))_i| must stay within 8 n eps (|A| |B| |r|)_i, the rounding bound of
/// the products involved. A wrong entry of C is caught in every round.
[[nodiscard]] FreivaldsResult freivalds_check(std::size_t n, std::span<const double> a,
                                              std::span<const double> b, std::span<const double> c,
                                              std::uint64_t seed, int rounds = 3);

}  // namespace hetscale::kernels
