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

double true_efficiency(double parameter) { return 0.6 * parameter / (parameter + 500); }

std::vector<EfficiencyPoint> synthetic_set(const CoverageSetup& setup, ResampleRandom& noise) {
  // Log-normal with mean 1 and relative standard deviation setup.noise.
  const double sigma = std::sqrt(std::log(1 + setup.noise * setup.noise));
  std::vector<EfficiencyPoint> points;
  for (int k = 0; k < 8; ++k) {
    const double parameter = 100 * std::ldexp(1.0, k);
    for (std::size_t r = 0; r < setup.runs_per_size; ++r)
      points.push_back({parameter, true_efficiency(parameter) *
                                       std::exp(sigma * noise.normal() - sigma * sigma / 2)});
  }
  return points;
}

}  // namespace

CoverageResult measure_coverage(const CoverageSetup& setup) {
  CoverageResult out;
  ResampleRandom noise(setup.seed);
  std::vector<double> half_widths;
  for (std::size_t trial = 0; trial < setup.trials; ++trial) {
    ++out.trials;
    const auto points = synthetic_set(setup, noise);
    BootstrapOptions options;
    options.resamples = setup.resamples;
    options.seed = resample_seed({"coverage", std::to_string(setup.seed), std::to_string(trial)});
    options.deviation_scale = setup.deviation_scale;
    const ParameterInterval p =
        required_parameter_interval(points, target, default_efficiency_tolerance, options);
    if (p.replicates.empty()) continue;
    ++out.with_interval;
    const auto& i = p.interval;
    if (i.low.value_or(-HUGE_VAL) <= coverage_true_parameter &&
        coverage_true_parameter <= i.high.value_or(HUGE_VAL))
      ++out.covered;
    if (!i.low || !i.high)
      ++out.open;
    else
      half_widths.push_back((*i.high - *i.low) / 2 / coverage_true_parameter);
  }
  out.median_half_width = median(half_widths);
  return out;
}

}  // namespace hetscale
