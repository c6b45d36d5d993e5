// The coverage of the required parameter's bootstrap interval on synthetic sets whose
// curve is known (model/bootstrap_coverage.hpp; the table of docs/science.md, "Coverage"):
// for relative noise 5%, 15% and 40% and 2, 3 and 5 runs per size, the share of the 95%
// intervals that contain the true parameter, without the small-sample correction and
// with it (the pooled residuals' deviations scaled by t_df / z), the intervals with an
// open bound and the median relative half-width; with --psi the same of psi's interval
// between two synthetic sets, as analyze computes it (with the correction). Fixed seeds:
// the same table every run.
//   build/default/bin/bootstrap_coverage [--psi] [--trials T] [--resamples B]
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "hetscale/model/bootstrap_coverage.hpp"

namespace {

/// Calls `row` with `setup` at each noise and runs per size of the tables, in order.
template <typename Row>
void for_each_row(hetscale::CoverageSetup& setup, Row row) {
  for (double noise : {0.05, 0.15, 0.40}) {
    for (std::size_t runs : {2, 3, 5}) {
      setup.noise = noise;
      setup.runs_per_size = runs;
      row();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  hetscale::CoverageSetup setup;
  setup.trials = 400;
  bool psi = false;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--psi")
      psi = true;
    else if (option == "--trials" && i + 1 < argc)
      setup.trials = std::strtoul(argv[++i], nullptr, 10);
    else if (option == "--resamples" && i + 1 < argc)
      setup.resamples = std::strtoul(argv[++i], nullptr, 10);
    else {
      fmt::print(stderr, "usage: bootstrap_coverage [--psi] [--trials T] [--resamples B]\n");
      return 2;
    }
  }
  if (psi) {
    fmt::print("{} pairs of sets per row, {} resamples per interval, true psi {:g}\n\n",
               setup.trials, setup.resamples, hetscale::coverage_true_psi);
    fmt::print("| noise | runs per size | with interval | coverage (t_df / z) | open bound | "
               "median half-width |\n|---|---|---|---|---|---|\n");
    for_each_row(setup, [&] {
      const auto r = hetscale::measure_psi_coverage(setup);
      fmt::print("| {:g}% | {} | {} of {} | {:.1f}% | {} | {:.1f}% |\n", setup.noise * 100,
                 setup.runs_per_size, r.with_interval, r.trials, r.coverage() * 100, r.open,
                 r.median_half_width * 100);
    });
    return 0;
  }
  fmt::print("{} trials per row, {} resamples per interval, true parameter {:g}\n\n", setup.trials,
             setup.resamples, hetscale::coverage_true_parameter);
  fmt::print("| noise | runs per size | with interval | coverage (uncorrected) | coverage (t_df / z) "
             "| open bound | median half-width |\n|---|---|---|---|---|---|---|\n");
  for_each_row(setup, [&] {
    setup.deviation_scale = 1;
    const auto plain = hetscale::measure_coverage(setup);
    setup.deviation_scale = 0;
    const auto corrected = hetscale::measure_coverage(setup);
    fmt::print("| {:g}% | {} | {} of {} | {:.1f}% | {:.1f}% | {} | {:.1f}% |\n", setup.noise * 100,
               setup.runs_per_size, corrected.with_interval, corrected.trials,
               plain.coverage() * 100, corrected.coverage() * 100, corrected.open,
               corrected.median_half_width * 100);
  });
}
