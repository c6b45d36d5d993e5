// The values of a run's named parameters, e.g. {"N": 1200}: what a run record and a plan
// carry, and what a workload formula (hetscale/model/workload.hpp) is evaluated at.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace hetscale {

using ParameterValues = std::map<std::string, double, std::less<>>;

}  // namespace hetscale
