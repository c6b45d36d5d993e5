#include "common/kernel_weights.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "common/row_distribution.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale {

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
