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
  std::vector<std::pair<double, double>> allreduce;  // (processes, all-reduce time); may be empty
};

/// The fitted models: T_send(N) = a2 + b2 N (N in bytes), T_bcast(p) = a1 + b1 p,
/// T_barrier(p) = a3 + b3 p, T_allreduce(p) = a4 + b4 p (all in seconds; the all-reduce
/// fit is all zero when it was not measured), and the star [network] they imply: a
/// message crosses two host links (up and down), so each link's latency is half of the
/// smallest message's time less its transfer at 1 / b2 (the intercept a2 of a fit over
/// decades of sizes is set by the largest messages), and the bandwidth is 1 / b2. Each
/// collective's overhead in [network] is what it measured beyond what its messages cost
/// on those links (collective_overhead). Throws
/// Error when the send fit gives no positive bandwidth (b2 <= 0), which means the sizes
/// were too small to see it, or a latency, bandwidth or overhead beyond what a site table
/// allows (number_limits.hpp).
struct CommModels {
  LineFit send;
  LineFit bcast;
  LineFit barrier;
  LineFit allreduce{0, 0, 1};
  Network network;
};
CommModels fit_comm_models(const CommMeasurements& measured);

/// A collective's overhead from its times over process counts: at each count p, the time
/// beyond ceil(log2 p) one-way messages of `latency_seconds` (the rounds of the tree or
/// recursive-doubling algorithm the twin runs, whose messages the link model already
/// charges), then a line in p through those excesses. A line that falls with p becomes
/// their mean (an overhead does not shrink as ranks are added); one process count gives
/// a constant. It holds up to the largest count measured (max_ranks). No times give no
/// overhead.
CollectiveOverhead collective_overhead(const std::vector<std::pair<double, double>>& times,
                                       double latency_seconds);

}  // namespace hetscale
