#include "hetscale/site/weight_shares.hpp"

#include <cmath>
#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/site/step_weights.hpp"

namespace hetscale {
namespace {

[[noreturn]] void refuse(std::string_view what, const std::string& why) {
  throw Error(std::string(what) + ": " + why);
}

}  // namespace

void normalise_shares(std::span<double> shares, std::span<const std::uint64_t> counts,
                      std::string_view what) {
  if (shares.empty()) refuse(what, "no share to normalise");
  if (!counts.empty() && counts.size() != shares.size())
    refuse(what, "internal: " + std::to_string(counts.size()) + " counts for " +
                     std::to_string(shares.size()) + " shares");
  auto count = [&](std::size_t i) {
    return counts.empty() ? 1.0 : static_cast<double>(counts[i]);
  };
  double largest = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    if (!std::isfinite(shares[i]) || !(shares[i] > 0))
      refuse(what, "share " + format_weight(shares[i]) + " is not positive and finite");
    if (count(i) < 1) refuse(what, "internal: a share of no rank");
    if (shares[i] > largest) largest = shares[i];
  }
  // Each scaled share is in (0, 1], so the sum is at most the number of ranks.
  double total = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    shares[i] /= largest;
    total += shares[i] * count(i);
  }
  double check = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    shares[i] /= total;
    if (!std::isfinite(shares[i]) || !(shares[i] > 0))
      refuse(what, "the shares span too wide a range: a weight would be " +
                       format_weight(shares[i]));
    check += shares[i] * count(i);
  }
  if (!(std::fabs(check - 1.0) <= 1e-9))
    refuse(what, "the weights sum to " + format_weight(check) + ", not 1");
}

}  // namespace hetscale
