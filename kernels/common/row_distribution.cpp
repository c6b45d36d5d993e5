#include "common/row_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/site/weight_shares.hpp"

namespace hetscale {

void validate_weights(std::span<const double> weights) {
  if (weights.empty()) throw Error("weights: no weight given");
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!std::isfinite(weights[i]) || weights[i] <= 0) {
      throw Error("weights: weight of rank " + std::to_string(i) + " is " +
                  std::to_string(weights[i]) + "; every weight must be a positive number");
    }
  }
}

std::vector<double> normalise_weights(std::span<const double> weights) {
  validate_weights(weights);
  // The one normalisation of weights (scaled by the largest first: no sum overflows).
  std::vector<double> out(weights.begin(), weights.end());
  normalise_shares(out, {}, "weights");
  return out;
}

std::vector<std::size_t> block_counts(std::size_t n, std::span<const double> weights) {
  const std::vector<double> share = normalise_weights(weights);
  std::vector<std::size_t> counts(share.size());
  std::vector<double> remainder(share.size());
  std::size_t given = 0;
  for (std::size_t i = 0; i < share.size(); ++i) {
    const double quota = static_cast<double>(n) * share[i];
    counts[i] = std::min(n, static_cast<std::size_t>(std::floor(quota)));
    remainder[i] = quota - static_cast<double>(counts[i]);
    given += counts[i];
  }
  // Rounding can only leave rows over (never too many, barring huge n); deal them out.
  std::vector<std::size_t> order(share.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t k = 0; given < n; k = (k + 1) % order.size(), ++given) ++counts[order[k]];
  while (given > n) {  // guards against floating-point excess: take from the largest block
    --*std::max_element(counts.begin(), counts.end());
    --given;
  }
  return counts;
}

std::vector<std::size_t> block_offsets(std::span<const std::size_t> counts) {
  std::vector<std::size_t> offsets(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), std::size_t{0});
  return offsets;
}

std::vector<int> cyclic_owners(std::size_t n, std::span<const double> weights) {
  const std::vector<double> share = normalise_weights(weights);
  std::vector<double> credit(share.size(), 0.0);
  std::vector<int> owners(n);
  for (std::size_t row = 0; row < n; ++row) {
    std::size_t best = 0;
    for (std::size_t i = 0; i < share.size(); ++i) {
      credit[i] += share[i];
      // A small margin keeps equal credits equal despite rounding (ties: lower rank).
      if (credit[i] > credit[best] + 1e-12) best = i;
    }
    credit[best] -= 1.0;
    owners[row] = static_cast<int>(best);
  }
  return owners;
}

std::shared_ptr<const std::vector<int>> shared_cyclic_owners(std::size_t n, std::span<const double> weights) {
  static std::mutex mutex;
  static std::size_t last_n = 0;
  static std::vector<double> last_weights;
  static std::shared_ptr<const std::vector<int>> last;
  std::lock_guard lock(mutex);
  if (last == nullptr || last_n != n || !std::ranges::equal(last_weights, weights)) {
    last = std::make_shared<const std::vector<int>>(cyclic_owners(n, weights));
    last_n = n;
    last_weights.assign(weights.begin(), weights.end());
  }
  return last;
}

}  // namespace hetscale
