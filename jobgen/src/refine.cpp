#include "hetscale/jobgen/refine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <span>

#include "hetscale/jobgen/problem_sizes.hpp"

namespace hetscale::jobgen {
namespace {

constexpr double max_work_factor = 4;  // per round, so that a poor fit cannot run away

double work_at(const Workload& workload, double parameter) {
  return workload.evaluate(std::span<const double>(&parameter, 1));
}

// Mean E_s per distinct parameter, ascending.
std::map<double, double> means(const std::vector<EfficiencyPoint>& points) {
  std::map<double, std::pair<double, int>> sums;
  for (const auto& p : points) {
    auto& [sum, n] = sums[p.parameter];
    sum += p.efficiency;
    ++n;
  }
  std::map<double, double> out;
  for (const auto& [parameter, sum_n] : sums) out[parameter] = sum_n.first / sum_n.second;
  return out;
}

// The measured size whose mean E_s is closest to the target, if within tolerance.
const std::pair<const double, double>* reached(const std::map<double, double>& mean, const RefineSettings& s) {
  const std::pair<const double, double>* best = nullptr;
  for (const auto& entry : mean) {
    const double miss = std::abs(entry.second - s.target);
    if (miss <= s.tolerance * s.target && (best == nullptr || miss < std::abs(best->second - s.target)))
      best = &entry;
  }
  return best;
}

std::vector<double> around(double estimate, const RefineSettings& s) {
  std::vector<double> raw{estimate};
  for (double step : s.steps) {
    raw.push_back(estimate * (1 - step));
    raw.push_back(estimate * (1 + step));
  }
  std::sort(raw.begin(), raw.end());
  std::vector<double> out;
  for (double v : raw) {
    if (s.integer) v = std::max(1.0, std::round(v));
    if (out.empty() || v > out.back()) out.push_back(v);
  }
  return out;
}

double solve_for_work(const Workload& workload, double work, double near) {
  // parameter_for_work searches upwards from its start; start low enough to cover halving.
  double from = near;
  while (from > 1e-9 && work_at(workload, from) > work) from /= 2;
  return parameter_for_work(workload, work, from);
}

}  // namespace

RefineSettings RefineSettings::from(const ExperimentSpec& spec, std::uint32_t round) {
  return {spec.target_efficiency, spec.refine.steps, spec.refine.tolerance, spec.refine.max_rounds, round,
          spec.parameter.integer};
}

double extrapolate_parameter(const std::vector<EfficiencyPoint>& points, const Workload& workload, double target) {
  const auto mean = means(points);
  const double lo = mean.begin()->first;
  const double hi = mean.rbegin()->first;
  const bool larger = mean.rbegin()->second < target;  // E_s rises with W: go up when short
  const double edge = larger ? hi : lo;
  const double edge_work = work_at(workload, edge);
  // Least squares of y = 1/E on x = 1/W; needs two sizes and positive efficiencies.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (const auto& [parameter, e] : mean) {
    if (e <= 0) continue;
    const double x = 1 / work_at(workload, parameter);
    sx += x, sy += 1 / e, sxx += x * x, sxy += x / e;
    ++n;
  }
  double work = larger ? edge_work * 2 : edge_work / 2;
  const double det = n * sxx - sx * sx;
  if (n >= 2 && det > 0) {
    const double b = (n * sxy - sx * sy) / det;
    const double a = (sy - b * sx) / n;
    if (b > 0 && 1 / target > a) work = b / (1 / target - a);
  }
  work = std::clamp(work, edge_work / max_work_factor, edge_work * max_work_factor);
  return solve_for_work(workload, work, edge);
}

SetRefinement refine_set(std::size_t set_index, const std::vector<EfficiencyPoint>& points, const Workload& workload,
                         const RefineSettings& settings) {
  SetRefinement out;
  out.set_index = set_index;
  if (points.empty()) {
    out.explanation = fmt::format("set {}: no runs collected", set_index);
    return out;
  }
  const auto mean = means(points);
  if (const auto* hit = reached(mean, settings)) {
    out.status = SetRefinement::Status::reached;
    out.estimate = hit->first;
    out.explanation = fmt::format("set {}: E_s = {:.4g} at {} is within {:g}% of the target {:g}", set_index,
                                  hit->second, hit->first, settings.tolerance * 100, settings.target);
    return out;
  }
  if (settings.round >= settings.max_rounds) {
    out.status = SetRefinement::Status::exhausted;
    out.explanation = fmt::format("set {}: target {:g} not reached within {} refinement round{}", set_index,
                                  settings.target, settings.max_rounds, settings.max_rounds == 1 ? "" : "s");
    return out;
  }
  const auto reading = EfficiencyCurve::fit(points).parameter_at(settings.target);
  out.status = SetRefinement::Status::refine;
  if (reading.status == TargetReading::Status::found) {
    out.estimate = reading.parameter;
    out.explanation = fmt::format("set {}: the fitted curve reaches {:g} at {:.6g}", set_index, settings.target,
                                  reading.parameter);
  } else {
    out.estimate = extrapolate_parameter(points, workload, settings.target);
    out.explanation = fmt::format("set {}: the target {:g} lies outside the measured sizes; extrapolated to {:.6g}",
                                  set_index, settings.target, out.estimate);
  }
  // A size the set has measured already is not run again: its repetitions are stored, and
  // running them again would store each repetition of that size twice.
  std::vector<double> left_out;
  for (double v : around(out.estimate, settings)) {
    if (mean.contains(v))
      left_out.push_back(v);
    else
      out.parameter_values.push_back(v);
  }
  if (out.parameter_values.empty()) {
    out.status = SetRefinement::Status::already_measured;
    out.explanation += "; every size around it is measured already";
  } else if (!left_out.empty()) {
    out.explanation += fmt::format("; {:g} measured already, left out", fmt::join(left_out, ", "));
  }
  return out;
}

Round refined_round(const Round& previous, const std::vector<SetRefinement>& refinements) {
  Round next = previous;
  next.number = previous.number + 1;
  for (RoundSet& s : next.sets) {
    s.parameter_values.clear();
    for (const SetRefinement& r : refinements)
      if (r.set_index == s.set.index && r.status == SetRefinement::Status::refine) s.parameter_values = r.parameter_values;
  }
  return next;
}

}  // namespace hetscale::jobgen
