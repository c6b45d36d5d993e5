// The floating-point operations of each kernel's computing phases, for the SimGrid
// build's charged runs (--compute flops, docs/kernels.md). A rank is charged, for each
// phase, the phase's operation count on its own rows times the kernel's declared-work
// factor W(N) / (operation count of the whole run), so that the charges of all ranks and
// phases sum to the workload formula W(N) of serial/work_formula.hpp while keeping the
// proportions between ranks and phases that the code really has. For mm the factor is 1
// (2 N^3 is the exact count).
#pragma once

#include <cstddef>
#include <string_view>

namespace hetscale::kernels {

/// mm: a block of `rows` rows of A times the N x N matrix B: 2 rows N^2.
[[nodiscard]] double mm_multiply_operations(std::size_t rows, std::size_t n) noexcept;

/// ge, elimination step k (0-based) on `rows_below` rows below position k: each row one
/// division and N - k multiply-subtract pairs (columns k+1..N-1 and the right-hand side).
[[nodiscard]] double ge_step_operations(std::size_t rows_below, std::size_t n,
                                        std::size_t k) noexcept;

/// ge, back substitution on rank 0 (the sequential part): N^2.
[[nodiscard]] double ge_back_substitution_operations(std::size_t n) noexcept;

/// conv2d: `count` complex transforms of length N at the nominal 5 N lg N each.
[[nodiscard]] double fft_operations(std::size_t count, std::size_t n) noexcept;

/// conv2d, the point-wise product of `columns` columns of length N: 8 per entry (one
/// complex product and one real scaling).
[[nodiscard]] double conv2d_product_operations(std::size_t columns, std::size_t n) noexcept;

/// lu, the factorisation of a `rows` x `width` panel (rows >= width): at column j,
/// rows - 1 - j divisions and (rows - 1 - j)(width - 1 - j) multiply-subtract pairs.
[[nodiscard]] double lu_panel_operations(std::size_t rows, std::size_t width) noexcept;

/// lu, the block row of U: a `rows` x `rows` unit lower triangle solved against `cols`
/// columns: rows (rows - 1) cols.
[[nodiscard]] double lu_triangular_operations(std::size_t rows, std::size_t cols) noexcept;

/// lu, the dgemm update of `rows` rows by a block of depth `depth` over `cols` columns:
/// 2 rows depth cols.
[[nodiscard]] double lu_update_operations(std::size_t rows, std::size_t depth,
                                          std::size_t cols) noexcept;

/// lu, the solve with the factors on rank 0: forward substitution N (N - 1), back
/// substitution N^2.
[[nodiscard]] double lu_solve_operations(std::size_t n) noexcept;

/// The operation count of a whole run of `kernel` at size N (all ranks, all phases):
/// mm 2 N^3; ge 2/3 N^3 + 3/2 N^2 - 7/6 N; conv2d 30 N^2 lg N + 8 N^2; lu the
/// factorisation's 2/3 N^3 - 1/2 N^2 - 1/6 N plus the solve's 2 N^2 - N. Throws Error for
/// another name.
[[nodiscard]] double run_operations(std::string_view kernel, std::size_t n);

/// W(N) / run_operations(kernel, N): what every charge of a run is multiplied by (0 when
/// the run has no operation). Throws Error for another name.
[[nodiscard]] double declared_work_factor(std::string_view kernel, std::size_t n);

}  // namespace hetscale::kernels
