// A network probe's plan (probe_plan.hpp).
#include "hetscale/model/probe_plan.hpp"

#include <algorithm>
#include <cmath>

#include "hetscale/base/error.hpp"

namespace hetscale {

std::vector<double> log_uniform_sizes(double max_bytes, int per_decade) {
  if (!(max_bytes >= 1) || !std::isfinite(max_bytes)) throw Error("the largest message must be at least 1 byte");
  if (per_decade < 1) throw Error("sizes per decade must be at least 1");
  const double decades = std::log10(max_bytes);
  const int steps = std::max(1, static_cast<int>(std::ceil(decades * per_decade)));
  std::vector<double> sizes;
  for (int i = 0; i <= steps; ++i) {
    const double b = i == steps ? std::floor(max_bytes) : std::round(std::pow(10.0, decades * i / steps));
    if (sizes.empty() || b > sizes.back()) sizes.push_back(b);
  }
  return sizes;
}

int probe_repetitions(double bytes, int most, double full_bytes) {
  if (bytes <= full_bytes) return std::max(1, most);
  return std::clamp(static_cast<int>(std::floor(most * full_bytes / bytes)), 1, std::max(1, most));
}

std::vector<std::size_t> shuffled_order(std::size_t count, std::uint64_t seed) {
  std::uint64_t state = seed;
  const auto next = [&state] {  // SplitMix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::vector<std::size_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = i;
  for (std::size_t i = count; i > 1; --i) std::swap(order[i - 1], order[next() % i]);
  return order;
}

std::vector<int> collective_process_counts(int ranks) {
  std::vector<int> counts;
  if (ranks <= 16) {
    for (int p = 2; p <= ranks; ++p) counts.push_back(p);
  } else {
    for (int p = 2; p < ranks; p *= 2) counts.push_back(p);
    counts.push_back(ranks);
  }
  return counts;
}

std::vector<int> saturation_flow_counts(int pairs) {
  std::vector<int> flows;
  for (int k = 1; k < pairs; k *= 2) flows.push_back(k);
  if (pairs >= 1) flows.push_back(pairs);
  return flows;
}

NodePairs saturation_pairs(std::size_t nodes, const std::vector<std::string>& groups,
                           const std::vector<std::string>& group_order) {
  std::vector<std::size_t> order(nodes);
  for (std::size_t i = 0; i < nodes; ++i) order[i] = i;
  NodePairs out;
  out.pairing = "halves";
  if (groups.size() == nodes && nodes > 0 && std::none_of(groups.begin(), groups.end(), [](const auto& g) { return g.empty(); })) {
    const auto rank_of = [&](const std::string& g) {
      return static_cast<std::size_t>(std::find(group_order.begin(), group_order.end(), g) - group_order.begin());
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return rank_of(groups[a]) < rank_of(groups[b]); });
    out.pairing = "groups";
  }
  const std::size_t half = nodes / 2;
  for (std::size_t i = 0; i < half; ++i) out.pairs.emplace_back(order[i], order[i + half]);
  return out;
}

std::vector<double> collective_sizes(MessagePattern pattern, double max_bytes, int processes) {
  std::vector<double> sizes;
  switch (pattern) {
    case MessagePattern::barrier:
      return {0};
    case MessagePattern::allreduce:
      for (double b = 12; b <= std::min(max_bytes, 49152.0); b *= 8) sizes.push_back(b);
      return sizes;
    case MessagePattern::alltoall:
      for (double b = 8; b <= max_bytes; b *= 8) {
        if (b < processes) continue;
        const double rounded = std::floor(b / processes) * processes;
        if (sizes.empty() || rounded > sizes.back()) sizes.push_back(rounded);
      }
      return sizes;
    case MessagePattern::send:
    case MessagePattern::broadcast:
    case MessagePattern::scatterv:
    case MessagePattern::gatherv:
      for (double b = 8; b <= max_bytes; b *= 8) sizes.push_back(b);
      return sizes;
  }
  return sizes;
}

}  // namespace hetscale
