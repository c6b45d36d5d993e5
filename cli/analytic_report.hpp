// The analytic prediction of `hetscale predict --overhead/--overhead-of` as a report
// (docs/predict.md, "Analytic prediction"): where T0 comes from (an expression given, or a
// bundled kernel's model on measured or configured communication costs) and the prediction
// printed as a table, JSON or CSV. The model and the solver are analytic_prediction.hpp's.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "hetscale/base/text_table.hpp"
#include "hetscale/model/analytic_prediction.hpp"

namespace hetscale {

/// T0 of a bundled kernel in ms and the costs it was built from.
struct KernelOverhead {
  std::string expression;  // kernel_overhead_expression
  std::string source;      // e.g. "hetscale-commbench models of FILE"
};

/// From hetscale-commbench's JSON output at `path`.
KernelOverhead kernel_overhead_from_commbench(std::string_view kernel, const std::string& path);
/// From the [network] of the site table at `path` (the default [network] when it has none).
KernelOverhead kernel_overhead_from_network(std::string_view kernel, const std::string& path);

/// "per-process" or "balanced".
const char* to_string(ComputeTime compute);

/// A prediction with what it was made from, for printing.
struct AnalyticReport {
  AnalyticModel model;
  std::string overhead;         // T0's expression as given or built
  std::string overhead_unit;    // its time unit, e.g. "ms"
  std::string overhead_source;  // "--overhead" or KernelOverhead::source
  std::string speed_unit;       // of the marked speeds printed, e.g. "Mflops"
  double speed_scale = 1;       // operations per second of one speed_unit
  AnalyticPrediction prediction;
};

/// One row per target: marked_speed (speed_unit), processes, predicted_parameter,
/// predicted_work, predicted_ms, overhead_ms, speed_efficiency, psi, psi_definition.
Table analytic_table(const AnalyticReport& report);

/// As `hetscale predict --overhead` prints it: in `table` format the model, T0 and the base
/// (and the prediction's note) before the table; in `json` an object of them with the
/// rows; in `csv` the rows.
void print_analytic_report(std::ostream& out, const AnalyticReport& report, TableFormat format);

}  // namespace hetscale
