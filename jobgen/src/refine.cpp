#include "hetscale/jobgen/refine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <span>

#include "hetscale/base/number_text.hpp"
#include "hetscale/jobgen/problem_sizes.hpp"
#include "hetscale/model/bootstrap.hpp"

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

// Repetitions to add at the two bracketing sizes (runs at each: `counts`), in whole
// repetitions of `per` runs: enough for 2 runs at each, then as many as n (hw / precision)^2
// asks of the n runs there (all n again when there is no half-width), at most n more (the
// interval is read again after each round) and at most `budget` runs. Split between the two
// sizes, the lower first.
std::array<std::uint32_t, 2> added_repetitions(const std::array<std::size_t, 2>& counts,
                                               const std::optional<double>& half_width, double precision,
                                               std::size_t budget, std::size_t per) {
  const auto to_two = [&](std::size_t j) { return counts[j] < 2 ? (2 - counts[j] + per - 1) / per : 0; };
  const std::size_t n = counts[0] + counts[1];
  std::size_t wanted = n;  // runs: double them without a half-width to go by
  if (half_width) {
    const double ratio = *half_width / precision;
    wanted = static_cast<std::size_t>(std::ceil(static_cast<double>(n) * ratio * ratio)) - n;
  }
  std::size_t total = std::max(to_two(0) + to_two(1), (std::min(wanted, n) + per - 1) / per);
  total = std::min(total, budget / per);
  std::array<std::uint32_t, 2> reps{0, 0};
  for (std::size_t j = 0; j < 2; ++j) {  // 2 runs at each size first
    const std::size_t lift = std::min(total, to_two(j));
    reps[j] = static_cast<std::uint32_t>(lift);
    total -= lift;
  }
  for (std::size_t j = 0; total > 0; j = 1 - j, --total) ++reps[j];
  return reps;
}

std::string size_list(const std::vector<double>& sizes, const std::vector<std::vector<std::uint32_t>>& reps) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    parts.push_back(fmt::format("{} at {:g}", reps[i].size(), sizes[i]));
  return fmt::format("{}", fmt::join(parts, " and "));
}

// With [refine] precision: the next step of a set whose runs bracket the target closely
// (a parameter at the target, as analyze reads it, between two sizes no farther apart
// than the refinement's widest steps around an estimate, or with a size whose mean E_s is
// within tolerance of the target); nothing for a set that does not, which the sizes rule
// refines. The interval resamples the runs through the fitted curve: between sizes far
// apart it says how noisy the runs are, not how far the curve between them may be off.
std::optional<SetRefinement> refine_by_precision(std::size_t set_index, const std::vector<EfficiencyPoint>& points,
                                                 const std::map<double, std::uint32_t>& next_repetition,
                                                 const RefineSettings& settings) {
  const double precision = *settings.precision;
  const EfficiencyCurve curve = EfficiencyCurve::fit(points);
  const TargetReading reading = curve.parameter_within(settings.target, settings.tolerance);
  const auto bracket = bracketing_sizes(curve, reading);
  if (!bracket) return std::nullopt;
  const auto& knots = curve.knots();
  const double widest = settings.steps.empty() ? 0 : settings.steps.back();
  const bool close = knots[(*bracket)[1]].parameter <= knots[(*bracket)[0]].parameter * (1 + widest) / (1 - widest);
  if (!close && reached(means(points), settings) == nullptr) return std::nullopt;
  BootstrapOptions options;
  options.seed = required_parameter_seed(settings.experiment, static_cast<int>(set_index), settings.target);
  const ParameterInterval interval =
      required_parameter_interval(points, settings.target, settings.tolerance, options);
  const PrecisionCheck check = check_precision(precision, reading.parameter, interval.interval, points.size());
  SetRefinement out;
  out.set_index = set_index;
  out.estimate = reading.parameter;
  const std::string figure =
      fmt::format("set {}: the parameter {} at the target {:g}", set_index,
                  interval_text(reading.parameter, interval.interval.low, interval.interval.high, interval.interval.reason),
                  settings.target);
  if (check.reached) {
    out.status = SetRefinement::Status::reached;
    out.explanation = fmt::format("{}: {}", figure, check.text);
    return out;
  }
  out.status = SetRefinement::Status::precision_not_reached;
  if (settings.round >= settings.max_rounds) {
    out.explanation = fmt::format("{}: {}; {} refinement round{} spent", figure, check.text, settings.max_rounds,
                                  settings.max_rounds == 1 ? "" : "s");
    return out;
  }
  const std::size_t budget =
      settings.max_runs_per_set > points.size() ? settings.max_runs_per_set - points.size() : 0;
  const std::array<std::size_t, 2> counts{knots[(*bracket)[0]].repeats, knots[(*bracket)[1]].repeats};
  const std::size_t per = std::max<std::size_t>(1, settings.runs_per_repetition);
  const auto reps = added_repetitions(counts, check.half_width, precision, budget, per);
  for (std::size_t j = 0; j < 2; ++j) {
    if (reps[j] == 0) continue;
    const double size = knots[(*bracket)[j]].parameter;
    const auto next = next_repetition.find(size);
    const std::uint32_t first = next == next_repetition.end() ? 0 : next->second;
    out.parameter_values.push_back(size);
    auto& numbers = out.repetitions.emplace_back();
    for (std::uint32_t r = 0; r < reps[j]; ++r) numbers.push_back(first + r);
  }
  if (out.parameter_values.empty()) {
    out.explanation = fmt::format("{}: {}; the budget of {} runs per set spent", figure, check.text,
                                  settings.max_runs_per_set);
    return out;
  }
  out.status = SetRefinement::Status::repeat;
  out.explanation = fmt::format("{}: {}; {} more repetition(s): {} (budget {} runs)", figure, check.text,
                                reps[0] + reps[1], size_list(out.parameter_values, out.repetitions),
                                settings.max_runs_per_set);
  return out;
}

}  // namespace

RefineSettings RefineSettings::from(const ExperimentSpec& spec, std::uint32_t round) {
  return {spec.target_efficiency, spec.refine.steps,     spec.refine.tolerance,
          spec.refine.max_rounds, round,                 spec.parameter.integer,
          spec.refine.precision,  spec.refine.max_runs_per_set, spec.name,
          spec.slurm.weights.size()};
}

std::string_view to_string(SetRefinement::Status status) {
  switch (status) {
    case SetRefinement::Status::reached: return precision_reached_status;
    case SetRefinement::Status::refine: return "refine";
    case SetRefinement::Status::exhausted: return "exhausted";
    case SetRefinement::Status::no_data: return "no_data";
    case SetRefinement::Status::already_measured: return "already_measured";
    case SetRefinement::Status::repeat: return "repeat";
    case SetRefinement::Status::precision_not_reached: return precision_not_reached_status;
  }
  return "?";
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

SetRefinement refine_set(std::size_t set_index, const std::vector<EfficiencyPoint>& points,
                         const std::map<double, std::uint32_t>& next_repetition, const Workload& workload,
                         const RefineSettings& settings) {
  SetRefinement out;
  out.set_index = set_index;
  if (points.empty()) {
    out.explanation = fmt::format("set {}: no runs collected", set_index);
    return out;
  }
  if (settings.precision) {
    if (auto repeated = refine_by_precision(set_index, points, next_repetition, settings)) return *repeated;
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
    s.repetitions.clear();
    for (const SetRefinement& r : refinements) {
      if (r.set_index != s.set.index) continue;
      if (r.status == SetRefinement::Status::refine || r.status == SetRefinement::Status::repeat)
        s.parameter_values = r.parameter_values;
      if (r.status == SetRefinement::Status::repeat) s.repetitions = r.repetitions;
    }
  }
  return next;
}

}  // namespace hetscale::jobgen
