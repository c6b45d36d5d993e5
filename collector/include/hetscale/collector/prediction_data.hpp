// `hetscale predict`: what the time model is fitted to (every run of the experiment on a
// machine set, with its slowest rank's compute time), the measured sets with the
// required work `hetscale analyze` stored at the target, the experiment's site, and the
// forecast stored as one batch of hetscale.predictions (migration 0004).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetscale/capacity_forecast.hpp"
#include "hetscale/collector/pg.hpp"
#include "hetscale/prediction.hpp"
#include "hetscale/site_table.hpp"

namespace hetscale::collector {

struct PredictionInput {
  long long experiment_id = 0;
  std::string code;        // picks the communication pattern
  std::string workload;    // W formula
  std::string parameter;   // its parameter, e.g. "N"
  std::string speed_unit;  // of the marked speeds
  double ops_per_unit = 1;
  std::vector<TimingSample> samples;   // one per run (speeds in operations per second)
  std::vector<int> sample_sets;        // the machine set index of each sample
  std::vector<ForecastSet> measured;   // by set index, with the measured figures
  std::optional<SiteTable> site;       // the experiment's site, when in the database
};

/// Throws Error for an unknown experiment, one without workload, fewer than 2 measured
/// sets, or no required work at `target` (naming the `hetscale analyze` to run).
PredictionInput load_prediction_input(pg::Connection& conn, const std::string& experiment,
                                      double target);

/// Stores the rows as one batch (next value of hetscale.prediction_batches), positions
/// 0.. in order; returns the batch. The caller's transaction.
long long store_predictions(pg::Connection& conn, long long experiment_id, double target,
                            const std::string& model, const std::vector<ForecastRow>& rows);

}  // namespace hetscale::collector
