#include "hetscale/kernel_weights.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "hetscale/error.hpp"
#include "hetscale/row_distribution.hpp"

namespace hetscale {

double parse_number(std::string_view text, std::string_view what) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    throw Error(std::string(what) + ": '" + std::string(text) + "' is not a number");
  }
  return value;
}

std::vector<double> parse_kernel_weights(std::string_view text, std::size_t ranks) {
  if (ranks == 0) throw Error("--weights: no ranks");
  if (text == "equal") return std::vector<double>(ranks, 1.0 / static_cast<double>(ranks));
  std::vector<double> weights;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma - start);
    const double w = parse_number(item, "--weights");
    if (w <= 0) {
      throw Error("--weights: weight " + std::to_string(weights.size() + 1) + " is '" +
                  std::string(item) + "'; every weight must be positive");
    }
    weights.push_back(w);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (weights.size() != ranks) {
    throw Error("--weights: " + std::to_string(weights.size()) + " weights given for " +
                std::to_string(ranks) + " ranks; give one per rank or 'equal'");
  }
  return normalise_weights(weights);
}

}  // namespace hetscale
