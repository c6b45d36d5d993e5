// Validation of two-step partitioning against the Monte Carlo model (docs/validation.md):
// prints
//  0. the worked example of the slow, steady computer much slower than the noisy one;
//  1. on two computers with s_1 < s_2, over speed ratios and differences of temporal
//     heterogeneity, the case step 2 finds, the reduction of tau by step 2 (by case), by the
//     equalization scheme alone and by the best partition, and the percentage error eps;
//  2. the trends the paper reports: tau against TH, SH, N_s and interval length; tau
//     against the share given to the steadier computer; gain of step 2 over step 1 against
//     the number of computers and the spread of sigma_T;
//  3. the gain of step 2 and of the optimum against the number of computers in the paper's
//     two N-computer settings, modelled and simulated, and eps.
// Not a Google Benchmark: the figures are the output. Fixed seed: same output every run.
//   build/default/bin/equalization_validation [--repetitions R] [--threads T]
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "hetscale/model/equalization.hpp"
#include "hetscale/model/simulation.hpp"

namespace {

using hetscale::SimulatedComputer;
using hetscale::SimulationOptions;

constexpr double kAvailability = 0.5;  // the paper's mean availability
constexpr double kTime = 100;          // step-1 time units per computer

SimulatedComputer computer(double max_power, double th) {
  return {max_power, kAvailability, th * kAvailability};
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
  return tau_of(cs, hetscale::proportional_partition(hetscale::variable_computers(cs, o.max_interval), total_work(cs)).work, o);
}

/// Percent reduction of tau from step 1 to step 2 (by case).
double step2_gain(const std::vector<SimulatedComputer>& cs, const SimulationOptions& o) {
  const auto two = hetscale::two_step_partition(hetscale::variable_computers(cs, o.max_interval), total_work(cs));
  const double t1 = tau_of(cs, two.step1.work, o);
  const double t2 = tau_of(cs, two.step2.work, o);
  return 100 * (t1 - t2) / t1;
}

/// eps = (dtau_max - dtau) / dtau_max x 100 for reductions from `step1` to `heuristic`
/// and to `best`.
double eps(double step1, double heuristic, double best) {
  return 100 * ((step1 - best) - (step1 - heuristic)) / (step1 - best);
}

void worked_example() {
  fmt::print("## 0. Worked example (model): t_i = 100, sigma_T 10 on the slow and 60 on the fast "
             "computer, s_2 / s_1 = 8\n\n");
  const std::vector<hetscale::VariableComputer> model{{1, 1}, {8, 6}};
  const auto two = hetscale::two_step_partition(model, 900);
  const auto best = hetscale::optimal_partition(model, 900);
  fmt::print("case {}; modelled tau: step 1 {:.2f}, equalized {:.2f} (slow computer's work {:.1f}), "
             "step 2 {:.2f} (slow computer's work {:.1f}), optimum {:.2f}\n\n",
             hetscale::case_key(two.which), two.tau_step1, two.tau_equalized,
             two.equalized.work[0], two.tau_step2, two.step2.work[0],
             hetscale::modelled_tau(model, best.work));
}

/// Two computers, C_1 the slower: step 2 by case and equalization alone against the best
/// partition, in the model and in the simulation.
void two_computer_cases(const SimulationOptions& o) {
  fmt::print("## 1. Two computers, s_1 < s_2: step 2 by case against the best partition\n\n");
  fmt::print("| s2/s1 | TH 1 | TH 2 | case | modelled tau: step 1 / equalized / step 2 / optimum "
             "| simulated tau: step 1 / equalized / step 2 / best | eps step 2 % | eps "
             "equalization % |\n|---|---|---|---|---|---|---|---|\n");
  double eps_step2 = 0, eps_equalized = 0, eps_model = 0, worst = 0;
  int counted = 0, cases = 0;
  for (double ratio : {1.5, 2.0, 3.0, 4.0, 6.0, 8.0}) {
    for (double difference : {0.1, 0.2, 0.3, 0.4}) {
      for (bool slow_noisy : {true, false}) {
        const double th1 = slow_noisy ? 0.1 + difference : 0.1;
        const double th2 = slow_noisy ? 0.1 : 0.1 + difference;
        const std::vector<SimulatedComputer> cs{computer(1, th1), computer(ratio, th2)};
        const auto model = hetscale::variable_computers(cs, o.max_interval);
        const double total = total_work(cs);
        const auto two = hetscale::two_step_partition(model, total);
        const auto best = hetscale::optimal_partition(model, total);
        const double model_best = hetscale::modelled_tau(model, best.work);
        const double s1 = tau_of(cs, two.step1.work, o);
        const double se = tau_of(cs, two.equalized.work, o);
        const double s2 = tau_of(cs, two.step2.work, o);
        const double searched = tau_of(cs, hetscale::optimise_partition(cs, best.work, o), o);
        const double sbest = std::min({searched, s1, s2, se});
        // eps only where there is a reduction worth having (> 0.5% of tau).
        const bool meaningful = s1 - sbest > 0.005 * s1;
        ++cases;
        if (two.tau_step1 - model_best > 0)
          eps_model += std::max(0.0, eps(two.tau_step1, two.tau_step2, model_best));
        if (meaningful) {
          const double e = eps(s1, s2, sbest);
          eps_step2 += e;
          eps_equalized += eps(s1, se, sbest);
          worst = std::max(worst, e);
          ++counted;
        }
        fmt::print("| {:g} | {:.1f} | {:.1f} | {} | {:.2f} / {:.2f} / {:.2f} / {:.2f} | {:.2f} / "
                   "{:.2f} / {:.2f} / {:.2f} | {} | {} |\n",
                   ratio, th1, th2, hetscale::case_key(two.which), two.tau_step1,
                   two.tau_equalized, two.tau_step2, model_best, s1, se, s2, sbest,
                   meaningful ? fmt::format("{:.1f}", eps(s1, s2, sbest)) : std::string("-"),
                   meaningful ? fmt::format("{:.1f}", eps(s1, se, sbest)) : std::string("-"));
      }
    }
  }
  fmt::print("\n{} cases; modelled: step 2 within {:.3f}% of the optimum's reduction on average\n",
             cases, eps_model / cases);
  fmt::print("simulated, {} cases with a best reduction > 0.5%: average eps of step 2 {:.1f}% "
             "(worst {:.1f}%), of the equalization scheme alone {:.1f}% (paper: 5.1%; target "
             "<= 5%)\n\n",
             counted, eps_step2 / counted, worst, eps_equalized / counted);
}

/// The paper's N-computer settings, t_i = 100 at step 1 and sigma_max = 20 (TH up to 0.55 in
/// the simulation): gains of step 2 and of the optimum over step 1, modelled and simulated.
void gain_in_paper_settings(const SimulationOptions& o) {
  fmt::print("## 3. Gain over step 1 against the number of computers (t_i = 100, sigma_max = "
             "20)\n\n");
  const double correlation = hetscale::correlation_time_of_uniform_intervals(o.max_interval);
  for (int setting = 0; setting < 2; ++setting) {
    fmt::print("{}\n\n| N | case | modelled gain: step 2 % / optimum % | eps (model) % | "
               "simulated gain: step 2 % / optimum % |\n|---|---|---|---|---|\n",
               setting == 0 ? "(a) s_i = 1, sigma_Ti = (i - 1) / (N - 1) sigma_max"
                            : "(b) s_i = 1 + 3 (i - 1) / (N - 1) rising, sigma_Ti = (N - i) / "
                              "(N - 1) sigma_max falling");
    for (std::size_t n : {2, 4, 8, 16, 32}) {
      std::vector<SimulatedComputer> cs;
      for (std::size_t i = 0; i < n; ++i) {
        const double share = static_cast<double>(i) / static_cast<double>(n - 1);
        const double speed = setting == 0 ? 1 : 1 + 3 * share;
        const double sigma = 20 * (setting == 0 ? share : 1 - share);
        cs.push_back(computer(speed / kAvailability, sigma / std::sqrt(kTime * correlation)));
      }
      const auto model = hetscale::variable_computers(cs, o.max_interval);
      const double total = total_work(cs);
      const auto two = hetscale::two_step_partition(model, total);
      const double best = hetscale::modelled_tau(model, hetscale::optimal_partition(model, total).work);
      const double s1 = tau_of(cs, two.step1.work, o);
      const double s2 = tau_of(cs, two.step2.work, o);
      const double sbest = tau_of(cs, hetscale::optimal_partition(model, total).work, o);
      fmt::print("| {} | {} | {:.2f} / {:.2f} | {:.1f} | {:.2f} / {:.2f} |\n", n,
                 hetscale::case_key(two.which), 100 * (two.tau_step1 - two.tau_step2) / two.tau_step1,
                 100 * (two.tau_step1 - best) / two.tau_step1, eps(two.tau_step1, two.tau_step2, best),
                 100 * (s1 - s2) / s1, 100 * (s1 - sbest) / s1);
    }
    fmt::print("\n");
  }
}

std::vector<SimulatedComputer> equal_computers(std::size_t n, double th) {
  return std::vector<SimulatedComputer>(n, computer(1, th));
}

void tau_against_th(const SimulationOptions& o) {
  fmt::print("## 2a. tau against TH (4 equal computers, step 1)\n\n| TH | tau | sigma_T/tau |\n|---|---|---|\n");
  for (double th : {0.0, 0.1, 0.2, 0.3, 0.4, 0.5}) {
    const auto cs = equal_computers(4, th);
    const auto r = hetscale::simulate(
        cs, hetscale::proportional_partition(hetscale::variable_computers(cs, o.max_interval), total_work(cs)).work, o);
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
    const auto step2 = hetscale::two_step_partition(hetscale::variable_computers(cs, o.max_interval), total).step2.work;
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
  worked_example();
  two_computer_cases(options);
  tau_against_th(options);
  tau_against_sh(options);
  tau_against_sync_points(options);
  tau_against_interval(options);
  tau_against_share(options);
  gain_against_count(options);
  gain_against_spread(options);
  gain_in_paper_settings(options);
  return 0;
}
