// Confidence intervals for the figures a benchmark prints over repeated runs: the mean of
// a sample (Student's t) and its coefficient of variation (through the chi-square
// interval of the standard deviation), so a target can be called met, missed or not yet
// decided by the runs at hand.
#pragma once

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

/// Mean, standard deviation and CV of `values` with two-sided confidence intervals at
/// `level` (0.95 or 0.99). Throws Error for fewer than 2 values, a non-positive mean
/// (for the CV) or another level.
/// The median of a sample (the mean of the two middle values for an even count); 0 for
/// an empty one.
[[nodiscard]] double median(std::vector<double> values);

SampleSummary summarize_sample(std::span<const double> values, double level = 0.95);

/// Where an interval stands against a target range [low, high]: "met" when it lies
/// inside, "missed" when it lies wholly outside, "undecided" otherwise.
std::string verdict(const Interval& interval, const Interval& target);

}  // namespace hetscale
