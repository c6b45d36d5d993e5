// Golden-section search for the minimum of a function of one variable on an interval: the
// one line search of the model (the equalization's descent, the simulation's pairwise
// optimisation). Internal to hetscale_model.
#pragma once

#include <cmath>

namespace hetscale::detail {

/// The middle of the bracket [low, high] after at most `iterations` golden-section steps,
/// or fewer once the bracket is no wider than `width` (0: all of them). Assumes one
/// minimum inside; callers compare the result with the ends or the current point.
template <typename Function>
double golden_section_minimum(Function&& f, double low, double high, int iterations, double width = 0) {
  const double golden = (std::sqrt(5.0) - 1) / 2;
  double x1 = high - golden * (high - low);
  double x2 = low + golden * (high - low);
  double f1 = f(x1);
  double f2 = f(x2);
  for (int iteration = 0; iteration < iterations && high - low > width; ++iteration) {
    if (f1 < f2) {
      high = x2, x2 = x1, f2 = f1;
      x1 = high - golden * (high - low);
      f1 = f(x1);
    } else {
      low = x1, x1 = x2, f1 = f2;
      x2 = low + golden * (high - low);
      f2 = f(x2);
    }
  }
  return 0.5 * (low + high);
}

}  // namespace hetscale::detail
