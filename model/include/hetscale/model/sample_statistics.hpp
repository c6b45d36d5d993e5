// Confidence intervals for the figures a benchmark prints over repeated runs: the mean of
// a sample (Student's t) and its coefficient of variation (through the chi-square
// interval of the standard deviation), so a target can be called met, missed or not yet
// decided by the runs at hand.
#pragma once

#include <optional>
#include <span>
#include <vector>
#include <string>

namespace hetscale {

struct Interval {
  double low = 0;
  double high = 0;
};

struct SampleSummary {
  std::size_t count = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1)
  double cv = 0;      // stddev / mean
  Interval mean_interval;  // two-sided, at the level asked
  Interval cv_interval;    // two-sided, at the level asked
};

/// The median of a sample (the mean of the two middle values for an even count); 0 for
/// an empty one.
[[nodiscard]] double median(std::vector<double> values);

/// The two-sided standard normal quantile z_{1-(1-level)/2} at `level` (0.95 or 0.99).
/// Throws Error for another level, naming it.
[[nodiscard]] double normal_quantile(double level);

/// Student's t quantile t_{1-(1-level)/2, df} at `level` (0.95 or 0.99) with `df` >= 1
/// degrees of freedom: exact table values up to 30, then the Cornish-Fisher expansion
/// around the normal quantile. Throws Error for another level or df = 0.
[[nodiscard]] double student_t_quantile(double level, std::size_t df);

/// Mean, standard deviation and CV of `values` with two-sided confidence intervals at
/// `level` (0.95 or 0.99). Throws Error for fewer than 2 values, a non-positive mean
/// (for the CV) or another level.
SampleSummary summarize_sample(std::span<const double> values, double level = 0.95);

/// The mean of repeated measurements with its Student t interval, as every per-size figure
/// reports it (hetscale analyze's per-size E_s): with one value, no standard deviation and
/// no interval, and `reason` and `note` say "1 run".
struct MeanEstimate {
  std::size_t count = 0;
  double mean = 0;
  std::optional<double> stddev{};  // sample standard deviation (n - 1)
  std::optional<double> low{};     // two-sided, at the level asked
  std::optional<double> high{};
  std::string reason{};  // the short reason there is no interval; empty with one
  std::string note{};    // what the reader should know of the interval; empty: nothing
};

/// The mean of `values` with its t interval at `level` (0.95 or 0.99). For a figure that
/// cannot be less than `lowest` (E_s: 0), a lower bound below it is `lowest` and `note`
/// says so ("lower bound clamped at 0 from -0.1: the figure cannot be less"): with 2 runs
/// t is 12.7, and the bound can fall far below. Throws Error for no values or another
/// level.
MeanEstimate mean_estimate(std::span<const double> values, double level = 0.95,
                           std::optional<double> lowest = std::nullopt);

/// Where an interval stands against a target range [low, high]: "met" when it lies
/// inside, "missed" when it lies wholly outside, "undecided" otherwise.
std::string verdict(const Interval& interval, const Interval& target);

}  // namespace hetscale
