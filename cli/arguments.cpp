#include "arguments.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "commands.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale::cli {

double parse_number(std::string_view text, std::string_view option) {
  if (const auto value = finite_number(text)) return *value;
  throw UsageError(fmt::format("{}: '{}' is not a number", option, text));
}

std::pair<std::string, double> parse_assignment(std::string_view text, std::string_view option) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw UsageError(fmt::format("{}: expected NAME=VALUE, got '{}'", option, text));
  return {std::string(text.substr(0, eq)), parse_number(text.substr(eq + 1), option)};
}

Workload parse_workload_option(std::string_view text) {
  try {
    return Workload::parse(text);
  } catch (const ExpressionError& e) {
    throw UsageError(fmt::format("--workload '{}': {}", text, e.what()));
  }
}

ParameterValues parameter_values(const Workload& workload,
                                 const std::vector<std::string>& assignments,
                                 std::string_view option) {
  ParameterValues values;
  for (const auto& text : assignments) {
    auto [name, value] = parse_assignment(text, option);
    const auto& known = workload.parameters();
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw UsageError(fmt::format("{}: the workload '{}' has no parameter '{}'", option,
                                   workload.text(), name));
    if (!values.emplace(name, value).second)
      throw UsageError(fmt::format("{}: parameter '{}' given twice", option, name));
  }
  for (const auto& name : workload.parameters())
    if (!values.contains(name))
      throw UsageError(fmt::format("{}: missing a value for parameter '{}' of the workload '{}'",
                                   option, name, workload.text()));
  return values;
}

double evaluate_work(const Workload& workload, const ParameterValues& values) {
  const double work = workload.evaluate(values);
  if (!std::isfinite(work) || work <= 0)
    throw Error(
        fmt::format("the workload '{}' gives W = {} for these parameters; it must be a "
                    "positive, finite amount of work",
                    workload.text(), work));
  return work;
}

}  // namespace hetscale::cli
