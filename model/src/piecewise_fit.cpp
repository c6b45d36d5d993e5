// Segmented regression of a message's time in its size (piecewise_fit.hpp).
#include "hetscale/model/piecewise_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale {
namespace {

// The splits tried grow with the square of the sizes, each fit with their points.
constexpr std::size_t kMaxSizes = 1000;

// Points of one size: [begin, end) of the sorted points.
struct SizeGroup {
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct SegmentFit {
  LinearSegment line;
  double rss = 0;  // sum of squared relative residuals
};

// Least squares in relative error over the sorted points [begin, end), which hold at least
// two distinct sizes: weights 1 / y^2, centred sums for accuracy over decades of sizes.
SegmentFit fit_segment(std::span<const SizedTime> points, std::size_t begin, std::size_t end) {
  double w = 0, wx = 0, wy = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double weight = 1 / (points[i].seconds * points[i].seconds);
    w += weight;
    wx += weight * points[i].bytes;
    wy += weight * points[i].seconds;
  }
  const double mx = wx / w, my = wy / w;
  double sxx = 0, sxy = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double weight = 1 / (points[i].seconds * points[i].seconds);
    sxx += weight * (points[i].bytes - mx) * (points[i].bytes - mx);
    sxy += weight * (points[i].bytes - mx) * (points[i].seconds - my);
  }
  SegmentFit out;
  out.line.first_bytes = points[begin].bytes;
  out.line.last_bytes = points[end - 1].bytes;
  out.line.seconds_per_byte = sxx > 0 ? sxy / sxx : 0;
  out.line.latency_seconds = my - out.line.seconds_per_byte * mx;
  for (std::size_t i = begin; i < end; ++i) {
    const double r = (points[i].seconds - out.line.at(points[i].bytes)) / points[i].seconds;
    out.rss += r * r;
  }
  return out;
}

}  // namespace

const LinearSegment& PiecewiseLinearFit::segment_of(double bytes) const {
  if (segments.empty()) throw Error("a piecewise-linear fit without segments");
  const std::vector<double> cuts = boundaries();
  for (std::size_t k = 0; k < cuts.size(); ++k)
    if (bytes <= cuts[k]) return segments[k];
  return segments.back();
}

double PiecewiseLinearFit::at(double bytes) const { return std::max(0.0, segment_of(bytes).at(bytes)); }

std::vector<double> PiecewiseLinearFit::boundaries() const {
  std::vector<double> cuts;
  for (std::size_t k = 0; k + 1 < segments.size(); ++k)
    cuts.push_back(std::sqrt(std::max(segments[k].last_bytes, 0.0) * segments[k + 1].first_bytes));
  return cuts;
}

PiecewiseLinearFit fit_piecewise_linear(std::span<const SizedTime> given, const PiecewiseFitOptions& options) {
  std::vector<SizedTime> points;
  for (const SizedTime& p : given) points.push_back(p);
  for (const SizedTime& p : points) {
    if (!std::isfinite(p.bytes) || p.bytes < 0)
      throw Error("a message size must be a finite number of bytes >= 0, not " + detail::shortest_text(p.bytes));
    if (!std::isfinite(p.seconds) || p.seconds <= 0)
      throw Error("the time of a message of " + detail::shortest_text(p.bytes) +
                  " bytes must be positive and finite, not " + detail::shortest_text(p.seconds));
  }
  std::stable_sort(points.begin(), points.end(), [](const SizedTime& a, const SizedTime& b) { return a.bytes < b.bytes; });
  std::vector<SizeGroup> groups;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (groups.empty() || points[i].bytes != points[groups.back().begin].bytes) groups.push_back({i, i});
    groups.back().end = i + 1;
  }
  if (groups.size() < 2) throw Error("a piecewise-linear fit needs at least 2 different message sizes");
  if (groups.size() > kMaxSizes)
    throw Error("a piecewise-linear fit takes at most " + std::to_string(kMaxSizes) + " different message sizes, not " +
                std::to_string(groups.size()));
  const std::size_t g = groups.size();
  const std::size_t least = std::max<std::size_t>(2, options.min_sizes_per_segment);
  const std::size_t most = std::max<std::size_t>(1, std::min(options.max_segments, std::max<std::size_t>(1, g / least)));

  // fits(i, j): the sizes of groups i..j-1 on one line (j - i >= least, or all of them).
  std::vector<SegmentFit> all_fits;
  all_fits.resize(g * (g + 1));
  const auto fits = [&](std::size_t i, std::size_t j) -> SegmentFit& { return all_fits[i * (g + 1) + j]; };
  const std::size_t shortest = std::min(least, g);
  for (std::size_t i = 0; i < g; ++i)
    for (std::size_t j = i + shortest; j <= g; ++j)
      fits(i, j) = fit_segment(points, groups[i].begin, groups[j - 1].end);

  // best[k][j]: the least RSS of the first j groups in k + 1 segments; from[k][j] where its
  // last segment starts.
  constexpr double none = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(most, std::vector<double>(g + 1, none));
  std::vector<std::vector<std::size_t>> from(most, std::vector<std::size_t>(g + 1, 0));
  for (std::size_t j = shortest; j <= g; ++j) best[0][j] = fits(0, j).rss;
  for (std::size_t k = 1; k < most; ++k)
    for (std::size_t j = (k + 1) * least; j <= g; ++j)
      for (std::size_t i = k * least; i + least <= j; ++i) {
        if (best[k - 1][i] == none) continue;
        const double rss = best[k - 1][i] + fits(i, j).rss;
        if (rss < best[k][j]) {
          best[k][j] = rss;
          from[k][j] = i;
        }
      }

  const double n = static_cast<double>(points.size());
  const double floor = n * 1e-20;  // an exact fit: relative residuals of 1e-10
  std::size_t chosen = 0;
  double chosen_bic = none;
  for (std::size_t k = 0; k < most; ++k) {
    if (best[k][g] == none) continue;
    const double parameters = 3.0 * static_cast<double>(k + 1) - 1;
    const double bic = n * std::log(std::max(best[k][g], floor) / n) + parameters * std::log(n);
    if (bic < chosen_bic) {
      chosen_bic = bic;
      chosen = k;
    }
  }
  PiecewiseLinearFit out;
  out.points = points.size();
  out.bic = chosen_bic;
  out.relative_rms = std::sqrt(best[chosen][g] / n);
  std::size_t j = g;
  for (std::size_t k = chosen + 1; k-- > 0;) {
    const std::size_t i = k == 0 ? 0 : from[k][j];
    out.segments.push_back(fits(i, j).line);
    j = i;
  }
  std::reverse(out.segments.begin(), out.segments.end());
  return out;
}

}  // namespace hetscale
