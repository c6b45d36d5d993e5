#include "isotonic.hpp"

#include <cstddef>

namespace hetscale::detail {

std::vector<double> isotonic_non_decreasing(std::span<const double> values,
                                            std::span<const double> weights) {
  struct Block {
    double mean;
    double weight;
    std::size_t size;  // input values pooled into this block
  };
  std::vector<Block> blocks;
  blocks.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    blocks.push_back({values[i], weights[i], 1});
    // Pool backwards while the last block undercuts the one before it.
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean > blocks.back().mean) {
      const Block last = blocks.back();
      blocks.pop_back();
      Block& prev = blocks.back();
      const double weight = prev.weight + last.weight;
      prev.mean = (prev.mean * prev.weight + last.mean * last.weight) / weight;
      prev.weight = weight;
      prev.size += last.size;
    }
  }
  std::vector<double> fitted;
  fitted.reserve(values.size());
  for (const Block& b : blocks) fitted.insert(fitted.end(), b.size, b.mean);
  return fitted;
}

}  // namespace hetscale::detail
