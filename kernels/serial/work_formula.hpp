// W(N) of the three reference codes, through core's workload formulas (SCIENCE.md section 1).
#pragma once

#include <string_view>

namespace hetscale::kernels {

/// Work of the built-in kernel `name` ("mm", "ge", "conv2d") at size n; throws Error.
[[nodiscard]] double builtin_work(std::string_view name, double n);

}  // namespace hetscale::kernels
