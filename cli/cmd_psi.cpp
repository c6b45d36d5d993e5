// hetscale psi: isospeed-e scalability between consecutive systems (docs/science.md section 1).
// Each --point is C:N, the marked speed of a set and the parameter value that reached the
// target speed-efficiency on it; psi(C, C') = C' W / (C W') with W = W(N).
#include <fmt/format.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "hetscale/model/isospeed.hpp"
#include "output.hpp"

namespace hetscale::cli {
namespace {

struct PsiArgs {
  std::string workload;
  std::vector<std::string> points;
  TableFormat format = TableFormat::table;
};

struct Point {
  double speed = 0;
  ParameterValues values;
  std::string label;  // the parameter part as given, for output
  double work = 0;
};

/// "C:V" for a one-parameter workload, "C:NAME=V,NAME=V" for any workload.
Point parse_point(std::string_view text, const Workload& workload) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    throw UsageError(fmt::format("--point: expected SPEED:PARAMETER, got '{}'", text));
  Point point;
  point.speed = parse_number(text.substr(0, colon), "--point");
  if (point.speed <= 0)
    throw UsageError(fmt::format("--point '{}': the marked speed must be positive", text));
  point.label = std::string(text.substr(colon + 1));
  std::vector<std::string> assignments;
  if (point.label.find('=') == std::string::npos) {
    if (workload.parameters().size() != 1)
      throw UsageError(
          fmt::format("--point '{}': the workload has {} parameters; write SPEED:NAME=VALUE,...",
                      text, workload.parameters().size()));
    assignments.push_back(workload.parameters().front() + '=' + point.label);
  } else {
    for (std::size_t start = 0; start <= point.label.size();) {
      const auto comma = std::min(point.label.find(',', start), point.label.size());
      assignments.push_back(point.label.substr(start, comma - start));
      start = comma + 1;
    }
  }
  point.values = parameter_values(workload, assignments, "--point");
  point.work = evaluate_work(workload, point.values);
  return point;
}

void run_psi(const PsiArgs& args, Context& context) {
  const auto workload = parse_workload_option(args.workload);
  if (args.points.size() < 2)
    throw UsageError("--point: give at least two points (C:N), one per system");
  std::vector<Point> points;
  for (const auto& text : args.points) points.push_back(parse_point(text, workload));

  Table table{
      {"from_speed", "from_parameter", "from_work", "to_speed", "to_parameter", "to_work", "psi"},
      {}};
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto& a = points[i - 1];
    const auto& b = points[i];
    const double psi = isospeed::psi(a.speed, a.work, b.speed, b.work);
    table.rows.push_back({a.speed, a.label, a.work, b.speed, b.label, b.work, psi});
  }
  if (args.format != TableFormat::table) return print_table(context.out, table, args.format);
  for (const auto& row : table.rows)
    context.out << fmt::format("psi({:.6g}, {:.6g}) = {:.6g}  (N: {} -> {}, W: {:.6g} -> {:.6g})\n",
                               std::get<double>(row[0]), std::get<double>(row[3]),
                               std::get<double>(row[6]), std::get<std::string>(row[1]),
                               std::get<std::string>(row[4]), std::get<double>(row[2]),
                               std::get<double>(row[5]));
}

}  // namespace

void register_psi(CLI::App& app, Context& context) {
  auto args = std::make_shared<PsiArgs>();
  auto* cmd = app.add_subcommand("psi", "Isospeed-e scalability psi between consecutive systems");
  cmd->add_option("--workload", args->workload,
                  "Workload formula W(params) or a built-in: mm, ge, conv2d, lu")
      ->required();
  cmd->add_option(
         "--point", args->points,
         "C:N: a system's marked speed C and the parameter that reached the target E_s on it "
         "(repeat, smallest system first; C:NAME=V,... for several parameters)")
      ->required();
  add_format_option(*cmd, args->format);
  cmd->callback([args, &context] { run_psi(*args, context); });
}

}  // namespace hetscale::cli
