// One experiment's forecast from its collected runs, stored as one batch of
// hetscale.predictions (docs/predict.md): what `hetscale predict --db` and a study's
// predict stage do. The fit and the rows are experiment_forecast.hpp's.
#pragma once

#include "hetscale/collector/experiment_forecast.hpp"
#include "hetscale/collector/pg.hpp"

namespace hetscale::collector {

/// Reads the experiment's runs, measured sets and site (options.site replaces the site),
/// forecasts at options.target (default: the experiment's planned target) and stores the
/// rows as one batch, all in one repeatable-read transaction: the batch is the returned
/// forecast's. Throws Error as planned_target, load_prediction_input and
/// forecast_from_input do; then nothing is stored.
ExperimentForecast forecast_experiment(pg::Connection& conn, const ForecastOptions& options);

}  // namespace hetscale::collector
