#include "serial/work_formula.hpp"

#include <cmath>
#include <string>

#include "hetscale/error.hpp"

namespace hetscale::kernels {

double builtin_work(std::string_view name, double n) {
  if (name == "mm") return 2 * n * n * n;
  if (name == "ge") return 2.0 / 3.0 * n * n * n - 0.5 * n * n - (3 + 1.0 / 6.0) * n + 3;
  if (name == "conv2d") {
    const double lg = std::log2(n);
    return 66 * n * n * lg + 21 * n * n + 84 * n * lg;
  }
  throw Error("no built-in workload '" + std::string(name) + "'");
}

}  // namespace hetscale::kernels
