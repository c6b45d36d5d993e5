// Problem sizes of a study (docs/science.md section 1, "Finding W' in practice"): geometric
// series of the parameter, scaled from set to set through the workload formula so that
// every set's series is likely to bracket the target speed-efficiency.
#pragma once

#include <cstddef>
#include <vector>

#include "hetscale/model/workload.hpp"

namespace hetscale::jobgen {

/// `count` values from `lo` to `hi` (both included) with a constant ratio. With `integer`,
/// each is rounded to the nearest whole number and repeats are dropped, so fewer values may
/// come back.
std::vector<double> geometric_values(double lo, double hi, std::size_t count, bool integer);

/// The parameter N >= `from` at which the one-parameter `workload` equals `work`, by
/// bisection on ln N (W must grow with N there; W(from) <= work). Throws Error when no such
/// N exists below 1e15.
double parameter_for_work(const Workload& workload, double work, double from);

/// How a later set's sizes follow from the first set's.
struct SizeScaling {
  double speed_ratio = 1;   // C_k / C_0 (marked speeds of the set and of the first set)
  double psi_floor = 1;     // lowest psi expected between consecutive sets
  std::size_t steps = 0;    // k: sets between the first and this one
};

/// Sizes for set k from the first set's ascending sizes `base`. With psi = 1 the
/// isospeed-e condition gives W' = W C_k / C_0; the smallest size is scaled so, the largest
/// also allows psi_floor^k (W' = W C_k / (C_0 psi_floor^k)), reaching towards larger W; the
/// values in between are geometric. For k = 0 the base sizes come back unchanged.
std::vector<double> scaled_values(const Workload& workload, const std::vector<double>& base,
                                  const SizeScaling& scaling, bool integer);

}  // namespace hetscale::jobgen
