// W(N) of the three reference codes (SCIENCE.md section 1).
// TODO(core-science): replace with hetscale::Workload::parse(name) once it is in main.
#pragma once

#include <string_view>

namespace hetscale::kernels {

/// Work of the built-in kernel `name` ("mm", "ge", "conv2d") at size n; throws Error.
[[nodiscard]] double builtin_work(std::string_view name, double n);

}  // namespace hetscale::kernels
