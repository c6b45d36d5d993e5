// Weighted isotonic regression (pool-adjacent-violators). Internal to hetscale_core.
#pragma once

#include <span>
#include <vector>

namespace hetscale::detail {

/// The non-decreasing sequence closest to `values` in weighted least squares: runs of
/// values that violate the order are pooled into their weighted mean.
/// `weights` must be positive and as long as `values`.
std::vector<double> isotonic_non_decreasing(std::span<const double> values,
                                            std::span<const double> weights);

}  // namespace hetscale::detail
