#include "analytic_report.hpp"

#include <fmt/format.h>

namespace hetscale {

const char* to_string(ComputeTime compute) {
  return compute == ComputeTime::balanced ? "balanced" : "per-process";
}

Table analytic_table(const AnalyticReport& report) {
  const double ms = 1e3;
  Table table{{"marked_speed", "processes", "predicted_parameter", "predicted_work", "predicted_ms",
               "overhead_ms", "speed_efficiency", "psi", "psi_definition"},
              {}};
  for (const AnalyticTarget& t : report.prediction.targets)
    table.rows.push_back({t.system.marked_speed / report.speed_scale,
                          static_cast<std::int64_t>(t.system.processes), t.parameter, t.work,
                          t.seconds * ms, t.overhead_seconds * ms, t.speed_efficiency, t.psi,
                          t.psi_definition});
  return table;
}

void print_analytic_report(std::ostream& out, const AnalyticReport& report, TableFormat format) {
  const double ms = 1e3;
  const AnalyticPrediction& p = report.prediction;
  const AnalyticModel& model = report.model;
  const Table table = analytic_table(report);
  if (format == TableFormat::json) {
    const nlohmann::json j = {{"workload", model.workload.text()},
                              {"overhead", report.overhead},
                              {"overhead_unit", report.overhead_unit},
                              {"overhead_source", report.overhead_source},
                              {"unit_time_ms", model.unit_seconds * ms},
                              {"compute", to_string(model.compute)},
                              {"speed_unit", report.speed_unit},
                              {"base",
                               {{"marked_speed", p.base.marked_speed / report.speed_scale},
                                {"processes", static_cast<std::int64_t>(p.base.processes)},
                                {"parameter", p.base_parameter},
                                {"work", p.base_work},
                                {"ms", p.base_seconds * ms},
                                {"overhead_ms", p.base_overhead_seconds * ms},
                                {"speed_efficiency", p.base_efficiency}}},
                              {"note", p.note},
                              {"rows", table_json(table)}};
    out << j.dump(2) << '\n';
    return;
  }
  if (format == TableFormat::table) {
    out << fmt::format(
        "analytic prediction: T = {} + T0(N, p), W = {}, t_c = {:.6g} ms per unit of "
        "work\nT0 ({}, from {}) = {}\nbase: C = {:g} {}, p = {:g}, N = {:g}: W = {:.6g}, T = "
        "{:.6g} ms, T0 = {:.6g} ms, E_s = {:.6g}\npsi = T0 / T0' (Corollary 2); psi_definition "
        "= (C' W) / (C W')\n\n",
        model.compute == ComputeTime::balanced ? "W t_c (C_base / p_base) / C" : "W t_c / p",
        model.workload.text(), model.unit_seconds * ms, report.overhead_unit,
        report.overhead_source, report.overhead, p.base.marked_speed / report.speed_scale,
        report.speed_unit, p.base.processes, p.base_parameter, p.base_work, p.base_seconds * ms,
        p.base_overhead_seconds * ms, p.base_efficiency);
    if (!p.note.empty()) out << "note: " << p.note << "\n\n";
  }
  print_table(out, table, format);
}

}  // namespace hetscale
