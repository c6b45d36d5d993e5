#include "hetscale/model/bootstrap_coverage.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hetscale/model/bootstrap.hpp"
#include "hetscale/model/sample_statistics.hpp"

namespace hetscale {
namespace {

constexpr double target = 0.4;

/// E_s of the synthetic curve whose half-saturation size is `half` (0.6 N / (N + half)).
double true_efficiency(double parameter, double half) { return 0.6 * parameter / (parameter + half); }

/// The first set's curve reaches the target at 1000, the second's (psi) at 2000.
constexpr double first_half = 500;
constexpr double second_half = 1000;

std::vector<EfficiencyPoint> synthetic_set(const CoverageSetup& setup, ResampleRandom& noise,
                                           double half = first_half) {
  // Log-normal with mean 1 and relative standard deviation setup.noise.
  const double sigma = std::sqrt(std::log(1 + setup.noise * setup.noise));
  std::vector<EfficiencyPoint> points;
  for (int k = 0; k < 8; ++k) {
    const double parameter = 100 * std::ldexp(1.0, k);
    for (std::size_t r = 0; r < setup.runs_per_size; ++r)
      points.push_back({parameter, true_efficiency(parameter, half) *
                                       std::exp(sigma * noise.normal() - sigma * sigma / 2)});
  }
  return points;
}

BootstrapOptions trial_options(const CoverageSetup& setup, const std::string& name,
                               std::size_t trial) {
  BootstrapOptions options;
  options.resamples = setup.resamples;
  options.seed = resample_seed({name, std::to_string(setup.seed), std::to_string(trial)});
  options.deviation_scale = setup.deviation_scale;
  return options;
}

/// Counts `i` into `out`: whether it covers `truth` (an open bound covers everything on its
/// side), is open, or else its half-width relative to `truth`.
void count_interval(const ReportedInterval& i, double truth, CoverageResult& out,
                    std::vector<double>& half_widths) {
  ++out.with_interval;
  if (i.low.value_or(-HUGE_VAL) <= truth && truth <= i.high.value_or(HUGE_VAL)) ++out.covered;
  if (!i.low || !i.high)
    ++out.open;
  else
    half_widths.push_back((*i.high - *i.low) / 2 / truth);
}

}  // namespace

CoverageResult measure_coverage(const CoverageSetup& setup) {
  CoverageResult out;
  ResampleRandom noise(setup.seed);
  std::vector<double> half_widths;
  for (std::size_t trial = 0; trial < setup.trials; ++trial) {
    ++out.trials;
    const auto points = synthetic_set(setup, noise);
    const ParameterInterval p = required_parameter_interval(
        points, target, default_efficiency_tolerance, trial_options(setup, "coverage", trial));
    if (p.replicates.empty()) continue;
    count_interval(p.interval, coverage_true_parameter, out, half_widths);
  }
  out.median_half_width = median(half_widths);
  return out;
}

CoverageResult measure_psi_coverage(const CoverageSetup& setup) {
  CoverageResult out;
  ResampleRandom noise(setup.seed);
  std::vector<double> half_widths;
  const auto work = [](double root) { return std::isfinite(root) ? root * root * root : root; };
  for (std::size_t trial = 0; trial < setup.trials; ++trial) {
    ++out.trials;
    const auto first = synthetic_set(setup, noise, first_half);
    const auto second = synthetic_set(setup, noise, second_half);
    const ParameterInterval p = required_parameter_interval(
        first, target, default_efficiency_tolerance, trial_options(setup, "psi coverage 0", trial));
    const ParameterInterval q = required_parameter_interval(
        second, target, default_efficiency_tolerance, trial_options(setup, "psi coverage 1", trial));
    if (p.replicates.empty() || q.replicates.empty()) continue;
    std::vector<double> w;
    std::vector<double> next_w;
    for (double root : p.replicates) w.push_back(work(root));
    for (double root : q.replicates) next_w.push_back(work(root));
    const std::vector<double> psi = psi_replicates(1, w, 2, next_w);
    count_interval(reported_interval(psi, measured_interval_level, "below", "above"),
                   coverage_true_psi, out, half_widths);
  }
  out.median_half_width = median(half_widths);
  return out;
}

}  // namespace hetscale
