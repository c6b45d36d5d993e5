// The forecast of one experiment from its collected runs (docs/predict.md, `hetscale
// predict --db`): the runs the time model is fitted on (all sets, or the --fit-sets ones
// with the others held out), the forecast rows on the measured sets, the next doublings
// and the what-if sets, the errors that judge the fit, and the result printed as a table,
// JSON or CSV. This file is the pure part: the database's (what the forecast is made
// from, the rows stored as one batch) is hetscale/collector/forecast_batch.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "hetscale/base/text_table.hpp"
#include "hetscale/model/capacity_forecast.hpp"
#include "hetscale/model/forecast_bootstrap.hpp"
#include "hetscale/model/network_probe.hpp"
#include "hetscale/model/prediction.hpp"
#include "hetscale/site/site_table.hpp"

namespace hetscale {

/// What the time model is fitted to and what is forecast: every run of the experiment on
/// a machine set (with its slowest rank's compute time), the measured sets with the
/// required work at the target, and the experiment's site.
struct PredictionInput {
  long long experiment_id = 0;  // the database's
  std::string code;             // picks the communication pattern
  std::string workload;         // W formula
  std::string parameter;        // its parameter, e.g. "N"
  std::string speed_unit;       // of the marked speeds
  double ops_per_unit = 1;
  std::vector<TimingSample> samples;  // one per run (speeds in operations per second)
  std::vector<int> sample_sets;       // the machine set index of each sample
  std::vector<ForecastSet> measured;  // by set index, with the measured figures
  std::optional<SiteTable> site;      // the experiment's site, when in the database
  /// The experiment's network probes (experiment_probes), the latest of each process count.
  std::vector<NetworkProbe> probes;
};

/// What to forecast for one experiment.
struct ForecastOptions {
  std::string experiment;
  std::optional<double> target;   // E_s in (0, 1]; default: the experiment's, from its plan
  std::size_t doublings = 2;      // next doublings of the site
  std::vector<WhatIf> what_ifs;   // grown from the largest measured set
  std::set<int> fit_sets;         // sets whose runs the model is fitted on; empty: all
  std::optional<SiteTable> site;  // default: the experiment's site in the database
  std::size_t resamples = default_forecast_resamples;  // of the rows' intervals
  /// The rows' intervals hold a new run's own noise (where one new run on the set lands);
  /// false: the fit's uncertainty alone (where the mean of many runs lies).
  bool run_noise = true;
};

/// The runs the model is fitted on and the runs held out.
struct FittingSamples {
  std::vector<TimingSample> fitted;
  std::vector<TimingSample> held_out;
  std::set<int> fitted_sets;  // the set indices of `fitted`
};

/// Splits `samples` (of sets `sample_sets`, one index per sample) into the runs of `fit`
/// (all when empty) and the others. Throws Error when a set of `fit` has no sample (the
/// message lists the sets that have) or when the fitted runs are on fewer than 2 process
/// counts (the message names the sets that would add one).
FittingSamples choose_fitting_samples(const std::vector<TimingSample>& samples,
                                      const std::vector<int>& sample_sets, const std::set<int>& fit,
                                      const std::string& experiment);

/// The sets to forecast: `measured` (at least one), then `doublings` doublings of the
/// fastest of them, then the what-ifs grown from it (each with the fastest as its base).
std::vector<ForecastSet> forecast_sets(const std::vector<ForecastSet>& measured,
                                       std::size_t doublings, const std::vector<WhatIf>& what_ifs,
                                       const SiteTable* site);

/// T0 from the network probes (kernel_communication.hpp's probed_communication) on every
/// process count that none of the `fitted` runs has: a set the fit saw keeps the
/// communication its runs measured, a set beyond them (a held-out set, a doubling, a
/// what-if) takes its communication from the probe at its size. Nothing when `code` is no
/// described kernel or there are no probes.
void use_probes_beyond_fitted_sets(TimeModel& model, const std::string& code, const std::vector<NetworkProbe>& probes,
                                   const std::vector<TimingSample>& fitted);

/// Mean |predicted - measured| / measured of T over `samples` (0 when there are none).
double mean_relative_error(const TimeModel& model, const std::vector<TimingSample>& samples);

/// Mean |relative_error| of the parameter over the measured rows whose set was fitted on
/// (`fitted` true) or held out (false), `fit` empty meaning all sets were fitted on;
/// nullopt when there is no such row.
std::optional<double> mean_parameter_error(const std::vector<ForecastRow>& rows,
                                           const std::set<int>& fit, bool fitted);

/// How many measured sets the fit did not see have their measured parameter at the
/// target inside their row's interval of the parameter: `points` such sets with a measured
/// parameter and a forecast, `inside` of them covered (an absent bound covers its side; a
/// row without an interval covers nothing).
struct HeldOutCoverage {
  std::size_t inside = 0;
  std::size_t points = 0;
};
HeldOutCoverage held_out_coverage(const std::vector<ForecastRow>& rows, const std::set<int>& fit);

/// One experiment's forecast.
struct ExperimentForecast {
  std::string experiment;
  double target = 0;
  std::string workload;    // W formula
  std::string speed_unit;  // of the marked speeds
  /// The fitted model's description and the sets it saw, e.g. "T = ...; fitted on sets
  /// 0,1 (14 runs)": stored in predictions.model.
  std::string model;
  std::set<int> fit_sets;     // as asked; empty: all sets
  std::set<int> fitted_sets;  // the sets fitted on
  std::size_t fitted_runs = 0;
  std::size_t held_out_runs = 0;
  double forecast_error = 0;                       // mean relative error of T on the fitted runs
  std::optional<double> held_out_forecast_error;   // on the held-out runs, when any
  std::optional<double> fitted_parameter_error;    // mean_parameter_error, fitted sets
  std::optional<double> held_out_parameter_error;  // mean_parameter_error, held-out sets
  HeldOutCoverage held_out_coverage;               // held_out_coverage of the rows
  std::vector<ForecastRow> rows;                   // with their intervals (add_forecast_intervals)
  double interval_level = forecast_interval_level;
  bool interval_run_noise = true;  // ForecastOptions::run_noise
  std::size_t interval_resamples = 0;
  std::size_t residual_degrees_of_freedom = 0;  // of the fitted runs' wall times
  long long batch = 0;  // the prediction batch the rows are stored as
};

/// Fits the model on the chosen runs of `in` and forecasts every set at `target`, each row
/// with its intervals (add_forecast_intervals on the fitted runs, options.resamples,
/// seeded by forecast_seed of the experiment and target); `in.site` gives the doublings
/// and `add:` what-ifs. options.target and options.site are
/// not read: the caller has resolved them into `target` and `in.site`.
/// Throws Error as choose_fitting_samples, apply_what_if and TimeModel::fit do.
ExperimentForecast forecast_from_input(const PredictionInput& in, const ForecastOptions& options,
                                       double target);

/// The rows as a table: kind, label, nodes, processes, marked_speed, predicted_parameter,
/// predicted_work, psi (each with its interval: add_interval_columns), psi_against (the
/// label of the row psi is against: a what-if's base, else the previous row),
/// measured_parameter, measured_work, relative_error, fitted (yes or no for measured sets,
/// empty otherwise), note.
Table forecast_table(const ExperimentForecast& forecast, TableFormat format);

/// As `hetscale predict --db` prints it: in `table` format a summary (model, errors, the
/// intervals' level and method), the table, the notes of the intervals with an open bound
/// and the batch; in `json` an object of the summary with the rows; in `csv` the rows.
void print_forecast(std::ostream& out, const ExperimentForecast& forecast, TableFormat format);

}  // namespace hetscale
