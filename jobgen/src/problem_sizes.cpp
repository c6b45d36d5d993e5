#include "hetscale/jobgen/problem_sizes.hpp"

#include <fmt/format.h>

#include <cmath>
#include <span>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale::jobgen {
namespace {

double work_at(const Workload& workload, double parameter) {
  return workload.evaluate(std::span<const double>(&parameter, 1));
}

}  // namespace

std::vector<double> geometric_values(double lo, double hi, std::size_t count, bool integer) {
  std::vector<double> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double t = count == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(count - 1);
    // Ends exactly as given: exp(log(x)) need not round-trip.
    double v = i == 0 ? lo : (i + 1 == count ? hi : std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo))));
    if (integer) v = std::max(1.0, std::round(v));
    if (out.empty() || v > out.back()) out.push_back(v);
  }
  return out;
}

double parameter_for_work(const Workload& workload, double work, double from) {
  constexpr double limit = 1e15;
  double lo = from;
  double hi = from;
  while (work_at(workload, hi) < work) {
    lo = hi;
    hi *= 2;
    if (hi > limit) throw Error(fmt::format("no parameter value below 1e15 gives the work {}", work));
  }
  if (hi == lo) return lo;
  // 200 halvings of a log interval reach the double's resolution long before the end.
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = std::sqrt(lo * hi);
    (work_at(workload, mid) < work ? lo : hi) = mid;
  }
  return hi;
}

std::vector<double> scaled_values(const Workload& workload, const std::vector<double>& base,
                                  const SizeScaling& scaling, bool integer) {
  if (scaling.steps == 0 || base.empty()) return base;
  const double widen = std::pow(scaling.psi_floor, -static_cast<double>(scaling.steps));
  const double lo_work = work_at(workload, base.front()) * scaling.speed_ratio;
  const double hi_work = work_at(workload, base.back()) * scaling.speed_ratio * widen;
  const double lo = parameter_for_work(workload, lo_work, base.front());
  const double hi = parameter_for_work(workload, hi_work, std::max(lo, base.back()));
  return geometric_values(lo, hi, base.size(), integer);
}

}  // namespace hetscale::jobgen
