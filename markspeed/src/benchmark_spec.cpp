// Benchmark names and the small statistics every benchmark reports.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "hetscale/base/error.hpp"
#include "hetscale/markspeed.hpp"

namespace hetscale::markspeed {

std::string BenchmarkSpec::name() const {
  switch (kind) {
    case BenchmarkKind::dgemm:
      return "dgemm";
    case BenchmarkKind::stream:
      return "stream";
    case BenchmarkKind::kernel:
      return "kernel:" + kernel + ":" + std::to_string(n);
  }
  return "";
}

std::string BenchmarkSpec::unit() const {
  switch (kind) {
    case BenchmarkKind::dgemm:
      return "Mflops";
    case BenchmarkKind::stream:
      return "MB/s";
    case BenchmarkKind::kernel:
      return "Mop/s";
  }
  return "";
}

BenchmarkSpec parse_benchmark(std::string_view text) {
  if (text == "dgemm") return {BenchmarkKind::dgemm, "", 0};
  if (text == "stream") return {BenchmarkKind::stream, "", 0};
  const std::string usage = "benchmark '" + std::string(text) +
                            "': expected dgemm, stream or kernel:<mm|ge|conv2d|lu>:<N>";
  if (!text.starts_with("kernel:")) throw Error(usage);
  const std::string_view rest = text.substr(7);
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos) throw Error(usage);
  const std::string_view kernel = rest.substr(0, colon);
  const std::string_view size = rest.substr(colon + 1);
  if (kernel != "mm" && kernel != "ge" && kernel != "conv2d" && kernel != "lu") throw Error(usage);
  std::size_t n = 0;
  const auto [ptr, ec] = std::from_chars(size.data(), size.data() + size.size(), n);
  if (size.empty() || ec != std::errc() || ptr != size.data() + size.size() || n < 2) {
    throw Error("benchmark '" + std::string(text) + "': N must be an integer >= 2");
  }
  return {BenchmarkKind::kernel, std::string(kernel), n};
}

double coefficient_of_variation(const std::vector<double>& values) {
  if (values.empty()) return 0;
  const double n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double square_sum = 0;
  for (double v : values) square_sum += (v - mean) * (v - mean);
  return mean != 0 ? std::sqrt(square_sum / n) / mean : 0;
}

}  // namespace hetscale::markspeed
