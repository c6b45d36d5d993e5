// Monotone piecewise-cubic Hermite interpolation (Fritsch & Carlson 1980).
// Internal to hetscale_core.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hetscale::detail {

/// Slopes at the knots (x strictly ascending, y non-decreasing, at least 2 knots) such
/// that the Hermite cubic through them is non-decreasing on every interval.
std::vector<double> monotone_slopes(std::span<const double> x, std::span<const double> y);

/// Value of the Hermite cubic on interval [x[k], x[k+1]] at position `at`.
double hermite_value(std::span<const double> x, std::span<const double> y,
                     std::span<const double> slopes, std::size_t k, double at);

}  // namespace hetscale::detail
