// `hetscale analyze`: from an experiment's runs, each set's fitted E_s curve (the model's
// EfficiencyCurve), the parameter and work W at the target, stored in
// hetscale.required_work; then psi between consecutive sets from the set_psi view. Every
// figure with its 95% interval (docs/science.md, "Intervals of the measured figures"): the
// per-size mean E_s (Student t), the parameter and work (the model's bootstrap, bootstrap.hpp)
// and psi (the two sets' replicates paired), stored with them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetscale/collector/extrap_export.hpp"
#include "hetscale/collector/pg.hpp"
#include "hetscale/model/bootstrap.hpp"
#include "hetscale/model/efficiency_fit.hpp"
#include "hetscale/model/sample_statistics.hpp"

namespace hetscale::collector {

/// One measured size of a set: its runs' mean E_s with the t interval (mean_estimate).
struct SizeEfficiency {
  double parameter = 0;
  MeanEstimate efficiency;
};

struct SetAnalysis {
  int set_index = 0;
  int node_count = 0;
  std::string group_counts;  // "blade=2 server=2"; empty without a plan
  double marked_speed = 0;   // C of the set, in the site's unit
  std::size_t runs = 0;
  TargetReading reading;                     // status, parameter, explanation
  std::optional<double> work;                // W at reading.parameter (found, within_tolerance)
  std::optional<double> nearest_parameter;   // measured parameter whose mean E_s is nearest
  std::optional<double> nearest_efficiency;  // ... the target, and that mean E_s
  std::string advice;                        // what to run when the target is not bracketed
  std::vector<SizeEfficiency> sizes{};       // ascending parameter
  // The parameter's interval (a bound absent: beyond the measured sizes, or no interval;
  // parameter_interval.note says which) and W at its bounds.
  ReportedInterval parameter_interval{};
  std::optional<double> work_low{};
  std::optional<double> work_high{};
  std::size_t resamples = 0;          // replicates drawn; 0 without an interval
  std::vector<double> work_replicates{};  // W at each replicate's root (+-inf kept), for psi
};

struct PsiPair {
  int set_index = 0;
  int next_set_index = 0;
  double marked_speed = 0;
  double next_marked_speed = 0;
  std::optional<double> work;
  std::optional<double> next_work;
  std::optional<double> psi;  // absent when either set did not reach the target
  std::optional<double> psi_low{};  // absent: open (beyond a set's measured sizes) or no interval
  std::optional<double> psi_high{};
  std::string psi_interval_reason{};  // why there is no interval, in a few words; empty with one
  std::string psi_interval_note{};    // why a bound is absent; empty with both
};

struct Analysis {
  std::string experiment;
  std::string parameter;   // e.g. "N"
  std::string workload;    // e.g. "2*N^3"
  std::string speed_unit;  // unit of the marked speeds; empty when unknown
  double target_efficiency = 0;
  double tolerance = default_efficiency_tolerance;  // relative, for within_tolerance
  double interval_level = measured_interval_level;
  std::string parameter_interval_method{};  // of the parameter, work and psi intervals
  std::string efficiency_interval_method{};  // of the per-size E_s intervals
  std::size_t resamples = default_resamples;
  std::vector<SetAnalysis> sets;
  std::vector<PsiPair> psi;
};

/// Computes and stores (one transaction) the analysis of `experiment` at `target`; a set
/// whose runs do not bracket the target but whose nearest measured mean E_s is within
/// `tolerance` x target gets status within_tolerance at that measured parameter. Each
/// set's bootstrap draws `resamples` replicates with the seed required_parameter_seed of
/// (experiment, set, target), so the same runs give the same intervals. Throws Error for an
/// unknown experiment or one without E_s on any machine set, saying why: no runs on a set,
/// or runs whose speed unit is no rate in hetscale.speed_units (naming the unit and the
/// fix), or whose unit or marked speed is not known.
Analysis analyze(pg::Connection& conn, const std::string& experiment, double target,
                 double tolerance = default_efficiency_tolerance,
                 std::size_t resamples = default_resamples);

/// What `hetscale analyze` asks of the database before it analyzes.
struct AnalyzeSnapshotRequest {
  bool extrap = false;            // the experiment's runs in Extra-P's format (export_extrap)
  bool refine_tolerance = false;  // the [refine] tolerance of its latest round collected
};

struct AnalyzeSnapshot {
  std::optional<ExtrapExport> extrap;      // when asked for
  std::optional<double> refine_tolerance;  // when asked for and the latest round has one
};

/// Reads what `request` asks as of one moment (a snapshot transaction of its own on `conn`),
/// so that the export and the tolerance agree. Throws what export_extrap throws.
AnalyzeSnapshot read_analyze_snapshot(pg::Connection& conn, const std::string& experiment,
                                      const AnalyzeSnapshotRequest& request);

}  // namespace hetscale::collector
