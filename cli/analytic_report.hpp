// The analytic prediction of `hetscale predict --overhead/--overhead-of` as a report
// (docs/predict.md, "Analytic prediction"): the prediction printed as a table, JSON or CSV.
// The model and the solver are analytic_prediction.hpp's, the kernels' overheads
// kernel_communication.hpp's.
#pragma once

#include <ostream>
#include <string>

#include "hetscale/base/text_table.hpp"
#include "hetscale/model/analytic_prediction.hpp"

namespace hetscale {

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
