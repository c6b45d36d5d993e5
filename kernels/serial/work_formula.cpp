#include "serial/work_formula.hpp"

#include <string>

#include "hetscale/base/error.hpp"
#include "hetscale/model/workload.hpp"

namespace hetscale::kernels {

double builtin_work(std::string_view name, double n) {
  if (name != "mm" && name != "ge" && name != "conv2d" && name != "lu") {
    throw Error("no built-in workload '" + std::string(name) + "'");
  }
  // A bare built-in name stands for its formula in N (the model's Workload).
  return Workload::parse(name).evaluate(ParameterValues{{"N", n}});
}

}  // namespace hetscale::kernels
