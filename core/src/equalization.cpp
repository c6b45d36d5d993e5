// The exact equalization rests on sigma'_Ti = sigma_Ti sqrt(t'_i / t_i) = k_i sqrt(t'_i):
// each computer's condition t' + k_i sqrt(t') = L is a quadratic in sqrt(t'), so
// t'_i(L) = ((sqrt(k_i^2 + 4L) - k_i) / 2)^2, increasing in L; one scalar root-find on L
// makes the work add up. Cost O(n) per iteration, a few dozen iterations.
#include "hetscale/equalization.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "hetscale/error.hpp"

namespace hetscale {
namespace {

void validate(std::span<const VariableComputer> computers, double total_work) {
  if (computers.empty()) throw Error("equalization needs at least one computer");
  if (!(total_work > 0) || !std::isfinite(total_work))
    throw Error("the total work must be positive and finite");
  for (std::size_t i = 0; i < computers.size(); ++i) {
    const auto& c = computers[i];
    if (!(c.speed > 0) || !std::isfinite(c.speed))
      throw Error("computer " + std::to_string(i) + ": mean speed must be positive and finite");
    if (!(c.variation >= 0) || !std::isfinite(c.variation))
      throw Error("computer " + std::to_string(i) + ": variation must be non-negative and finite");
  }
}

StochasticPartition describe(std::span<const VariableComputer> computers,
                             std::vector<double> work) {
  StochasticPartition p;
  p.work = std::move(work);
  for (std::size_t i = 0; i < computers.size(); ++i) {
    const double t = p.work[i] / computers[i].speed;
    p.mean_time.push_back(t);
    p.time_sd.push_back(computers[i].variation * std::sqrt(t));
  }
  p.degree = equalization_degree(p.mean_time, p.time_sd);
  return p;
}

/// t' such that t' + k sqrt(t') = level.
double time_at_level(double k, double level) {
  const double root = 0.5 * (std::sqrt(k * k + 4 * level) - k);
  return root * root;
}

/// Work placed at level L and its derivative d(work)/dL (dt'/dL = 2 r / sqrt(k^2 + 4L)).
std::pair<double, double> work_at_level(std::span<const VariableComputer> computers, double level) {
  double work = 0;
  double slope = 0;
  for (const auto& c : computers) {
    const double disc = std::sqrt(c.variation * c.variation + 4 * level);
    const double root = 0.5 * (disc - c.variation);
    work += c.speed * root * root;
    slope += c.speed * 2 * root / disc;
  }
  return {work, slope};
}

/// The level L at which the computers together take `total_work`: Newton's method kept
/// inside a shrinking bracket (bisection when a step would leave it). Work is increasing
/// and concave in L, so this converges in a handful of O(n) passes.
double solve_level(std::span<const VariableComputer> computers, double total_work) {
  double low = 0;
  double high = 1;
  while (work_at_level(computers, high).first < total_work) high *= 2;
  double level = high;
  for (int iteration = 0; iteration < 100; ++iteration) {
    const auto [work, slope] = work_at_level(computers, level);
    const double error = work - total_work;
    if (std::abs(error) <= 1e-14 * total_work) break;
    (error < 0 ? low : high) = level;
    double next = slope > 0 ? level - error / slope : 0.5 * (low + high);
    if (!(next > low && next < high)) next = 0.5 * (low + high);
    if (next == level) break;
    level = next;
  }
  return level;
}

}  // namespace

double variation_from_heterogeneity(double temporal_heterogeneity, double correlation_time) {
  if (!(temporal_heterogeneity >= 0) || !(correlation_time > 0))
    throw Error("temporal heterogeneity must be >= 0 and the correlation time > 0");
  return temporal_heterogeneity * std::sqrt(correlation_time);
}

double correlation_time_of_uniform_intervals(double max_interval) {
  if (!(max_interval > 0)) throw Error("the maximum interval must be positive");
  return 2 * max_interval / 3;
}

double equalization_degree(std::span<const double> mean_time, std::span<const double> time_sd) {
  const std::size_t n = mean_time.size();
  if (n == 0) return 0;
  std::vector<double> finish(n);
  for (std::size_t i = 0; i < n; ++i) finish[i] = mean_time[i] + time_sd[i];
  const double mean = std::accumulate(finish.begin(), finish.end(), 0.0) / static_cast<double>(n);
  double sum_sq = 0;
  for (double f : finish) sum_sq += (f - mean) * (f - mean);
  return mean > 0 ? 100 * std::sqrt(sum_sq / static_cast<double>(n)) / mean : 0;
}

StochasticPartition proportional_partition(std::span<const VariableComputer> computers,
                                           double total_work) {
  validate(computers, total_work);
  double speed = 0;
  for (const auto& c : computers) speed += c.speed;
  std::vector<double> work;
  for (const auto& c : computers) work.push_back(total_work * c.speed / speed);
  return describe(computers, std::move(work));
}

StochasticPartition equalized_partition(std::span<const VariableComputer> computers,
                                        double total_work) {
  validate(computers, total_work);
  const bool steady = std::all_of(computers.begin(), computers.end(),
                                  [](const VariableComputer& c) { return c.variation == 0; });
  if (steady || computers.size() == 1) {
    auto p = proportional_partition(computers, total_work);
    p.note = computers.size() == 1 ? "a single computer takes all the work"
                                   : "no computer varies: step 2 leaves step 1 unchanged";
    return p;
  }
  const double level = solve_level(computers, total_work);
  std::vector<double> work;
  for (const auto& c : computers) work.push_back(c.speed * time_at_level(c.variation, level));
  // Remove the last rounding so the parts add up to the total exactly as far as doubles allow.
  const double scale = total_work / std::accumulate(work.begin(), work.end(), 0.0);
  for (double& x : work) x *= scale;
  return describe(computers, std::move(work));
}

StochasticPartition linearised_partition(std::span<const VariableComputer> computers,
                                         double total_work) {
  validate(computers, total_work);
  const auto base = proportional_partition(computers, total_work);
  std::vector<bool> active(computers.size(), true);
  std::vector<double> work(computers.size(), 0);
  std::string note;
  for (;;) {
    // dX_i = (L - (t_i + sigma_Ti)) / c_i with c_i = 1/s_i + sigma_Ti / (2 s_i t_i), sum dX_i = 0
    // over the active computers (an inactive one keeps no work: its dX_i = -X_i).
    double removed = 0;
    double sum_inv = 0;
    double sum_ratio = 0;
    for (std::size_t i = 0; i < computers.size(); ++i) {
      if (!active[i]) {
        removed += base.work[i];
        continue;
      }
      const double c =
          1 / computers[i].speed + base.time_sd[i] / (2 * computers[i].speed * base.mean_time[i]);
      sum_inv += 1 / c;
      sum_ratio += (base.mean_time[i] + base.time_sd[i]) / c;
    }
    const double level = (sum_ratio + removed) / sum_inv;
    bool changed = false;
    for (std::size_t i = 0; i < computers.size(); ++i) {
      if (!active[i]) continue;
      const double c =
          1 / computers[i].speed + base.time_sd[i] / (2 * computers[i].speed * base.mean_time[i]);
      work[i] = base.work[i] + (level - base.mean_time[i] - base.time_sd[i]) / c;
      if (work[i] < 0) {
        active[i] = false;
        work[i] = 0;
        changed = true;
        note = "the linearisation gave some computers negative work; they get none";
      }
    }
    if (!changed) break;
  }
  auto p = describe(computers, std::move(work));
  p.note = note;
  return p;
}

}  // namespace hetscale
