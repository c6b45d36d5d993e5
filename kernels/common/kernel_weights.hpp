// The kernels' `--weights` option and the HETSCALE_WEIGHT value (docs/admin.md), parsed
// without MPI so that every rank reaches the same verdict on the same text.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace hetscale {

/// "equal" gives 1/ranks each; "w1,w2,..." gives exactly `ranks` positive numbers,
/// normalised to sum to 1. Throws Error ("--weights: ...") on anything else.
[[nodiscard]] std::vector<double> parse_kernel_weights(std::string_view text, std::size_t ranks);

}  // namespace hetscale
