// The twin's larger sets, begun one round at a time from what the smaller ones found.
#include <fmt/format.h>

#include <cmath>
#include <span>

#include "hetscale/jobgen/problem_sizes.hpp"
#include "hetscale/model/efficiency_fit.hpp"
#include "hetscale/twin/simulated_round.hpp"

namespace hetscale::twin {
namespace {

// The work at which set `index`'s runs read the target, as the refinement reads it: where
// they bracket it, or at the measured size whose E_s is within the spec's tolerance of it
// (a set the refinement counts as reached gets no more runs, so its successor must not
// wait for it to bracket the target).
std::optional<double> found_work(const std::map<std::size_t, std::vector<EfficiencyPoint>>& points,
                                 std::size_t index, const jobgen::Round& round) {
  const auto it = points.find(index);
  if (it == points.end() || it->second.empty()) return std::nullopt;
  const TargetReading reading = EfficiencyCurve::fit(it->second).parameter_within(
      round.spec.target_efficiency, round.spec.refine.tolerance);
  if (!reading.has_parameter()) return std::nullopt;
  const double parameter = reading.parameter;
  return round.spec.workload.evaluate(std::span<const double>(&parameter, 1));
}

}  // namespace

std::optional<std::size_t> begin_next_set(jobgen::Round& next, const std::vector<jobgen::MeasuredRun>& runs,
                                          const Say& say) {
  const auto points = jobgen::measured_points(runs, next);
  for (std::size_t k = 0; k < next.sets.size(); ++k) {
    jobgen::RoundSet& set = next.sets[k];
    const auto it = points.find(set.set.index);
    if (it != points.end() && !it->second.empty()) continue;  // begun already
    if (k < 2) return std::nullopt;  // too few sets below it to place it from
    const jobgen::RoundSet& below = next.sets[k - 1];
    const jobgen::RoundSet& second = next.sets[k - 2];
    const std::optional<double> work_below = found_work(points, below.set.index, next);
    const std::optional<double> work_second = found_work(points, second.set.index, next);
    if (!work_below || !work_second) return std::nullopt;  // it waits for them
    // psi = C' W / (C W'), between the two sets below; taken again for the next doubling.
    const double psi = (below.set.marked_speed * *work_second) / (second.set.marked_speed * *work_below);
    const double work = *work_below * (set.set.marked_speed / below.set.marked_speed) / psi;
    set.parameter_values.clear();
    for (const double factor : {0.5, 1.0, 2.0}) {
      double v = jobgen::parameter_for_work(next.spec.workload, work * factor, 1);
      if (next.spec.parameter.integer) v = std::max(1.0, std::round(v));
      if (set.parameter_values.empty() || v > set.parameter_values.back()) set.parameter_values.push_back(v);
    }
    say(LineKind::result,
        fmt::format("set {}: begins at {} = {:g} (psi {:.3g} between sets {} and {} puts its target at W = {:.4g}), "
                    "half and twice that work\n",
                    set.set.index, next.spec.parameter.name, set.parameter_values[set.parameter_values.size() / 2],
                    psi, second.set.index, below.set.index, work));
    return set.set.index;
  }
  return std::nullopt;
}

}  // namespace hetscale::twin
