// Parsing of option values shared by subcommands; malformed values raise UsageError
// (exit code 2) naming the option.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetscale/model/workload.hpp"

namespace hetscale::cli {

/// A finite number, the whole text; `option` names the flag in the message.
double parse_number(std::string_view text, std::string_view option);

/// "N=1200" -> {"N", 1200}.
std::pair<std::string, double> parse_assignment(std::string_view text, std::string_view option);

/// Parses --workload, reporting the column inside the option's value.
Workload parse_workload_option(std::string_view text);

/// Values for every parameter of `workload`, from "N=V" assignments; a missing, unknown or
/// repeated parameter is a UsageError.
ParameterValues parameter_values(const Workload& workload,
                                 const std::vector<std::string>& assignments,
                                 std::string_view option);

/// W(values), which must be finite and positive (an Error otherwise).
double evaluate_work(const Workload& workload, const ParameterValues& values);

}  // namespace hetscale::cli
