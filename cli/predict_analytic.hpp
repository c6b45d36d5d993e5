// The analytic form of `hetscale predict` (no database): T = W t_c / p + T0(N, p) solved for
// the N' that keeps the base system's E_s on each target (docs/predict.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "output.hpp"

namespace hetscale::cli {

struct AnalyticPredictArgs {
  std::string overhead;     // --overhead EXPR
  std::string overhead_of;  // --overhead-of KERNEL
  std::string commbench;    // --commbench FILE (hetscale-commbench's JSON)
  std::string network;      // --network SITE.toml ([network] latency and bandwidth)
  std::string overhead_unit = "ms";
  const CLI::Option* overhead_unit_option = nullptr;
  double unit_time = 0;  // t_c
  const CLI::Option* unit_time_option = nullptr;
  std::string unit_time_unit = "ms";
  std::string workload;
  std::string base;             // C:p:N
  std::vector<std::string> to;  // C:p
  std::string unit = "Mflops";
  std::string compute = "per-process";  // --compute per-process|balanced
  bool print_overhead = false;
};

/// Adds the analytic options to the predict subcommand.
void add_analytic_options(CLI::App& command, AnalyticPredictArgs& args);

/// Whether the analytic form was asked for (--overhead or --overhead-of).
bool analytic_requested(const AnalyticPredictArgs& args);

/// Whether an option only the analytic form reads was given (then --overhead or
/// --overhead-of is needed).
bool analytic_options_given(const AnalyticPredictArgs& args);

void run_predict_analytic(const AnalyticPredictArgs& args, TableFormat format, Context& context);

}  // namespace hetscale::cli
