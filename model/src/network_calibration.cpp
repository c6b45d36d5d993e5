#include "hetscale/model/network_calibration.hpp"

#include <algorithm>

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

}  // namespace

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
  if (out.send.slope <= 0) {
    throw Error("message times do not grow with the size: no bandwidth can be fitted "
                "(measure larger messages)");
  }
  out.network.topology = NetworkTopology::star;
  out.network.latency_us = std::max(0.0, out.send.intercept / 2) * 1e6;
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
  return out;
}

}  // namespace hetscale
