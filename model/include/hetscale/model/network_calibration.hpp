// Network calibration: the linear communication models of a cluster (a message of N bytes
// between two nodes, a broadcast and a barrier over p processes) fitted to what
// hetscale-commbench measured, and the [network] table of the site table they imply.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "hetscale/site/site_table.hpp"

namespace hetscale {

/// y ~ intercept + slope x by ordinary least squares, with its coefficient of
/// determination (1 for a perfect fit; 1 also when every y is the same).
struct LineFit {
  double intercept = 0;
  double slope = 0;
  double r2 = 1;
  [[nodiscard]] double at(double x) const { return intercept + slope * x; }
};

/// Throws Error for fewer than 2 points, sizes that differ, or x all equal.
LineFit fit_line(std::span<const double> x, std::span<const double> y);

/// What hetscale-commbench measured, all times in seconds (medians over repetitions).
struct CommMeasurements {
  std::vector<std::pair<double, double>> send;     // (bytes, one-way time of a message)
  std::vector<std::pair<double, double>> bcast;    // (processes, broadcast time)
  std::vector<std::pair<double, double>> barrier;  // (processes, barrier time)
};

/// The fitted models: T_send(N) = a2 + b2 N (N in bytes), T_bcast(p) = a1 + b1 p,
/// T_barrier(p) = a3 + b3 p (all in seconds), and the star [network] they imply: a
/// message crosses two host links (up and down), so each link's latency is half of a2,
/// and the bandwidth is 1 / b2. Throws Error when the send fit gives no positive
/// bandwidth (b2 <= 0), which means the sizes were too small to see it, or a latency or
/// bandwidth beyond what a site table allows (number_limits.hpp).
struct CommModels {
  LineFit send;
  LineFit bcast;
  LineFit barrier;
  Network network;
};
CommModels fit_comm_models(const CommMeasurements& measured);

}  // namespace hetscale
