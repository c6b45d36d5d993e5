// The coverage of the required parameter's bootstrap interval on synthetic sets whose
// curve is known (model/bootstrap_coverage.hpp; the table of docs/science.md, "Coverage"):
// for relative noise 5%, 15% and 40% and 2, 3 and 5 runs per size, the share of the 95%
// intervals that contain the true parameter, without the small-sample correction and
// with it (the pooled residuals' deviations scaled by t_df / z), the intervals with an
// open bound and the median relative half-width. Fixed seeds: the same table every run.
//   build/default/bin/bootstrap_coverage [--trials T] [--resamples B]
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "hetscale/model/bootstrap_coverage.hpp"

int main(int argc, char** argv) {
  hetscale::CoverageSetup setup;
  setup.trials = 400;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--trials")
      setup.trials = std::strtoul(argv[i + 1], nullptr, 10);
    else if (option == "--resamples")
      setup.resamples = std::strtoul(argv[i + 1], nullptr, 10);
    else {
      fmt::print(stderr, "usage: bootstrap_coverage [--trials T] [--resamples B]\n");
      return 2;
    }
  }
  fmt::print("{} trials per row, {} resamples per interval, true parameter {:g}\n\n", setup.trials,
             setup.resamples, hetscale::coverage_true_parameter);
  fmt::print("| noise | runs per size | with interval | coverage (uncorrected) | coverage (t_df / z) "
             "| open bound | median half-width |\n|---|---|---|---|---|---|---|\n");
  for (double noise : {0.05, 0.15, 0.40}) {
    for (std::size_t runs : {2, 3, 5}) {
      setup.noise = noise;
      setup.runs_per_size = runs;
      setup.deviation_scale = 1;
      const auto plain = hetscale::measure_coverage(setup);
      setup.deviation_scale = 0;
      const auto corrected = hetscale::measure_coverage(setup);
      fmt::print("| {:g}% | {} | {} of {} | {:.1f}% | {:.1f}% | {} | {:.1f}% |\n", noise * 100, runs,
                 corrected.with_interval, corrected.trials, plain.coverage() * 100,
                 corrected.coverage() * 100, corrected.open, corrected.median_half_width * 100);
    }
  }
}
