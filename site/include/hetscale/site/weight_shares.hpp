// The one normalisation of work shares into weights that sum to 1, used by every weights
// result (marked, equalized, file, equal and weights_for_ranks), so that no share near
// the largest double makes the sum infinite and no weight comes out 0, NaN or infinite.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace hetscale {

/// Turns `shares` into weights in place: `shares[i]` is the share of each of the
/// `counts[i]` ranks of class i (a node's ranks share one value; empty `counts` means one
/// rank per share). Shares are divided by the largest before they are summed, so no sum
/// overflows. Afterwards every weight is finite and > 0 and the weights of all ranks sum
/// to 1 (within 1e-9). Throws Error "`what`: ..." when a share is not finite and > 0,
/// when a count is 0, or when the shares span so wide a range that a weight would be 0.
void normalise_shares(std::span<double> shares, std::span<const std::uint64_t> counts,
                      std::string_view what);

}  // namespace hetscale
