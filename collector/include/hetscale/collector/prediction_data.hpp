// The database side of an experiment's forecast (forecast_batch.hpp): what the time model
// is fitted to (every run of the experiment on a machine set, with its slowest rank's
// compute time), the measured sets with the required work `hetscale analyze` stored at the
// target, the experiment's site, and the forecast stored as one batch of
// hetscale.predictions (migration 0004).
#pragma once

#include <string>
#include <vector>

#include "hetscale/collector/experiment_forecast.hpp"
#include "hetscale/collector/pg.hpp"
#include "hetscale/model/capacity_forecast.hpp"

namespace hetscale::collector {

/// Throws Error for an unknown experiment, one without workload, fewer than 2 measured
/// sets, or no required work at `target` (naming the `hetscale analyze` to run).
PredictionInput load_prediction_input(pg::Connection& conn, const std::string& experiment,
                                      double target);

/// Stores the forecast's rows as one batch (next value of hetscale.prediction_batches),
/// positions 0.. in order, each with its intervals (migration 0022); returns the batch.
/// The caller's transaction.
long long store_predictions(pg::Connection& conn, long long experiment_id,
                            const ExperimentForecast& forecast);

}  // namespace hetscale::collector
