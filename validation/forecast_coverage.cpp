// The coverage of the forecast rows' 90% prediction intervals on a synthetic experiment of
// known truth (model/forecast_coverage.hpp; the tables of docs/science.md, "Intervals of the
// forecast"): for relative run noise 5% and 15% and 2, 3 and 5 runs per set and size, the
// share of the held-out set's intervals that contain the parameter one new run there
// needs, with the run-noise factor and without it (the fit's uncertainty alone), the
// intervals with an open bound and the median relative half-width. Then how far a bound
// moves between two seeds at 250 to 2000 resamples (the default's choice). Fixed seeds:
// the same tables every run.
//   build/default/bin/forecast_coverage [--trials T] [--resamples B]
#include "hetscale/model/forecast_coverage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "hetscale/model/sample_statistics.hpp"

int main(int argc, char** argv) {
  hetscale::ForecastCoverageSetup setup;
  setup.trials = 400;
  setup.resamples = hetscale::default_forecast_resamples;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--trials")
      setup.trials = std::strtoul(argv[i + 1], nullptr, 10);
    else if (option == "--resamples")
      setup.resamples = std::strtoul(argv[i + 1], nullptr, 10);
    else {
      fmt::print(stderr, "usage: forecast_coverage [--trials T] [--resamples B]\n");
      return 2;
    }
  }
  fmt::print(
      "{} trials per row, {} resamples per forecast, target {:g}, held-out set of {} "
      "processes\n\n",
      setup.trials, setup.resamples, hetscale::forecast_coverage_target,
      hetscale::forecast_coverage_processes);
  fmt::print(
      "| noise | runs per set and size | coverage (fit alone) | coverage (with run noise) "
      "| open bound | median half-width |\n|---|---|---|---|---|---|\n");
  for (double noise : {0.05, 0.15}) {
    for (std::size_t repeats : {2, 3, 5}) {
      setup.noise = noise;
      setup.repeats = repeats;
      setup.run_noise = false;
      const auto fit = hetscale::measure_forecast_coverage(setup);
      setup.run_noise = true;
      const auto prediction = hetscale::measure_forecast_coverage(setup);
      fmt::print("| {:g}% | {} | {:.1f}% | {:.1f}% | {} | {:.1f}% |\n", noise * 100, repeats,
                 fit.coverage() * 100, prediction.coverage() * 100, prediction.open,
                 prediction.median_half_width * 100);
    }
  }
  // Two seeds on the same runs: the change of each bound relative to the interval's width.
  fmt::print(
      "\n| resamples | median bound change | 90th percentile | largest |\n|---|---|---|---|\n");
  const std::size_t experiments = 50;
  for (std::size_t resamples : {250, 500, 1000, 2000}) {
    hetscale::ResampleRandom random(7);
    std::vector<double> changes;
    for (std::size_t t = 0; t < experiments; ++t) {
      const auto runs = hetscale::synthetic_forecast_runs(random, 0.05, 2);
      hetscale::ForecastIntervalOptions options;
      options.resamples = resamples;
      options.seed = hetscale::resample_seed({"seed a", std::to_string(t)});
      const auto a = hetscale::synthetic_forecast(runs, options)[1].parameter_interval;
      options.seed = hetscale::resample_seed({"seed b", std::to_string(t)});
      const auto b = hetscale::synthetic_forecast(runs, options)[1].parameter_interval;
      if (!a.low || !a.high || !b.low || !b.high) continue;
      const double width = *a.high - *a.low;
      changes.push_back(std::abs(*a.low - *b.low) / width);
      changes.push_back(std::abs(*a.high - *b.high) / width);
    }
    std::sort(changes.begin(), changes.end());
    fmt::print("| {} | {:.1f}% | {:.1f}% | {:.1f}% |\n", resamples, hetscale::median(changes) * 100,
               changes[changes.size() * 9 / 10] * 100, changes.back() * 100);
  }
}
