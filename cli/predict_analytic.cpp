// hetscale predict --overhead EXPR | --overhead-of KERNEL ...: the analytic prediction of
// docs/science.md section 1 ("Prediction"); the model, the solver, the kernels' overheads
// and the report are the model's and the CLI's (hetscale/model/analytic_prediction.hpp, analytic_report.hpp),
// this file parses the options and prints.
#include "predict_analytic.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "analytic_report.hpp"
#include "arguments.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/model/analytic_prediction.hpp"
#include "hetscale/model/kernel_communication.hpp"
#include "hetscale/model/units.hpp"

namespace hetscale::cli {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

double processes_of(const std::string& text, const std::string& option) {
  const double p = parse_number(text, option);
  if (p < 1 || p != std::floor(p))
    throw UsageError(
        fmt::format("{}: the number of processes '{}' must be a whole number >= 1", option, text));
  return p;
}

double positive(const std::string& text, const std::string& option, const char* what) {
  const double v = parse_number(text, option);
  if (!(v > 0)) throw UsageError(fmt::format("{}: {} '{}' must be positive", option, what, text));
  return v;
}

/// "C:p" (targets) or "C:p:N" (the base); C in the --unit's speed.
AnalyticSystem parse_system(const std::string& text, const std::string& option, double scale,
                            std::optional<double>* parameter) {
  const auto parts = split(text, ':');
  const std::size_t expected = parameter ? 3 : 2;
  if (parts.size() != expected)
    throw UsageError(fmt::format(
        "{} '{}': expected {}", option, text,
        parameter ? "C:p:N (marked speed, processes, size)" : "C:p (marked speed, processes)"));
  const std::string where = option + " '" + text + "'";
  AnalyticSystem s;
  s.label = text;
  s.marked_speed = positive(parts[0], where, "the marked speed") * scale;
  s.processes = processes_of(parts[1], where);
  if (parameter) *parameter = positive(parts[2], where, "the size N");
  return s;
}

Workload parse_expression(const std::string& text, const char* option) {
  try {
    return Workload::parse(text);
  } catch (const ExpressionError& e) {
    throw UsageError(fmt::format("{} '{}': {}", option, text, e.what()));
  }
}

/// T0 as given (an expression in --overhead-unit) or built for a bundled kernel.
struct Overhead {
  std::string text;            // the expression, or what a computed T0 is
  double seconds_per_unit = 1;  // of the expression
  std::string unit;            // its unit's name
  std::string source;
  KernelOverhead built;  // for --overhead-of
};

Overhead overhead_of(const AnalyticPredictArgs& args) {
  if (!args.overhead_of.empty()) {
    if (!args.overhead.empty()) throw UsageError("give --overhead or --overhead-of, not both");
    if (args.commbench.empty() == args.network.empty())
      throw UsageError(
          "--overhead-of needs the communication costs: --commbench FILE (hetscale-commbench's "
          "JSON) or --network SITE.toml (its [network] table), one of them");
    if (args.overhead_unit_option && args.overhead_unit_option->count() > 0 &&
        args.overhead_unit != "ms")
      throw UsageError("--overhead-of gives T0 in ms; leave --overhead-unit out");
    KernelOverhead built = args.commbench.empty()
                               ? kernel_overhead_from_network(args.overhead_of, args.network)
                               : kernel_overhead_from_commbench(args.overhead_of, args.commbench);
    if (built.seconds)
      return {args.overhead_of + "'s messages at the network probe's costs (--print-overhead lists them)", 1, "s",
              built.source, built};
    return {built.expression, time_unit_seconds("ms"), "ms", built.source, built};
  }
  return {args.overhead, time_unit_seconds(args.overhead_unit), args.overhead_unit, "--overhead", {}};
}

}  // namespace

void add_analytic_options(CLI::App& cmd, AnalyticPredictArgs& args) {
  const char* group = "Analytic prediction (no database)";
  cmd.add_option("--overhead", args.overhead,
                 "Overhead T0(N, p): an expression in N and p (see --overhead-unit)")
      ->group(group);
  cmd.add_option("--overhead-of", args.overhead_of,
                 "Build T0 of a bundled kernel (mm, ge, conv2d, lu) from --commbench or --network")
      ->check(CLI::IsMember([] {
        std::vector<std::string> kernels;
        for (const std::string_view k : described_kernels()) kernels.emplace_back(k);
        return kernels;
      }()))
      ->group(group);
  cmd.add_option("--commbench", args.commbench,
                 "hetscale-commbench's JSON output: its network probe, or its fitted T_send, T_bcast, "
                 "T_barrier in a file without one")
      ->check(CLI::ExistingFile)
      ->group(group);
  cmd.add_option("--network", args.network,
                 "Site table whose [network] latency and bandwidth give the communication costs")
      ->check(CLI::ExistingFile)
      ->group(group);
  args.overhead_unit_option = cmd.add_option("--overhead-unit", args.overhead_unit,
                                             "Time unit of --overhead: s, ms, us, ...")
                                  ->capture_default_str()
                                  ->group(group);
  args.unit_time_option = cmd.add_option("--unit-time", args.unit_time,
                                         "t_c: time per unit of work (see --unit-time-unit)")
                              ->check(CLI::PositiveNumber)
                              ->group(group);
  cmd.add_option("--unit-time-unit", args.unit_time_unit, "Time unit of --unit-time")
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--workload", args.workload,
                 "Workload W(N), e.g. '2*N^3' or mm, ge, conv2d (default with --overhead-of: "
                 "the kernel's)")
      ->group(group);
  cmd.add_option("--base", args.base, "Base system C:p:N (marked speed, processes, size)")
      ->group(group);
  cmd.add_option("--to", args.to, "Target system C:p (repeatable)")->group(group);
  cmd.add_option("--unit", args.unit, "Unit of the marked speeds C: Mflops, Gflops, flops, ...")
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--compute", args.compute,
                 "Compute time: per-process (T_c = W t_c / p, the paper's) or balanced (T_c = W "
                 "t_c (C/p of the base) / C: work in proportion to marked speed)")
      ->check(CLI::IsMember({"per-process", "balanced"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_flag("--print-overhead", args.print_overhead,
               "With --overhead-of: print the T0 expression (ms) and stop")
      ->group(group);
}

bool analytic_requested(const AnalyticPredictArgs& args) {
  return !args.overhead.empty() || !args.overhead_of.empty();
}

bool analytic_options_given(const AnalyticPredictArgs& args) {
  return !args.base.empty() || !args.to.empty() || !args.workload.empty() ||
         (args.unit_time_option && args.unit_time_option->count() > 0) || !args.commbench.empty() ||
         !args.network.empty() || args.print_overhead;
}

void run_predict_analytic(const AnalyticPredictArgs& args, TableFormat format, Context& context) {
  const Overhead overhead = [&] {
    try {
      return overhead_of(args);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      // Unknown units are usage errors; files that cannot be read stay errors.
      const std::string what = e.what();
      if (what.rfind("unknown time unit", 0) == 0) throw UsageError("--overhead-unit: " + what);
      throw;
    }
  }();
  if (args.print_overhead) {
    if (args.overhead_of.empty()) throw UsageError("--print-overhead needs --overhead-of");
    context.out << (overhead.built.seconds ? overhead.built.description : overhead.text + '\n');
    return;
  }
  if (!args.unit_time_option || args.unit_time_option->count() == 0)
    throw UsageError("the analytic prediction needs --unit-time (t_c, time per unit of work)");
  if (args.base.empty()) throw UsageError("the analytic prediction needs --base C:p:N");
  if (args.to.empty()) throw UsageError("the analytic prediction needs at least one --to C:p");
  const std::string workload_text = args.workload.empty() ? args.overhead_of : args.workload;
  if (workload_text.empty()) throw UsageError("the analytic prediction needs --workload");
  double speed_scale = 0, unit_seconds = 0;
  try {
    speed_scale = speed_unit_scale(args.unit);
  } catch (const Error& e) {
    throw UsageError(std::string("--unit: ") + e.what());
  }
  try {
    unit_seconds = args.unit_time * time_unit_seconds(args.unit_time_unit);
  } catch (const Error& e) {
    throw UsageError(std::string("--unit-time-unit: ") + e.what());
  }
  const Workload workload = parse_workload_option(workload_text);
  const ComputeTime compute = args.compute == "balanced" ? ComputeTime::balanced : ComputeTime::per_process;
  const AnalyticModel model =
      overhead.built.seconds
          ? AnalyticModel(workload, ComputedOverhead{overhead.text, overhead.built.seconds}, unit_seconds, compute)
          : AnalyticModel(workload, parse_expression(overhead.text, "--overhead"), overhead.seconds_per_unit,
                          unit_seconds, compute);
  std::optional<double> base_n;
  const AnalyticSystem base = parse_system(args.base, "--base", speed_scale, &base_n);
  std::vector<AnalyticSystem> targets;
  for (const auto& t : args.to) targets.push_back(parse_system(t, "--to", speed_scale, nullptr));
  const AnalyticReport report{.model = model,
                              .overhead = overhead.text,
                              .overhead_unit = overhead.unit,
                              .overhead_source = overhead.source,
                              .speed_unit = args.unit,
                              .speed_scale = speed_scale,
                              .prediction = predict_analytic(model, base, *base_n, targets)};
  print_analytic_report(context.out, report, format);
}

}  // namespace hetscale::cli
