// Prediction intervals of a capacity forecast's rows. Method and its measured coverage:
// docs/science.md, "Intervals of the forecast".
#include "hetscale/model/forecast_bootstrap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"

namespace hetscale {
namespace {

using detail::rounded_text;
using detail::shortest_text;

constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr double undetermined = std::numeric_limits<double>::quiet_NaN();

// The root of a replicate's prediction: -inf / +inf where it lies below / above the range
// searched.
double root_of(const ParameterPrediction& p) {
  if (p.found) return p.parameter;
  switch (p.beyond) {
    case ParameterPrediction::Beyond::below:
      return -infinity;
    case ParameterPrediction::Beyond::above:
      return infinity;
    case ParameterPrediction::Beyond::none:
      break;
  }
  return undetermined;
}

}  // namespace

std::uint64_t forecast_seed(std::string_view experiment, double target) {
  return resample_seed({"forecast", experiment, shortest_text(target)});
}

std::uint64_t forecast_row_seed(std::uint64_t seed, std::string_view label) {
  return resample_seed({std::to_string(seed), label});
}

TimeResampler::TimeResampler(const TimeModel& model, std::span<const TimingSample> samples)
    : samples_(samples.begin(), samples.end()), coefficients_(model.fitted_coefficients()) {
  std::vector<double> residuals;
  for (const TimingSample& s : samples_) {
    if (!(s.wall_seconds > 0))
      throw Error("a timing sample needs a positive wall time, got " +
                  shortest_text(s.wall_seconds));
    fitted_seconds_.push_back(model.seconds(s.parameter, s.marked_speed, s.processes));
    residuals.push_back(s.wall_seconds / fitted_seconds_.back());
  }
  if (samples_.size() <= coefficients_) return;
  degrees_of_freedom_ = samples_.size() - coefficients_;
  double mean = 0;
  for (double r : residuals) mean += r;
  mean /= static_cast<double>(residuals.size());
  const double correction =
      std::sqrt(static_cast<double>(samples_.size()) / static_cast<double>(degrees_of_freedom_));
  for (double r : residuals) pool_.push_back(std::max(0.0, 1 + (r - mean) * correction));
  std::sort(pool_.begin(), pool_.end());
}

void TimeResampler::replicate(ResampleRandom& random, std::vector<TimingSample>& out) const {
  out = samples_;
  for (std::size_t i = 0; i < out.size(); ++i) {
    TimingSample& s = out[i];
    const double scale = fitted_seconds_[i] * run_noise(random) / s.wall_seconds;
    s.wall_seconds *= scale;
    s.compute_seconds *= scale;
    s.communication_seconds *= scale;
  }
}

double TimeResampler::run_noise(ResampleRandom& random) const {
  if (pool_.empty())
    throw Error(
        fmt::format("{} runs for {} fitted coefficients: there are no residuals to resample",
                    samples_.size(), coefficients_));
  return pool_[random.below(pool_.size())];
}

ForecastReplicates add_forecast_intervals(std::vector<ForecastRow>& rows, const TimeModel& model,
                                          std::span<const TimingSample> samples,
                                          const Workload& workload, CommunicationPattern pattern,
                                          double target, double ops_per_unit,
                                          const ForecastIntervalOptions& options) {
  const TimeResampler resampler(model, samples);
  ForecastReplicates out;
  out.runs = resampler.runs();
  out.degrees_of_freedom = resampler.degrees_of_freedom();
  out.parameter.resize(rows.size());
  out.work.resize(rows.size());
  for (ForecastRow& row : rows) {
    row.parameter_interval = {};
    row.work_interval = {};
    row.psi_interval = {};
  }
  if (resampler.degrees_of_freedom() == 0) {
    const std::string note = fmt::format(
        "no interval: {} runs for {} fitted coefficients of the time model; an interval needs "
        "more runs than coefficients",
        resampler.runs(), resampler.coefficients());
    for (ForecastRow& row : rows) {
      row.parameter_interval = row.work_interval = {{}, {}, "too few runs", note};
      if (row.psi) row.psi_interval = row.parameter_interval;
    }
    return out;
  }
  if (options.resamples == 0) throw Error("a bootstrap needs at least one resample");
  const auto [low, high] = forecast_search_range(model);
  std::vector<ResampleRandom> noise;
  for (const ForecastRow& row : rows)
    noise.emplace_back(forecast_row_seed(options.seed, row.set.label));
  for (auto& r : out.parameter) r.reserve(options.resamples);
  ResampleRandom random(options.seed);
  std::vector<TimingSample> replicate;
  for (std::size_t b = 0; b < options.resamples; ++b) {
    resampler.replicate(random, replicate);
    std::optional<TimeModel> fitted;
    try {
      fitted = TimeModel::fit(replicate, workload, pattern);
      fitted->use_probed_communication_of(model);
    } catch (const Error&) {
      // A replicate the model cannot be fitted to gives no root on any row.
    }
    for (std::size_t j = 0; j < rows.size(); ++j) {
      const double factor = options.run_noise ? resampler.run_noise(noise[j]) : 1;
      const ForecastSet& set = rows[j].set;
      out.parameter[j].push_back(
          fitted ? root_of(predict_parameter(*fitted, workload, set.marked_speed * ops_per_unit,
                                             set.processes, target * factor, low, high))
                 : undetermined);
    }
  }
  const std::string below = "below the smallest size searched, " + rounded_text(low);
  const std::string above = "above the largest size searched, " + rounded_text(high);
  for (std::size_t j = 0; j < rows.size(); ++j) {
    ForecastRow& row = rows[j];
    out.work[j].reserve(options.resamples);
    for (double n : out.parameter[j])
      out.work[j].push_back(std::isfinite(n) ? workload.evaluate(std::vector<double>{n}) : n);
    if (!row.prediction.found) {
      row.parameter_interval = row.work_interval = {
          {}, {}, "no parameter", "no interval: the forecast has no parameter at the target"};
      continue;
    }
    row.parameter_interval = reported_interval(out.parameter[j], options.level, below, above);
    row.work_interval = reported_interval(out.work[j], options.level, below, above);
  }
  for (std::size_t j = 0; j < rows.size(); ++j) {
    ForecastRow& row = rows[j];
    if (!row.psi || !row.psi_against) continue;
    const ForecastRow& against = rows[*row.psi_against];
    const std::vector<double> psi = psi_replicates(
        against.set.marked_speed, out.work[*row.psi_against], row.set.marked_speed, out.work[j]);
    row.psi_interval =
        reported_interval(psi, options.level, "with a root beyond the range searched",
                          "with a root beyond the range searched");
  }
  return out;
}

}  // namespace hetscale
