#include "hetscale/model/availability.hpp"

#include <fmt/format.h>

#include "hetscale/base/error.hpp"

namespace hetscale {

double RandomStream::gamma(double shape) {
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

AvailabilityDistribution parse_availability_distribution(const std::string& name) {
  if (name == "uniform") return AvailabilityDistribution::uniform;
  if (name == "two-point") return AvailabilityDistribution::two_point;
  if (name == "beta") return AvailabilityDistribution::beta;
  throw Error("unknown availability distribution '" + name + "' (uniform, two-point, beta)");
}

void check_availability(AvailabilityDistribution distribution, double mean, double sd,
                        const std::string& what) {
  if (!(mean > 0 && mean <= 1)) throw Error(what + ": mean availability must be in (0, 1]");
  if (!(sd >= 0) || !std::isfinite(sd))
    throw Error(what + ": availability standard deviation must be >= 0");
  if (distribution == AvailabilityDistribution::beta) {
    if (sd > 0 && sd * sd >= mean * (1 - mean))
      throw Error(what + ": a beta availability needs sigma^2 < a (1 - a)");
    return;
  }
  const double reach = distribution == AvailabilityDistribution::uniform ? std::sqrt(3.0) * sd : sd;
  if (mean - reach < 0 || mean + reach > 1)
    throw Error(fmt::format("{}: availability would leave [0, 1] (mean {:g}, sd {:g}: {} "
                            "reaches [{:.4g}, {:.4g}])",
                            what, mean, sd,
                            distribution == AvailabilityDistribution::uniform ? "a +/- sqrt(3) sd"
                                                                              : "a +/- sd",
                            mean - reach, mean + reach));
}

double draw_availability(RandomStream& random, AvailabilityDistribution distribution, double mean,
                         double sd) {
  if (sd == 0) return mean;
  switch (distribution) {
    case AvailabilityDistribution::uniform:
      return mean + std::sqrt(3.0) * sd * (2 * random.uniform() - 1);
    case AvailabilityDistribution::two_point:
      return random.uniform() < 0.5 ? mean - sd : mean + sd;
    case AvailabilityDistribution::beta: {
      const double common = mean * (1 - mean) / (sd * sd) - 1;
      const double x = random.gamma(mean * common);
      const double y = random.gamma((1 - mean) * common);
      return x / (x + y);
    }
  }
  return mean;
}

std::vector<AvailabilityStep> availability_profile(RandomStream& random, double mean, double sd,
                                                   double max_interval, double horizon,
                                                   const std::string& what) {
  check_availability(AvailabilityDistribution::uniform, mean, sd, what);
  if (!(max_interval > 0) || !std::isfinite(max_interval))
    throw Error(fmt::format("{}: the maximum interval must be positive and finite, not {}", what,
                            max_interval));
  if (!(horizon > 0) || !std::isfinite(horizon))
    throw Error(fmt::format("{}: the horizon must be positive and finite, not {}", what, horizon));
  if (sd == 0) return {{0, mean}};
  std::vector<AvailabilityStep> steps;
  for (double start = 0; start < horizon;) {
    steps.push_back({start, draw_availability(random, AvailabilityDistribution::uniform, mean, sd)});
    start += draw_interval(random, max_interval);
  }
  return steps;
}

}  // namespace hetscale
