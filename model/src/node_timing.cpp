#include "hetscale/model/node_timing.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hetscale/base/error.hpp"
#include "hetscale/site/hostlist.hpp"

namespace hetscale {
namespace {

struct NodeRun {
  double work = 0;     // the node's share of the run's work
  double seconds = 0;  // its slowest rank: the node is done when all its ranks are
};

struct HostLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return natural_host_less(a, b);
  }
};

}  // namespace

std::vector<NodeTimingStats> node_timing_stats(const std::vector<RankSample>& ranks) {
  std::map<std::string, std::map<long long, NodeRun>, HostLess> by_host;
  for (const auto& r : ranks) {
    if (!(r.weight * r.run_work > 0) || !(r.compute_seconds > 0))
      throw Error(fmt::format("run {} rank on {}: weight x work ({} x {}) and compute seconds ({}) "
                              "must be positive to give seconds per unit of work",
                              r.run, r.host, r.weight, r.run_work, r.compute_seconds));
    NodeRun& n = by_host[r.host][r.run];
    n.work += r.weight * r.run_work;
    n.seconds = std::max(n.seconds, r.compute_seconds);
  }
  std::vector<NodeTimingStats> out;
  for (const auto& [host, runs] : by_host) {
    NodeTimingStats s;
    s.host = host;
    s.repetitions = runs.size();
    for (const auto& [id, run] : runs) {
      s.mean_seconds_per_op += run.seconds / run.work;
      s.mean_work += run.work;
    }
    const auto count = static_cast<double>(runs.size());
    s.mean_seconds_per_op /= count;
    s.mean_work /= count;
    double squares = 0;
    for (const auto& [id, run] : runs)
      squares += std::pow(run.seconds / run.work - s.mean_seconds_per_op, 2);
    s.sd_seconds_per_op = runs.size() > 1 ? std::sqrt(squares / (count - 1)) : 0;
    out.push_back(std::move(s));
  }
  return out;
}

VariableComputer variable_computer_from(const NodeTimingStats& stats) {
  return {1 / stats.mean_seconds_per_op,
          stats.sd_seconds_per_op * std::sqrt(stats.mean_work / stats.mean_seconds_per_op)};
}

std::string check_equalization_input(const std::vector<NodeTimingStats>& stats) {
  if (stats.size() < 2)
    throw Error(fmt::format("{} node(s) in the runs: a partition needs at least two nodes",
                            stats.size()));
  std::vector<std::string> short_of_runs;
  for (const auto& s : stats)
    if (s.repetitions < 2) short_of_runs.push_back(fmt::format("{} ({} run)", s.host, s.repetitions));
  if (!short_of_runs.empty())
    throw Error(fmt::format(
        "the spread of a node's time needs at least 2 repetitions of the configuration; too few "
        "for {}: run it again (hetscale jobgen --repetitions)",
        fmt::join(short_of_runs, ", ")));
  const bool none_varies = std::all_of(stats.begin(), stats.end(),
                                       [](const auto& s) { return s.sd_seconds_per_op == 0; });
  return none_varies ? "no node's time varies between repetitions: step 2 equals step 1" : "";
}

VariationChoice choose_variation(const std::vector<NodeTimingStats>& stats,
                                 const std::vector<MeasuredAvailability>& availability) {
  VariationChoice choice;
  std::vector<std::string> unmeasured;
  std::vector<VariableComputer> from_availability;
  for (const NodeTimingStats& s : stats) {
    const auto it = std::find_if(availability.begin(), availability.end(),
                                 [&s](const MeasuredAvailability& a) { return a.host == s.host; });
    if (it == availability.end() || !it->correlation_seconds || !(*it->correlation_seconds > 0)) {
      unmeasured.push_back(s.host);
      continue;
    }
    from_availability.push_back(
        {1 / s.mean_seconds_per_op,
         variation_from_heterogeneity(it->th, 2 * *it->correlation_seconds)});
  }
  if (unmeasured.empty() && !stats.empty()) {
    choice.computers = std::move(from_availability);
    choice.from_availability = true;
    choice.source =
        "variation from availability TH measured on every node (classify --availability)";
    return choice;
  }
  for (const NodeTimingStats& s : stats) choice.computers.push_back(variable_computer_from(s));
  choice.source = fmt::format(
      "variation from run times (time variability per sqrt(s)): no availability with a "
      "correlation time for {}",
      fmt::join(unmeasured, ", "));
  return choice;
}

}  // namespace hetscale
