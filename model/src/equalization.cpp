// The exact equalization rests on sigma'_Ti = sigma_Ti sqrt(t'_i / t_i) = k_i sqrt(t'_i):
// each computer's condition t' + k_i sqrt(t') = L is a quadratic in sqrt(t'), so
// t'_i(L) = ((sqrt(k_i^2 + 4L) - k_i) / 2)^2, increasing in L; one scalar root-find on L
// makes the work add up. Cost O(n) per iteration, a few dozen iterations.
#include "hetscale/model/equalization.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "golden_section.hpp"
#include "hetscale/base/error.hpp"

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


// ---- The normal model of tau -------------------------------------------------------------

constexpr double kTail = 8;  // Phi(-8) ~ 6e-16: below t - 8 sd a computer has not finished
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

double normal_cdf(double z) { return 0.5 * std::erfc(-z * kInvSqrt2); }
double normal_pdf(double z) { return kInvSqrt2Pi * std::exp(-0.5 * z * z); }

/// 8-point Gauss-Legendre nodes and weights on [-1, 1].
constexpr std::array<double, 8> kNodes{-0.9602898564975363, -0.7966664774136267,
                                       -0.5255324099163290, -0.1834346424956498,
                                       0.1834346424956498,  0.5255324099163290,
                                       0.7966664774136267,  0.9602898564975363};
constexpr std::array<double, 8> kWeights{0.1012285362903763, 0.2223810344533745,
                                         0.3137066458778873, 0.3626837833783620,
                                         0.3626837833783620, 0.3137066458778873,
                                         0.2223810344533745, 0.1012285362903763};
constexpr std::size_t kMaxSegments = 512;

/// Segment ends for the quadrature of the maximum's distribution on [low, high]: where each
/// computer's distribution changes fast (its mean and a few sds either side), thinned to
/// at most kMaxSegments segments.
std::vector<double> breakpoints(std::span<const double> mean, std::span<const double> sd,
                                std::span<const std::size_t> active, double low, double high) {
  std::vector<double> points{low, high};
  for (std::size_t i : active)
    for (double c : {-4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0}) {
      const double x = mean[i] + c * sd[i];
      if (x > low && x < high) points.push_back(x);
    }
  std::sort(points.begin(), points.end());
  const double merge = 1e-9 * (high - low);
  std::vector<double> unique{points.front()};
  for (double x : points)
    if (x - unique.back() > merge) unique.push_back(x);
  if (unique.back() != high) unique.back() = high;
  if (unique.size() <= kMaxSegments + 1) return unique;
  std::vector<double> thinned;
  const double stride = static_cast<double>(unique.size() - 1) / kMaxSegments;
  for (std::size_t k = 0; k < kMaxSegments; ++k)
    thinned.push_back(unique[static_cast<std::size_t>(std::floor(k * stride))]);
  thinned.push_back(high);
  return thinned;
}

/// Projection onto {X >= 0, sum X = total} in the metric sum (X_i - y_i)^2 / scale_i:
/// X_i = max(0, y_i - theta scale_i), theta by bisection.
std::vector<double> project(std::span<const double> y, std::span<const double> scale,
                            double total) {
  auto sum_at = [&](double theta) {
    double sum = 0;
    for (std::size_t i = 0; i < y.size(); ++i) sum += std::max(0.0, y[i] - theta * scale[i]);
    return sum;
  };
  double low = std::numeric_limits<double>::max();
  double high = std::numeric_limits<double>::lowest();
  for (std::size_t i = 0; i < y.size(); ++i) {
    low = std::min(low, (y[i] - total) / scale[i]);
    high = std::max(high, y[i] / scale[i]);
  }
  for (int iteration = 0; iteration < 200 && high - low > 1e-15 * std::max(1.0, std::abs(high));
       ++iteration) {
    const double mid = 0.5 * (low + high);
    (sum_at(mid) > total ? low : high) = mid;
  }
  std::vector<double> x(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) x[i] = std::max(0.0, y[i] - high * scale[i]);
  const double sum = std::accumulate(x.begin(), x.end(), 0.0);
  if (sum > 0)
    for (double& v : x) v *= total / sum;
  return x;
}

std::vector<double> along(std::span<const double> from, std::span<const double> direction,
                          double step) {
  std::vector<double> x(from.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::max(0.0, from[i] + step * direction[i]);
  return x;
}

/// The step in [0, longest] along `direction` from `from` with the least modelled tau:
/// golden-section search, then the better of its result and the two ends.
double line_minimum(std::span<const VariableComputer> computers, std::span<const double> from,
                    std::span<const double> direction, double longest) {
  auto tau = [&](double step) { return modelled_tau(computers, along(from, direction, step)); };
  double best = detail::golden_section_minimum(tau, 0, longest, 60, 1e-10 * longest);
  double best_tau = tau(best);
  for (double end : {0.0, longest}) {
    const double t = tau(end);
    if (t < best_tau) best = end, best_tau = t;
  }
  return best;
}

/// Projected gradient descent of the modelled tau from `start`, steps scaled by s_i^2 (a
/// step in X_i of s_i^2 g_i is a step in t_i of s_i g_i = d tau / d t_i), Armijo backtracking.
std::vector<double> descend(std::span<const VariableComputer> computers, double total,
                            std::vector<double> x) {
  std::vector<double> scale;
  for (const auto& c : computers) scale.push_back(c.speed * c.speed);
  std::vector<double> gradient;
  double tau = modelled_tau(computers, x, &gradient);
  double longest_time = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    longest_time = std::max(longest_time, x[i] / computers[i].speed);
  double eta = 0.1 * longest_time;
  int quiet = 0;
  for (int iteration = 0; iteration < 2000 && eta > 1e-14 * longest_time; ++iteration) {
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] - eta * scale[i] * gradient[i];
    const auto next = project(y, scale, total);
    double decrease = 0;
    for (std::size_t i = 0; i < x.size(); ++i) decrease += gradient[i] * (x[i] - next[i]);
    if (!(decrease > 1e-15 * tau)) break;  // the projected step vanishes: stationary
    std::vector<double> next_gradient;
    const double next_tau = modelled_tau(computers, next, &next_gradient);
    if (next_tau <= tau - 1e-4 * decrease) {
      quiet = tau - next_tau < 1e-13 * tau ? quiet + 1 : 0;
      x = next;
      tau = next_tau;
      gradient = std::move(next_gradient);
      eta *= 2;
      if (quiet >= 3) break;
    } else {
      eta /= 4;
    }
  }
  return x;
}

}  // namespace

StochasticPartition describe_partition(std::span<const VariableComputer> computers, std::vector<double> work) {
  if (work.size() != computers.size())
    throw Error("the partition has " + std::to_string(work.size()) + " parts for " +
                std::to_string(computers.size()) + " computers");
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
  return describe_partition(computers, std::move(work));
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
  return describe_partition(computers, std::move(work));
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
  auto p = describe_partition(computers, std::move(work));
  p.note = note;
  return p;
}

double modelled_tau(std::span<const VariableComputer> computers, std::span<const double> work,
                    std::vector<double>* gradient) {
  validate(computers, 1.0);  // the computers only: no total work to check here
  const std::size_t n = computers.size();
  if (work.size() != n)
    throw Error("the partition has " + std::to_string(work.size()) + " parts for " +
                std::to_string(n) + " computers");
  std::vector<double> mean(n);
  std::vector<double> sd(n);
  double fixed = std::numeric_limits<double>::lowest();  // latest finish of those that do not vary
  double low = 0;
  double high = 0;
  bool varies = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(work[i] >= 0) || !std::isfinite(work[i]))
      throw Error("computer " + std::to_string(i) + ": work must be >= 0 and finite");
    mean[i] = work[i] / computers[i].speed;
    sd[i] = computers[i].variation * std::sqrt(mean[i]);
    if (sd[i] > 0) {
      low = varies ? std::max(low, mean[i] - kTail * sd[i]) : mean[i] - kTail * sd[i];
      high = varies ? std::max(high, mean[i] + kTail * sd[i]) : mean[i] + kTail * sd[i];
      varies = true;
    } else {
      fixed = std::max(fixed, mean[i]);
    }
  }
  // Below max(fixed, max_i (t_i - 8 sd_i)) some computer has not finished (F = 0); above
  // max_i (t_i + 8 sd_i) all have (F = 1): tau = low + integral_low^high (1 - F(x)) dx.
  if (gradient != nullptr) gradient->assign(n, 0.0);
  low = varies ? std::max(low, fixed) : fixed;
  if (!varies || high <= low) {  // (with no computer at all varying, `fixed` is set)
    if (gradient != nullptr) {
      std::vector<std::size_t> last;
      for (std::size_t i = 0; i < n; ++i)
        if (mean[i] == low && sd[i] == 0) last.push_back(i);
      for (std::size_t i : last)
        (*gradient)[i] = 1 / (computers[i].speed * static_cast<double>(last.size()));
    }
    return low;
  }
  std::vector<std::size_t> active;  // those not surely finished by `low`
  for (std::size_t i = 0; i < n; ++i)
    if (sd[i] > 0 && mean[i] + kTail * sd[i] > low) active.push_back(i);
  const auto ends = breakpoints(mean, sd, active, low, high);
  double integral = 0;
  std::vector<double> slope(n, 0.0);  // d tau / d t_i
  std::vector<double> cdf(active.size());
  for (std::size_t segment = 0; segment + 1 < ends.size(); ++segment) {
    const double half = 0.5 * (ends[segment + 1] - ends[segment]);
    const double middle = 0.5 * (ends[segment + 1] + ends[segment]);
    for (std::size_t q = 0; q < kNodes.size(); ++q) {
      const double x = middle + half * kNodes[q];
      const double weight = half * kWeights[q];
      double all = 1;
      for (std::size_t a = 0; a < active.size(); ++a) {
        const std::size_t i = active[a];
        cdf[a] = normal_cdf((x - mean[i]) / sd[i]);
        all *= cdf[a];
      }
      integral += weight * (1 - all);
      if (gradient == nullptr || all == 0) continue;
      // dF/dt_i = -(F / Phi_i) phi(z_i) (1 + z_i sd_i / (2 t_i)) / sd_i, as sd_i = k_i sqrt(t_i).
      for (std::size_t a = 0; a < active.size(); ++a) {
        const std::size_t i = active[a];
        const double z = (x - mean[i]) / sd[i];
        slope[i] += weight * (all / cdf[a]) * normal_pdf(z) * (1 + z * sd[i] / (2 * mean[i])) / sd[i];
      }
    }
  }
  if (gradient != nullptr) {
    // A computer that does not vary and finishes last moves `low`: d tau / d low = F(low).
    std::vector<std::size_t> last;
    for (std::size_t i = 0; i < n; ++i)
      if (sd[i] == 0 && mean[i] == low) last.push_back(i);
    if (!last.empty()) {
      double at_low = 1;
      for (std::size_t i : active) at_low *= normal_cdf((low - mean[i]) / sd[i]);
      for (std::size_t i : last) slope[i] = at_low / static_cast<double>(last.size());
    }
    for (std::size_t i = 0; i < n; ++i) (*gradient)[i] = slope[i] / computers[i].speed;
  }
  return low + integral;
}

StochasticPartition optimal_partition(std::span<const VariableComputer> computers,
                                      double total_work) {
  validate(computers, total_work);
  const auto step1 = proportional_partition(computers, total_work);
  if (computers.size() == 1) return step1;
  std::vector<double> best = descend(computers, total_work, step1.work);
  double best_tau = modelled_tau(computers, best);
  const auto other = descend(computers, total_work, equalized_partition(computers, total_work).work);
  if (const double t = modelled_tau(computers, other); t < best_tau) best = other, best_tau = t;
  auto p = describe_partition(computers, std::move(best));
  if (best_tau > modelled_tau(computers, step1.work)) return step1;
  return p;
}

std::string_view case_key(EqualizationCase c) {
  switch (c) {
    case EqualizationCase::none: return "none";
    case EqualizationCase::equal_speeds: return "equal-speeds";
    case EqualizationCase::slow_unsteady: return "slow-unsteady";
    case EqualizationCase::slow_steady_close: return "slow-steady-close";
    case EqualizationCase::slow_steady_far: return "slow-steady-far";
  }
  return "none";
}

std::string_view case_description(EqualizationCase c) {
  switch (c) {
    case EqualizationCase::none:
      return "no move: one computer, no variation, or step 1 already has the least modelled tau";
    case EqualizationCase::equal_speeds:
      return "equal speeds: work moves to the steadier computers (equalization)";
    case EqualizationCase::slow_unsteady:
      return "the slower computers are the unsteady ones: work moves to the faster, steadier "
             "ones (equalization)";
    case EqualizationCase::slow_steady_close:
      return "the slower computers are the steadier ones and speeds are close: work moves to the "
             "steadier, slower ones (equalization)";
    case EqualizationCase::slow_steady_far:
      return "equalizing would not shorten tau (the steadier computers are much slower): no "
             "partition "
             "meets the condition in the direction that helps; work moves by the move that "
             "shortens the modelled tau most";
  }
  return "";
}

TwoStepPartition two_step_partition(std::span<const VariableComputer> computers,
                                    double total_work) {
  validate(computers, total_work);
  TwoStepPartition r;
  r.step1 = proportional_partition(computers, total_work);
  r.equalized = equalized_partition(computers, total_work);
  std::vector<double> gradient;
  r.tau_step1 = modelled_tau(computers, r.step1.work, &gradient);
  r.tau_equalized = modelled_tau(computers, r.equalized.work);
  r.step2 = r.step1;
  r.tau_step2 = r.tau_step1;
  const std::size_t n = computers.size();
  const bool varies = std::any_of(computers.begin(), computers.end(),
                                  [](const VariableComputer& c) { return c.variation > 0; });
  if (n == 1 || !varies) return r;
  // The equalizing move and its slope at step 1.
  std::vector<double> move(n);
  double slope = 0;
  double towards_fast = 0;
  for (std::size_t i = 0; i < n; ++i) {
    move[i] = r.equalized.work[i] - r.step1.work[i];
    slope += gradient[i] * move[i];
    towards_fast += move[i] * std::log(computers[i].speed);
  }
  double size = 0;
  std::vector<double> direction;
  if (slope < 0) {
    const auto [slowest, fastest] = std::minmax_element(
        computers.begin(), computers.end(),
        [](const VariableComputer& a, const VariableComputer& b) { return a.speed < b.speed; });
    const bool equal = fastest->speed - slowest->speed <= 1e-9 * fastest->speed;
    r.which = equal ? EqualizationCase::equal_speeds
              : towards_fast > 0 ? EqualizationCase::slow_unsteady
                                 : EqualizationCase::slow_steady_close;
    // Along the equalizing move, as far as work stays >= 0: the least modelled tau may lie
    // short of equalization or beyond it.
    double longest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i)
      if (move[i] < 0) longest = std::min(longest, -r.step1.work[i] / move[i]);
    direction = move;
    size = line_minimum(computers, r.step1.work, direction, std::min(longest, 4.0));
    r.move_fraction = size;
  } else {
    // Projected steepest descent in the t_i: dX_i = -s_i^2 (g_i - nu), sum dX_i = 0.
    double weighted = 0;
    double scales = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double scale = computers[i].speed * computers[i].speed;
      weighted += scale * gradient[i];
      scales += scale;
    }
    const double nu = weighted / scales;
    double longest = std::numeric_limits<double>::infinity();
    direction.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      direction[i] = -computers[i].speed * computers[i].speed * (gradient[i] - nu);
      if (direction[i] < 0) longest = std::min(longest, -r.step1.work[i] / direction[i]);
    }
    if (!std::isfinite(longest)) return r;  // no descent direction: step 1 is stationary
    r.which = EqualizationCase::slow_steady_far;
    size = line_minimum(computers, r.step1.work, direction, longest);
  }
  auto work = along(r.step1.work, direction, size);
  const double sum = std::accumulate(work.begin(), work.end(), 0.0);
  for (double& x : work) x *= total_work / sum;
  const double tau = modelled_tau(computers, work);
  if (!(tau < r.tau_step1 * (1 - 1e-9))) {  // no gain beyond rounding: keep step 1
    r.which = EqualizationCase::none;
    r.move_fraction = 0;
    return r;
  }
  r.step2 = describe_partition(computers, std::move(work));
  r.step2.note = std::string(case_description(r.which));
  r.tau_step2 = tau;
  return r;
}

ChosenPartition choose_partition(std::span<const VariableComputer> computers, double total_work,
                                 std::string_view method) {
  ChosenPartition c;
  c.two_step = two_step_partition(computers, total_work);
  if (method == "case") {
    c.partition = c.two_step.step2;
  } else if (method == "exact") {
    c.partition = c.two_step.equalized;
  } else if (method == "linearised") {
    c.partition = linearised_partition(computers, total_work);
  } else if (method == "optimum") {
    c.partition = optimal_partition(computers, total_work);
  } else {
    throw Error("unknown partition method '" + std::string(method) +
                "' (case, exact, linearised, optimum)");
  }
  c.tau = modelled_tau(computers, c.partition.work);
  if (c.tau > c.two_step.tau_step1) {
    c.partition = c.two_step.step1;
    c.partition.note = "the " + std::string(method) +
                       " partition would lengthen the modelled tau; step 1 is kept";
    c.tau = c.two_step.tau_step1;
  }
  return c;
}

}  // namespace hetscale
