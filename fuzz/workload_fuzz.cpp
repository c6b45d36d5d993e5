// Workload formulas (model/src/workload*.cpp): from experiment specs and run records. Any text
// parses or raises ExpressionError; an accepted formula evaluates the same by position
// and by name, and its expanded formula parses to the same parameters and values.
#include <cmath>
#include <cstring>
#include <vector>

#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/model/workload.hpp"

namespace {

using hetscale::fuzz::require;

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

int hetscale_fuzz_workload(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetscale::fuzz::text_of(data, size);
  hetscale::Workload workload = hetscale::Workload::parse("N");
  try {
    workload = hetscale::Workload::parse(text);
  } catch (const hetscale::ExpressionError& e) {
    require(e.column() >= 1 && e.column() <= text.size() + 1, "error column out of range");
    return 0;
  }
  const std::vector<std::string>& names = workload.parameters();
  hetscale::ParameterValues named;
  std::vector<double> values;
  for (std::size_t i = 0; i < names.size(); ++i) {
    require(!names[i].empty(), "empty parameter name");
    values.push_back(1.5 + 997.0 * static_cast<double>(i));
    require(named.emplace(names[i], values.back()).second, "parameter listed twice");
  }
  const double by_position = workload.evaluate(values);
  require(same(by_position, workload.evaluate(named)), "evaluation by name differs");

  hetscale::Workload again = hetscale::Workload::parse("N");
  try {
    again = hetscale::Workload::parse(workload.formula());
  } catch (const hetscale::ExpressionError& e) {
    throw hetscale::fuzz::PropertyBroken(std::string("expanded formula rejected: ") + e.what());
  }
  require(again.parameters() == names, "expanded formula has other parameters");
  require(same(again.evaluate(values), by_position), "expanded formula evaluates differently");
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_workload(data, size);
}
#endif
