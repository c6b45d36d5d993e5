// W(N) of the bundled kernels, through the model's workload formulas (docs/workload.md).
#pragma once

#include <string_view>

namespace hetscale::kernels {

/// Work of the built-in kernel `name` ("mm", "ge", "conv2d", "lu") at size n; throws Error.
[[nodiscard]] double builtin_work(std::string_view name, double n);

}  // namespace hetscale::kernels
