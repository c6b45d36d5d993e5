// Capacity forecast (docs/science.md section 1 "Prediction"): with a fitted TimeModel, the
// parameter and work that reach a target E_s on the measured sets (beside what was
// measured), on the site's next doublings and on what-if sets, and psi of each row against
// the row before it or, for a what-if set, against the set it grows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "hetscale/model/bootstrap.hpp"
#include "hetscale/model/prediction.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {

enum class ForecastKind { measured, doubling, what_if };
const char* to_string(ForecastKind kind);  // "measured", "doubling", "what_if"

/// A machine set to forecast, measured or not.
struct ForecastSet {
  ForecastKind kind = ForecastKind::measured;
  std::string label;
  std::optional<int> set_index;  // measured sets only
  std::size_t node_count = 0;
  double marked_speed = 0;  // C, in the site's speed unit
  std::size_t processes = 0;
  std::optional<double> measured_parameter;  // at the target, from the measured E_s curve
  std::optional<double> measured_work;
  /// A what-if set: the index, among the sets given to forecast(), of the set it grows
  /// (its base), which its psi is taken against. Empty: psi against the previous set.
  std::optional<std::size_t> base;
};

/// `add:K:GROUP` (the base set plus K nodes of a site group) or `group:SPEED:K` (plus K
/// one-processor nodes of per-processor marked speed SPEED).
struct WhatIf {
  std::string spec;
  std::string group;   // add: only
  double speed = 0;    // group: only, site unit
  std::size_t count = 0;
};

/// Throws Error quoting the spec and the expected forms.
WhatIf parse_what_if(const std::string& spec);

/// `base` grown by the what-if, labelled `SPEC on BASE-LABEL` (e.g. `add:2:blade on set 3`).
/// Throws Error when an `add:` group is unknown or no site table is given.
ForecastSet apply_what_if(const WhatIf& what_if, const ForecastSet& base, const SiteTable* site);

/// The next `doublings` sets after `largest`: the site's own nested, group-balanced sets
/// (build_machine_sets, shortfalls topped up from other groups) larger than `largest`,
/// then, once the site is exhausted (or without a site), twice the previous set (labelled
/// as beyond the site). Processes are the nodes' processors (one process per processor).
std::vector<ForecastSet> doubling_sets(const ForecastSet& largest, const SiteTable* site,
                                       std::size_t doublings);

struct ForecastRow {
  ForecastSet set;
  ParameterPrediction prediction;
  /// (C' W) / (C W') against row `psi_against`, both predicted; empty when either is not found.
  std::optional<double> psi;
  /// The row psi is against: the set's base for a what-if, else the previous row; empty for
  /// the first row.
  std::optional<std::size_t> psi_against;
  std::optional<double> relative_error;  // (predicted - measured) / measured parameter
  /// The prediction intervals of the parameter, its work and psi (forecast_bootstrap.hpp);
  /// empty until add_forecast_intervals fills them.
  ReportedInterval parameter_interval{};
  ReportedInterval work_interval{};
  ReportedInterval psi_interval{};
};

/// The range forecast() searches the parameter in: from 1/100 of the smallest to 10,000
/// times the largest fitted parameter.
struct ParameterSearchRange {
  double low = 0;
  double high = 0;
};
ParameterSearchRange forecast_search_range(const TimeModel& model);

/// Predicts every set in order: psi of a set against its base (a what-if) or the previous
/// set (a measured set or a doubling). `ops_per_unit` converts the site's speed unit to
/// operations per second (the model's unit). The parameter is searched in
/// forecast_search_range. The rows' intervals are left empty.
std::vector<ForecastRow> forecast(const TimeModel& model, const Workload& workload, double target,
                                  double ops_per_unit, const std::vector<ForecastSet>& sets);

}  // namespace hetscale
