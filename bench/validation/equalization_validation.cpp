// Validation of the equalization scheme against the Monte Carlo model (SCIENCE.md
// section 3, docs/validation.md): prints
//  1. on two computers, over speed ratios 1..4 and differences of temporal heterogeneity,
//     the reduction of tau by the heuristic (step 2) and by the optimiser
//     (optimise_partition, common random numbers), and the gap between them;
//  2. the trends the paper reports: tau against TH, SH, N_s and interval length; tau
//     against the share given to the steadier computer; gain of step 2 over step 1 against
//     the number of computers and the spread of sigma_T.
// Not a Google Benchmark: the figures are the output. Fixed seed: same output every run.
//   build/default/bench/bench_equalization_validation [--repetitions R] [--threads T]
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "hetscale/equalization.hpp"
#include "hetscale/simulation.hpp"

namespace {

using hetscale::SimulatedComputer;
using hetscale::SimulationOptions;

constexpr double kAvailability = 0.5;  // the paper's mean availability
constexpr double kTime = 100;          // step-1 time units per computer

SimulatedComputer computer(double max_power, double th) {
  return {max_power, kAvailability, th * kAvailability};
}

std::vector<hetscale::VariableComputer> model_of(const std::vector<SimulatedComputer>& cs,
                                                 const SimulationOptions& options) {
  const double correlation = hetscale::correlation_time_of_uniform_intervals(options.max_interval);
  std::vector<hetscale::VariableComputer> out;
  for (const auto& c : cs)
    out.push_back({c.max_power * c.mean_availability,
                   hetscale::variation_from_heterogeneity(c.availability_sd / c.mean_availability,
                                                          correlation)});
  return out;
}

double total_work(const std::vector<SimulatedComputer>& cs) {
  double total = 0;
  for (const auto& c : cs) total += c.max_power * c.mean_availability * kTime;
  return total;
}

double tau_of(const std::vector<SimulatedComputer>& cs, const std::vector<double>& work,
              const SimulationOptions& options) {
  return hetscale::simulate(cs, work, options).tau;
}

double proportional_tau(const std::vector<SimulatedComputer>& cs, const SimulationOptions& o) {
  return tau_of(cs, hetscale::proportional_partition(model_of(cs, o), total_work(cs)).work, o);
}

/// Percent reduction of tau from step 1 to step 2.
double step2_gain(const std::vector<SimulatedComputer>& cs, const SimulationOptions& o) {
  const auto model = model_of(cs, o);
  const double t1 = tau_of(cs, hetscale::proportional_partition(model, total_work(cs)).work, o);
  const double t2 = tau_of(cs, hetscale::equalized_partition(model, total_work(cs)).work, o);
  return 100 * (t1 - t2) / t1;
}

void two_computer_grid(const SimulationOptions& o) {
  fmt::print("## 1. Two computers: heuristic (step 2) against the optimiser\n\n");
  fmt::print("| speed ratio | TH fast | TH slow | tau step 1 | reduction step 2 % | reduction "
             "optimiser % | gap in tau % | shortfall of reduction % |\n");
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  double gap_sum = 0, gap_worst = 0, short_sum = 0, short_worst = 0;
  int cases = 0, short_cases = 0;
  for (double ratio : {1.0, 1.5, 2.0, 3.0, 4.0}) {
    // Both directions: the faster computer steady (TH 0.1) or noisy (TH 0.1 + difference).
    for (double difference : {0.1, 0.2, 0.3, 0.4}) {
      for (bool fast_steady : {true, false}) {
        if (ratio == 1.0 && !fast_steady) continue;  // the same case mirrored
        const double th_fast = fast_steady ? 0.1 : 0.1 + difference;
        const double th_slow = fast_steady ? 0.1 + difference : 0.1;
        const std::vector<SimulatedComputer> cs{computer(ratio, th_fast), computer(1, th_slow)};
        const auto model = model_of(cs, o);
        const double total = total_work(cs);
        const double t1 = tau_of(cs, hetscale::proportional_partition(model, total).work, o);
        const auto step2 = hetscale::equalized_partition(model, total).work;
        const double t2 = tau_of(cs, step2, o);
        const double topt = tau_of(cs, hetscale::optimise_partition(cs, step2, o), o);
        const double gap = 100 * (t2 - topt) / topt;
        const double best = t1 - std::min(topt, t2);
        // The shortfall is only meaningful when there is a reduction worth having (> 0.5%).
        const bool meaningful = best > 0.005 * t1;
        const double shortfall = meaningful ? 100 * (best - (t1 - t2)) / best : 0;
        fmt::print("| {:g} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {} |\n", ratio,
                   th_fast, th_slow, t1, 100 * (t1 - t2) / t1, 100 * (t1 - topt) / t1, gap,
                   meaningful ? fmt::format("{:.1f}", shortfall) : std::string("-"));
        gap_sum += gap;
        gap_worst = std::max(gap_worst, gap);
        ++cases;
        if (meaningful) {
          short_sum += shortfall;
          short_worst = std::max(short_worst, shortfall);
          ++short_cases;
        }
      }
    }
  }
  fmt::print("\n{} cases: tau of step 2 above the optimiser's by {:.3f}% on average, {:.3f}% at "
             "worst\n",
             cases, gap_sum / cases, gap_worst);
  fmt::print("{} cases with a reduction > 0.5%: step 2 short of the optimiser's reduction by "
             "{:.1f}% on average, {:.1f}% at worst (target: within 5% on average)\n\n",
             short_cases, short_sum / short_cases, short_worst);
}

std::vector<SimulatedComputer> equal_computers(std::size_t n, double th) {
  return std::vector<SimulatedComputer>(n, computer(1, th));
}

void tau_against_th(const SimulationOptions& o) {
  fmt::print("## 2a. tau against TH (4 equal computers, step 1)\n\n| TH | tau | sigma_T/tau |\n|---|---|---|\n");
  for (double th : {0.0, 0.1, 0.2, 0.3, 0.4, 0.5}) {
    const auto cs = equal_computers(4, th);
    const auto r = hetscale::simulate(
        cs, hetscale::proportional_partition(model_of(cs, o), total_work(cs)).work, o);
    fmt::print("| {:.1f} | {:.2f} | {:.4f} |\n", th, r.tau, r.normalised_sd);
  }
  fmt::print("\n");
}

void tau_against_sh(const SimulationOptions& o) {
  fmt::print("## 2b. tau against SH (4 computers, mean TH 0.25, step 1)\n\n| TH of the computers | SH | tau |\n|---|---|---|\n");
  for (double d : {0.0, 0.06, 0.12, 0.18, 0.24}) {
    const std::vector<double> ths{0.25 - d, 0.25 - d / 3, 0.25 + d / 3, 0.25 + d};
    std::vector<SimulatedComputer> cs;
    for (double th : ths) cs.push_back(computer(1, th));
    fmt::print("| {:.2f} {:.2f} {:.2f} {:.2f} | {:.2f} | {:.2f} |\n", ths[0], ths[1], ths[2],
               ths[3], d, proportional_tau(cs, o));
  }
  fmt::print("\n");
}

void tau_against_sync_points(SimulationOptions o) {
  fmt::print("## 2c. tau against N_s (4 equal computers, TH 0.3, step 1)\n\n| N_s | tau |\n|---|---|\n");
  for (std::size_t ns : {1, 2, 5, 10, 20, 50}) {
    o.sync_points = ns;
    fmt::print("| {} | {:.2f} |\n", ns, proportional_tau(equal_computers(4, 0.3), o));
  }
  fmt::print("\n");
}

void tau_against_interval(SimulationOptions o) {
  fmt::print("## 2d. tau against interval length (4 equal computers, TH 0.3, step 1)\n\n| max interval | tau |\n|---|---|\n");
  for (double interval : {1.0, 5.0, 10.0, 20.0, 40.0}) {
    o.max_interval = interval;
    fmt::print("| {:g} | {:.2f} |\n", interval, proportional_tau(equal_computers(4, 0.3), o));
  }
  fmt::print("\n");
}

/// Half the computers steady (TH 0.1), half noisy (TH 0.5), equal speeds: tau as the
/// steady half's share of the work grows, on 2 and on 8 computers.
void tau_against_share(const SimulationOptions& o) {
  fmt::print("## 2e. More work to the steadier computers (equal speeds, half TH 0.1, half TH 0.5)\n\n");
  std::vector<std::vector<SimulatedComputer>> systems;
  for (std::size_t n : {2, 8}) {
    std::vector<SimulatedComputer> cs;
    for (std::size_t i = 0; i < n; ++i) cs.push_back(computer(1, i < n / 2 ? 0.1 : 0.5));
    const double total = total_work(cs);
    const auto step2 = hetscale::equalized_partition(model_of(cs, o), total).work;
    double steady = 0;
    for (std::size_t i = 0; i < n / 2; ++i) steady += step2[i];
    fmt::print("{} computers: step 2 gives the steady half {:.3f} of the work\n", n, steady / total);
    systems.push_back(std::move(cs));
  }
  fmt::print("\n| share of the steady half | tau, 2 computers | tau, 8 computers |\n|---|---|---|\n");
  for (double share : {0.50, 0.51, 0.52, 0.54, 0.56, 0.58, 0.60}) {
    fmt::print("| {:.2f}", share);
    for (const auto& cs : systems) {
      const double total = total_work(cs);
      const std::size_t half = cs.size() / 2;
      std::vector<double> work;
      for (std::size_t i = 0; i < cs.size(); ++i)
        work.push_back((i < half ? share : 1 - share) * total / static_cast<double>(half));
      fmt::print(" | {:.2f}", tau_of(cs, work, o));
    }
    fmt::print(" |\n");
  }
  fmt::print("\n");
}

void gain_against_count(const SimulationOptions& o) {
  fmt::print("## 2f. Gain of step 2 over step 1 against the number of computers (TH alternating 0.1, 0.5; speeds alternating 1, 2)\n\n| computers | gain % |\n|---|---|\n");
  for (std::size_t n : {2, 4, 8, 16, 32}) {
    std::vector<SimulatedComputer> cs;
    for (std::size_t i = 0; i < n; ++i) cs.push_back(computer(i % 2 ? 2 : 1, i % 2 ? 0.5 : 0.1));
    fmt::print("| {} | {:.2f} |\n", n, step2_gain(cs, o));
  }
  fmt::print("\n");
}

void gain_against_spread(const SimulationOptions& o) {
  fmt::print("## 2g. Gain of step 2 over step 1 against the spread of sigma_T (8 equal-speed computers, TH 0.3 +- d)\n\n| d | gain % |\n|---|---|\n");
  for (double d : {0.0, 0.05, 0.1, 0.15, 0.2, 0.25}) {
    std::vector<SimulatedComputer> cs;
    for (std::size_t i = 0; i < 8; ++i) cs.push_back(computer(1, i % 2 ? 0.3 + d : 0.3 - d));
    fmt::print("| {:.2f} | {:.2f} |\n", d, step2_gain(cs, o));
  }
  fmt::print("\n");
}

}  // namespace

int main(int argc, char** argv) {
  SimulationOptions options;  // the paper's: 1000 repetitions, intervals uniform in [0, 20]
  options.seed = 2007;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--repetitions") options.repetitions = std::strtoul(argv[i + 1], nullptr, 10);
    else if (flag == "--threads") options.threads = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    else {
      fmt::print(stderr, "usage: {} [--repetitions R] [--threads T]\n", argv[0]);
      return 2;
    }
  }
  fmt::print("# Equalization validation ({} repetitions per case, seed {}, intervals uniform in "
             "[0, {:g}], {:g} time units per computer at step 1)\n\n",
             options.repetitions, options.seed, options.max_interval, kTime);
  two_computer_grid(options);
  tau_against_th(options);
  tau_against_sh(options);
  tau_against_sync_points(options);
  tau_against_interval(options);
  tau_against_share(options);
  gain_against_count(options);
  gain_against_spread(options);
  return 0;
}
