// hetscale efficiency: E_s = W / (T C) for one run (docs/science.md section 1).
#include <fmt/format.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "hetscale/model/isospeed.hpp"
#include "hetscale/model/units.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct EfficiencyArgs {
  std::string workload;
  double speed = 0;
  std::string unit = "Mflops";
  std::vector<std::string> params;
  double seconds = 0;
  TableFormat format = TableFormat::table;
};

void run_efficiency(const EfficiencyArgs& args, Context& context) {
  const auto workload = parse_workload_option(args.workload);
  const auto values = parameter_values(workload, args.params, "--param");
  const double work = evaluate_work(workload, values);
  const double scale = speed_unit_scale(args.unit);  // ops/s per unit
  const double efficiency = isospeed::speed_efficiency(work, args.seconds, args.speed * scale);
  const double achieved = isospeed::achieved_speed(work, args.seconds) / scale;

  Table table{
      {"workload", "work", "seconds", "achieved_speed", "marked_speed", "unit", "speed_efficiency"},
      {}};
  table.rows.push_back(
      {workload.text(), work, args.seconds, achieved, args.speed, args.unit, efficiency});
  if (args.format == TableFormat::table) {
    context.out << fmt::format(
        "E_s = {:.6g}  (W = {:.6g} operations, T = {:.6g} s, S = W/T = {:.6g} {}, C = {:.6g} {})\n",
        efficiency, work, args.seconds, achieved, args.unit, args.speed, args.unit);
    return;
  }
  print_table(context.out, table, args.format);
}

}  // namespace

void register_efficiency(CLI::App& app, Context& context) {
  auto args = std::make_shared<EfficiencyArgs>();
  auto* cmd = app.add_subcommand("efficiency", "Speed-efficiency E_s = W / (T C) of one run");
  cmd->add_option("--workload", args->workload,
                  "Workload formula W(params), e.g. '2*N^3', or a built-in: mm, ge, conv2d, lu")
      ->required();
  cmd->add_option("--speed", args->speed, "Marked speed C of the system that ran it (see --unit)")
      ->required()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--unit", args->unit, "Unit of --speed: Mflops, Gflops, flops, Mop/s, ...")
      ->capture_default_str();
  cmd->add_option("--param", args->params, "Parameter value NAME=VALUE (repeat for each parameter)")
      ->required();
  cmd->add_option("--seconds", args->seconds, "Wall time T of the run, in seconds")
      ->required()
      ->check(CLI::PositiveNumber);
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] { run_efficiency(*args, context); });
}

}  // namespace hetscale::cli
