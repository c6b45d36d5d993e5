// Availability of a shared computer (docs/science.md section 3, Huang & Lee): A(t) in [0, 1],
// drawn with mean a and standard deviation sigma at the start of every interval and held
// for the interval, whose length is uniform in [0, max_interval]. The Monte Carlo simulator
// (simulation.hpp) and the twin's speed profiles (twin_platform.hpp) both draw through
// these functions, from the same random streams.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace hetscale {

enum class AvailabilityDistribution {
  uniform,    // a +/- sqrt(3) sigma, flat (the paper's choice)
  two_point,  // a - sigma or a + sigma with probability 1/2
  beta        // Beta with mean a and standard deviation sigma, on [0, 1]
};

AvailabilityDistribution parse_availability_distribution(const std::string& name);

/// xoshiro256** seeded through splitmix64 from (seed, stream): one independent stream per
/// stream number, so a result depends on the seed and on what a stream stands for (a
/// simulated repetition, a twin host), never on the order or the thread that draws.
class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ (0x9E3779B97F4A7C15ULL * (stream + 1));
    for (auto& s : state_) s = splitmix(x);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform_open() {  // (0, 1)
    return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
  }
  double normal() {
    const double u1 = uniform_open();
    const double u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
  double gamma(double shape);  // Marsaglia-Tsang

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
  std::uint64_t state_[4]{};
};

/// Throws Error("<what>: ...") unless `distribution` can have mean `mean` in (0, 1] and
/// standard deviation `sd` >= 0 while staying in [0, 1] (uniform: a - sqrt(3) sigma >= 0
/// and a + sqrt(3) sigma <= 1).
void check_availability(AvailabilityDistribution distribution, double mean, double sd,
                        const std::string& what);

/// One availability with mean `mean` and standard deviation `sd` (uniform: on
/// [a - sqrt(3) sigma, a + sqrt(3) sigma]); `mean` itself, drawing nothing, when sd = 0.
double draw_availability(RandomStream& random, AvailabilityDistribution distribution, double mean,
                         double sd);

/// How long a drawn availability holds: uniform in [0, max_interval].
inline double draw_interval(RandomStream& random, double max_interval) {
  return max_interval * random.uniform();
}

/// From `start` on (seconds), the availability is `availability`.
struct AvailabilityStep {
  double start = 0;
  double availability = 1;
};

/// One computer's uniform availability process over [0, horizon): the steps in time
/// order, the first at 0, each availability drawn before its interval (the simulator's
/// order), the last one cut at the horizon. Constant availability (sd = 0) is one step.
/// Throws Error as check_availability does (naming `what`), and when max_interval or
/// horizon is not positive and finite.
std::vector<AvailabilityStep> availability_profile(RandomStream& random, double mean, double sd,
                                                   double max_interval, double horizon,
                                                   const std::string& what);

}  // namespace hetscale
