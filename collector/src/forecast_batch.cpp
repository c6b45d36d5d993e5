#include "hetscale/collector/forecast_batch.hpp"

#include "hetscale/collector/prediction_data.hpp"
#include "hetscale/collector/stored_experiment.hpp"

namespace hetscale::collector {

ExperimentForecast forecast_experiment(pg::Connection& conn, const ForecastOptions& options) {
  // One snapshot for the runs fitted; the predictions made from them go in with it.
  pg::Transaction tx(conn, pg::TransactionMode::repeatable_read);
  const double target = options.target ? *options.target : planned_target(conn, options.experiment);
  PredictionInput in = load_prediction_input(conn, options.experiment, target);
  if (options.site) in.site = options.site;
  ExperimentForecast forecast = forecast_from_input(in, options, target);
  forecast.batch = store_predictions(conn, in.experiment_id, forecast);
  tx.commit();
  return forecast;
}

}  // namespace hetscale::collector
