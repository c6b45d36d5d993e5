#include "hetscale/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include "hetscale/error.hpp"

namespace hetscale {
namespace {

/// xoshiro256** seeded through splitmix64: small, fast, and one independent stream per
/// repetition so results do not depend on how repetitions are shared among threads.
class Random {
 public:
  Random(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ (0x9E3779B97F4A7C15ULL * (stream + 1));
    for (auto& s : state_) s = splitmix(x);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double gamma(double shape) {
    // Marsaglia-Tsang; shape < 1 through the boost U^(1/shape).
    if (shape < 1) return gamma(shape + 1) * std::pow(uniform_open(), 1 / shape);
    const double d = shape - 1.0 / 3;
    const double c = 1 / std::sqrt(9 * d);
    for (;;) {
      double x = 0;
      double v = 0;
      do {
        x = normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = uniform_open();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
  }

 private:
  static std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  double uniform_open() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
  double normal() {
    const double u1 = uniform_open();
    const double u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
  std::uint64_t state_[4]{};
};

double draw_availability(Random& rng, AvailabilityDistribution distribution, double mean,
                         double sd) {
  if (sd == 0) return mean;
  switch (distribution) {
    case AvailabilityDistribution::uniform:
      return mean + std::sqrt(3.0) * sd * (2 * rng.uniform() - 1);
    case AvailabilityDistribution::two_point:
      return rng.uniform() < 0.5 ? mean - sd : mean + sd;
    case AvailabilityDistribution::beta: {
      const double common = mean * (1 - mean) / (sd * sd) - 1;
      const double x = rng.gamma(mean * common);
      const double y = rng.gamma((1 - mean) * common);
      return x / (x + y);
    }
  }
  return mean;
}

void validate_availability(AvailabilityDistribution distribution, double mean, double sd,
                           const std::string& what) {
  if (!(mean > 0 && mean <= 1)) throw Error(what + ": mean availability must be in (0, 1]");
  if (!(sd >= 0)) throw Error(what + ": availability standard deviation must be >= 0");
  const double reach = distribution == AvailabilityDistribution::uniform ? std::sqrt(3.0) * sd : sd;
  if (distribution == AvailabilityDistribution::beta) {
    if (sd > 0 && sd * sd >= mean * (1 - mean))
      throw Error(what + ": a beta availability needs sigma^2 < a (1 - a)");
  } else if (mean - reach < 0 || mean + reach > 1) {
    throw Error(what + ": availability would leave [0, 1] (mean " + std::to_string(mean) + ", sd " +
                std::to_string(sd) + ")");
  }
}

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
        const double net =
            draw_availability(rng_, AvailabilityDistribution::uniform,
                              options_.network_availability, options_.network_availability_sd);
        const double comm = options_.communication_time / std::max(net, 1e-9);
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
    processes_[i].left = options_.max_interval * rng_.uniform();
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
  Random rng_;
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
    validate_availability(options.distribution, computers[i].mean_availability,
                          computers[i].availability_sd, what);
    if (computers[i].availability_sd > 0 &&
        options.distribution == AvailabilityDistribution::two_point &&
        computers[i].mean_availability - computers[i].availability_sd <= 0)
      throw Error(what + ": a two-point availability needs a - sigma > 0");
    if (!(work[i] >= 0) || !std::isfinite(work[i]))
      throw Error(what + ": work must be >= 0 and finite");
  }
  if (options.communication_time > 0)
    validate_availability(AvailabilityDistribution::uniform, options.network_availability,
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

AvailabilityDistribution parse_availability_distribution(const std::string& name) {
  if (name == "uniform") return AvailabilityDistribution::uniform;
  if (name == "two-point") return AvailabilityDistribution::two_point;
  if (name == "beta") return AvailabilityDistribution::beta;
  throw Error("unknown availability distribution '" + name + "' (uniform, two-point, beta)");
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
  const double golden = (std::sqrt(5.0) - 1) / 2;
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
      double lo = 0;
      double hi = 1;
      double x1 = hi - golden * (hi - lo);
      double x2 = lo + golden * (hi - lo);
      double f1 = at(x1);
      double f2 = at(x2);
      for (int step = 0; step < 30; ++step) {
        if (f1 < f2) {
          hi = x2, x2 = x1, f2 = f1;
          x1 = hi - golden * (hi - lo);
          f1 = at(x1);
        } else {
          lo = x1, x1 = x2, f1 = f2;
          x2 = lo + golden * (hi - lo);
          f2 = at(x2);
        }
      }
      const double best = 0.5 * (lo + hi);
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
