#include "hetscale/model/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include "golden_section.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/model/availability.hpp"

namespace hetscale {
namespace {

/// One computer's availability process: the current availability and how long it lasts.
struct Process {
  double availability = 0;
  double left = 0;  // time left in the current interval
};

class Repetition {
 public:
  Repetition(std::span<const SimulatedComputer> computers, const SimulationOptions& options,
             std::size_t index)
      : computers_(computers),
        options_(options),
        rng_(options.seed, index),
        processes_(computers.size()) {
    for (std::size_t i = 0; i < computers.size(); ++i) redraw(i);
  }

  double run(std::span<const double> work) {
    const double phases = static_cast<double>(options_.sync_points);
    double elapsed = 0;
    std::vector<double> finish(computers_.size());
    for (std::size_t phase = 0; phase < options_.sync_points; ++phase) {
      double slowest = 0;
      for (std::size_t i = 0; i < computers_.size(); ++i) {
        finish[i] = compute(i, work[i] / phases);
        slowest = std::max(slowest, finish[i]);
      }
      for (std::size_t i = 0; i < computers_.size(); ++i) idle(i, slowest - finish[i]);
      double phase_time = slowest;
      if (options_.communication_time > 0) {
        // Each computer's available bandwidth is its own draw; the phase ends when the
        // slowest communication does.
        double comm = 0;
        for (std::size_t i = 0; i < computers_.size(); ++i) {
          const double net =
              draw_availability(rng_, AvailabilityDistribution::uniform,
                                options_.network_availability, options_.network_availability_sd);
          comm = std::max(comm, options_.communication_time / std::max(net, 1e-9));
        }
        for (std::size_t i = 0; i < computers_.size(); ++i) idle(i, comm);
        phase_time += comm;
      }
      elapsed += phase_time;
    }
    return elapsed;
  }

 private:
  void redraw(std::size_t i) {
    const auto& c = computers_[i];
    processes_[i].availability =
        draw_availability(rng_, options_.distribution, c.mean_availability, c.availability_sd);
    processes_[i].left = draw_interval(rng_, options_.max_interval);
  }

  /// Time computer i needs for `work`, consuming its availability intervals.
  double compute(std::size_t i, double work) {
    auto& p = processes_[i];
    const double power = computers_[i].max_power;
    double time = 0;
    while (work > 0) {
      const double rate = power * p.availability;
      if (rate * p.left >= work) {
        const double dt = work / rate;
        time += dt;
        p.left -= dt;
        break;
      }
      work -= rate * p.left;
      time += p.left;
      redraw(i);
    }
    return time;
  }

  /// Lets time pass on computer i while it waits for the others.
  void idle(std::size_t i, double time) {
    auto& p = processes_[i];
    while (time > p.left) {
      time -= p.left;
      redraw(i);
    }
    p.left -= time;
  }

  std::span<const SimulatedComputer> computers_;
  const SimulationOptions& options_;
  RandomStream rng_;
  std::vector<Process> processes_;
};

void validate(std::span<const SimulatedComputer> computers, std::span<const double> work,
              const SimulationOptions& options) {
  if (computers.empty()) throw Error("simulation needs at least one computer");
  if (work.size() != computers.size())
    throw Error("the partition has " + std::to_string(work.size()) + " parts for " +
                std::to_string(computers.size()) + " computers");
  if (options.repetitions < 2) throw Error("simulation needs at least 2 repetitions");
  if (options.sync_points < 1) throw Error("N_s must be at least 1");
  if (!(options.max_interval > 0)) throw Error("the maximum interval must be positive");
  for (std::size_t i = 0; i < computers.size(); ++i) {
    const std::string what = "computer " + std::to_string(i);
    if (!(computers[i].max_power > 0)) throw Error(what + ": maximum power must be positive");
    check_availability(options.distribution, computers[i].mean_availability,
                          computers[i].availability_sd, what);
    if (computers[i].availability_sd > 0 &&
        options.distribution == AvailabilityDistribution::two_point &&
        computers[i].mean_availability - computers[i].availability_sd <= 0)
      throw Error(what + ": a two-point availability needs a - sigma > 0");
    if (!(work[i] >= 0) || !std::isfinite(work[i]))
      throw Error(what + ": work must be >= 0 and finite");
  }
  if (options.communication_time > 0)
    check_availability(AvailabilityDistribution::uniform, options.network_availability,
                          options.network_availability_sd, "network");
}

/// T of every repetition, computed by `threads` threads over contiguous chunks.
std::vector<double> run_all(std::span<const SimulatedComputer> computers,
                            std::span<const double> work, const SimulationOptions& options) {
  std::vector<double> times(options.repetitions);
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::min<std::size_t>(options.threads == 0 ? hardware : options.threads, options.repetitions);
  auto worker = [&](std::size_t first, std::size_t last) {
    for (std::size_t r = first; r < last; ++r)
      times[r] = Repetition(computers, options, r).run(work);
  };
  const std::size_t chunk = (options.repetitions + threads - 1) / threads;
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < threads; ++t)
      pool.emplace_back(worker, std::min(t * chunk, options.repetitions),
                        std::min((t + 1) * chunk, options.repetitions));
    worker(0, std::min(chunk, options.repetitions));
  }  // every thread has joined before `times` is read
  return times;
}

}  // namespace

std::vector<VariableComputer> variable_computers(std::span<const SimulatedComputer> computers, double max_interval) {
  const double correlation = correlation_time_of_uniform_intervals(max_interval);
  std::vector<VariableComputer> model;
  for (const auto& c : computers)
    model.push_back({c.max_power * c.mean_availability,
                     variation_from_heterogeneity(c.availability_sd / c.mean_availability, correlation)});
  return model;
}

SimulationResult simulate(std::span<const SimulatedComputer> computers,
                          std::span<const double> work, const SimulationOptions& options) {
  validate(computers, work, options);
  const auto times = run_all(computers, work, options);
  const double n = static_cast<double>(times.size());
  SimulationResult result;
  result.tau = std::accumulate(times.begin(), times.end(), 0.0) / n;
  double sum_sq = 0;
  for (double t : times) sum_sq += (t - result.tau) * (t - result.tau);
  result.sigma_t = std::sqrt(sum_sq / (n - 1));
  result.normalised_sd = result.tau > 0 ? result.sigma_t / result.tau : 0;
  result.deadline = options.deadline > 0 ? options.deadline : result.tau;
  result.risk_factor =
      static_cast<double>(std::count_if(times.begin(), times.end(),
                                        [&](double t) { return t > result.deadline; })) /
      n;
  return result;
}

std::vector<double> optimise_partition(std::span<const SimulatedComputer> computers,
                                       std::span<const double> start,
                                       const SimulationOptions& options, int sweeps) {
  std::vector<double> work(start.begin(), start.end());
  validate(computers, work, options);
  auto tau = [&](const std::vector<double>& w) { return simulate(computers, w, options).tau; };
  if (computers.size() < 2) return work;
  // Golden-section search of the share of pair (i, j)'s joint work that goes to i. With
  // common random numbers tau is a deterministic function of the partition.
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (std::size_t i = 0; i + 1 < computers.size(); ++i) {
      const std::size_t j = i + 1;
      const double pair = work[i] + work[j];
      if (pair <= 0) continue;
      auto at = [&](double share) {
        auto w = work;
        w[i] = share * pair;
        w[j] = pair - w[i];
        return tau(w);
      };
      const double best = detail::golden_section_minimum(at, 0, 1, 30);
      // Keep the move only if it really helps (golden section assumes one minimum).
      const double current = work[i] / pair;
      if (at(best) < at(current)) {
        work[i] = best * pair;
        work[j] = pair - work[i];
      }
    }
  }
  return work;
}

}  // namespace hetscale
