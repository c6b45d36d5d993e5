#include "hetscale/model/forecast_coverage.hpp"

#include <cmath>
#include <string>

#include "hetscale/model/sample_statistics.hpp"
#include "hetscale/model/workload.hpp"

namespace hetscale {
namespace {

double true_compute(double n, double c) {
  return 2 * n * n * n / (c * 0.8);
}

double true_communication(double n, std::size_t p) {
  return p > 1 ? 2e-3 + 3e-9 * n * n * std::ceil(std::log2(static_cast<double>(p))) : 0;
}

double speed(std::size_t p) {
  return 1e9 * static_cast<double>(p);
}

double true_efficiency(double n, std::size_t p) {
  return 2 * n * n * n / (speed(p) * (true_compute(n, speed(p)) + true_communication(n, p)));
}

ForecastSet set_of(std::size_t p, const std::string& label) {
  ForecastSet s;
  s.label = label;
  s.node_count = p;
  s.marked_speed = speed(p);
  s.processes = p;
  return s;
}

}  // namespace

double lognormal_noise_factor(ResampleRandom& random, double noise) {
  const double sigma = std::sqrt(std::log(1 + noise * noise));
  return std::exp(sigma * random.normal() - sigma * sigma / 2);
}

std::vector<TimingSample> synthetic_forecast_runs(ResampleRandom& random, double noise,
                                                  std::size_t repeats) {
  std::vector<TimingSample> samples;
  for (std::size_t p : {1, 2, 4, 8})
    for (double n : {200.0, 400.0, 800.0, 1600.0})
      for (std::size_t r = 0; r < repeats; ++r) {
        const double f = lognormal_noise_factor(random, noise);
        TimingSample s{
            n, p, speed(p), 0, true_compute(n, speed(p)) * f, true_communication(n, p) * f};
        s.wall_seconds = s.compute_seconds + s.communication_seconds;
        samples.push_back(s);
      }
  return samples;
}

double synthetic_required_parameter(std::size_t processes, double factor, double target) {
  // Bisection in ln N: E_s grows with N.
  double a = std::log(10.0);
  double b = std::log(1e8);
  for (int i = 0; i < 200; ++i) {
    const double mid = (a + b) / 2;
    (true_efficiency(std::exp(mid), processes) / factor < target ? a : b) = mid;
  }
  return std::exp((a + b) / 2);
}

std::vector<ForecastRow> synthetic_forecast(const std::vector<TimingSample>& runs,
                                            const ForecastIntervalOptions& options, double target) {
  const Workload workload = Workload::parse("mm");
  const TimeModel model = TimeModel::fit(runs, workload, CommunicationPattern::mm);
  std::vector<ForecastRow> rows =
      forecast(model, workload, target, 1,
               {set_of(8, "set 3"), set_of(forecast_coverage_processes, "held out")});
  add_forecast_intervals(rows, model, runs, workload, CommunicationPattern::mm, target, 1, options);
  return rows;
}

ForecastCoverageResult measure_forecast_coverage(const ForecastCoverageSetup& setup) {
  ResampleRandom random(setup.seed);
  ForecastCoverageResult out;
  std::vector<double> widths;
  const double noiseless = synthetic_required_parameter(forecast_coverage_processes, 1);
  for (std::size_t t = 0; t < setup.trials; ++t) {
    const auto runs = synthetic_forecast_runs(random, setup.noise, setup.repeats);
    const double truth = synthetic_required_parameter(forecast_coverage_processes,
                                                      lognormal_noise_factor(random, setup.noise));
    ForecastIntervalOptions options;
    options.resamples = setup.resamples;
    options.run_noise = setup.run_noise;
    options.seed =
        resample_seed({"forecast coverage", std::to_string(setup.seed), std::to_string(t)});
    const ReportedInterval i = synthetic_forecast(runs, options)[1].parameter_interval;
    ++out.trials;
    if (i.low.value_or(-HUGE_VAL) <= truth && truth <= i.high.value_or(HUGE_VAL)) ++out.covered;
    if (!i.low || !i.high)
      ++out.open;
    else
      widths.push_back((*i.high - *i.low) / 2 / noiseless);
  }
  out.median_half_width = median(widths);
  return out;
}

}  // namespace hetscale
