#include "monotone_cubic.hpp"

#include <algorithm>
#include <cmath>

namespace hetscale::detail {
namespace {

// Three-point end slope (as in PCHIP), kept within the monotone range [0, 3 delta0].
double end_slope(double h0, double h1, double delta0, double delta1) {
  const double m = ((2 * h0 + h1) * delta0 - h0 * delta1) / (h0 + h1);
  if (delta0 == 0 || m < 0) return 0;
  return std::min(m, 3 * delta0);
}

}  // namespace

std::vector<double> monotone_slopes(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = x.size();
  std::vector<double> h(n - 1);
  std::vector<double> delta(n - 1);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    h[k] = x[k + 1] - x[k];
    delta[k] = (y[k + 1] - y[k]) / h[k];
  }
  std::vector<double> m(n, 0.0);
  if (n == 2) {
    m[0] = m[1] = delta[0];
    return m;
  }
  // Initial slopes: second-order centred differences on the uneven grid; zero next to
  // a flat interval, so that a plateau stays flat.
  m[0] = end_slope(h[0], h[1], delta[0], delta[1]);
  m[n - 1] = end_slope(h[n - 2], h[n - 3], delta[n - 2], delta[n - 3]);
  for (std::size_t k = 1; k + 1 < n; ++k) {
    if (delta[k - 1] == 0 || delta[k] == 0) continue;
    m[k] = (h[k] * delta[k - 1] + h[k - 1] * delta[k]) / (h[k - 1] + h[k]);
  }
  // Fritsch-Carlson: on each interval (a, b) = (m_k, m_k+1) / delta_k must lie in the
  // circle a^2 + b^2 <= 9, a sufficient condition for a monotone cubic. Shrinking only
  // lowers slopes, so intervals already fixed stay monotone.
  for (std::size_t k = 0; k + 1 < n; ++k) {
    if (delta[k] == 0) {
      m[k] = m[k + 1] = 0;
      continue;
    }
    const double a = m[k] / delta[k];
    const double b = m[k + 1] / delta[k];
    const double r2 = a * a + b * b;
    if (r2 > 9) {
      const double tau = 3 / std::sqrt(r2);
      m[k] = tau * a * delta[k];
      m[k + 1] = tau * b * delta[k];
    }
  }
  return m;
}

double hermite_value(std::span<const double> x, std::span<const double> y,
                     std::span<const double> slopes, std::size_t k, double at) {
  const double h = x[k + 1] - x[k];
  const double t = (at - x[k]) / h;
  const double t2 = t * t;
  const double t3 = t2 * t;
  const double value = (2 * t3 - 3 * t2 + 1) * y[k] + (t3 - 2 * t2 + t) * h * slopes[k] +
                       (-2 * t3 + 3 * t2) * y[k + 1] + (t3 - t2) * h * slopes[k + 1];
  // Rounding must not push the value outside the interval's range.
  return std::clamp(value, y[k], y[k + 1]);
}

}  // namespace hetscale::detail
