#include "hetscale/model/network_calibration.hpp"

#include <algorithm>
#include <cmath>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_limits.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale {
namespace {

LineFit fit_pairs(const std::vector<std::pair<double, double>>& points, const char* what) {
  std::vector<double> x, y;
  for (const auto& [a, b] : points) {
    x.push_back(a);
    y.push_back(b);
  }
  try {
    return fit_line(x, y);
  } catch (const Error& e) {
    throw Error(std::string(what) + ": " + e.what());
  }
}

// An overhead's figures within the range a site table's reader accepts.
void check_overhead(const CollectiveOverhead& overhead, const char* kind) {
  if (std::abs(overhead.us) > kMaxLatencyMicroseconds ||
      overhead.us_per_rank > kMaxLatencyMicroseconds)
    throw Error(std::string("the fitted ") + kind + " overhead " +
                detail::shortest_text(overhead.us) + " + " +
                detail::shortest_text(overhead.us_per_rank) + " p us is beyond the " +
                detail::shortest_text(kMaxLatencyMicroseconds) + " us a site table allows");
}

}  // namespace

CollectiveOverhead collective_overhead(const std::vector<std::pair<double, double>>& times,
                                       double latency_seconds) {
  std::vector<double> x, y;
  for (const auto& [p, seconds] : times) {
    const double rounds = p > 1 ? std::ceil(std::log2(p)) : 0.0;
    x.push_back(p);
    y.push_back(seconds - rounds * std::max(0.0, latency_seconds));
  }
  CollectiveOverhead out;
  if (y.empty()) return out;
  out.max_ranks = static_cast<int>(*std::max_element(x.begin(), x.end()));
  double mean = 0;
  for (double v : y) mean += v / static_cast<double>(y.size());
  const bool one_count = std::all_of(x.begin(), x.end(), [&](double p) { return p == x.front(); });
  const LineFit line = one_count ? LineFit{mean, 0, 1} : fit_line(x, y);
  if (line.slope > 0) {
    out.us = line.intercept * 1e6;
    out.us_per_rank = line.slope * 1e6;
  } else {
    out.us = mean * 1e6;
  }
  return out;
}

LineFit fit_line(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw Error("fit_line: x and y differ in size");
  if (x.size() < 2) throw Error("a line needs at least 2 points");
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) throw Error("a line needs at least 2 different x values");
  LineFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  fit.r2 = syy == 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return fit;
}

CommModels fit_comm_models(const CommMeasurements& measured) {
  CommModels out;
  out.send = fit_pairs(measured.send, "message times");
  out.bcast = fit_pairs(measured.bcast, "broadcast times");
  out.barrier = fit_pairs(measured.barrier, "barrier times");
  if (measured.allreduce.size() >= 2) out.allreduce = fit_pairs(measured.allreduce, "all-reduce times");
  if (out.send.slope <= 0) {
    throw Error("message times do not grow with the size: no bandwidth can be fitted "
                "(measure larger messages)");
  }
  out.network.topology = NetworkTopology::star;
  // The latency from the smallest message, less its transfer at the fitted bandwidth: the
  // least-squares intercept over sizes spanning decades is set by the largest messages'
  // scatter, and can be many times what a small message takes.
  const auto smallest = std::min_element(measured.send.begin(), measured.send.end());
  const double one_way = smallest->second - out.send.slope * smallest->first;
  out.network.latency_us = std::max(0.0, one_way / 2) * 1e6;
  out.network.bandwidth_MBps = 1.0 / out.send.slope / 1e6;
  // The figures a site table's reader accepts, so that the [network] written is read back.
  if (out.network.latency_us > kMaxLatencyMicroseconds)
    throw Error("the fitted latency " + detail::shortest_text(out.network.latency_us) +
                " us is more than the " + detail::shortest_text(kMaxLatencyMicroseconds) +
                " us a site table allows");
  if (out.network.bandwidth_MBps > kMaxBandwidthMBps)
    throw Error("the fitted bandwidth " + detail::shortest_text(out.network.bandwidth_MBps) +
                " MBps is more than the " + detail::shortest_text(kMaxBandwidthMBps) +
                " MBps a site table allows: message times hardly grow with the size "
                "(measure larger messages)");
  const double latency = 2e-6 * out.network.latency_us;
  out.network.barrier_overhead = collective_overhead(measured.barrier, latency);
  out.network.broadcast_overhead = collective_overhead(measured.bcast, latency);
  out.network.allreduce_overhead = collective_overhead(measured.allreduce, latency);
  check_overhead(out.network.barrier_overhead, "barrier");
  check_overhead(out.network.broadcast_overhead, "broadcast");
  check_overhead(out.network.allreduce_overhead, "all-reduce");
  return out;
}

}  // namespace hetscale
