#include "hetscale/jobgen/time_limit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <span>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_limits.hpp"
#include "hetscale/jobgen/measurements.hpp"
#include "hetscale/jobgen/round.hpp"
#include "hetscale/model/isospeed.hpp"
#include "hetscale/model/units.hpp"
#include "hetscale/slurm/scontrol.hpp"

namespace hetscale::jobgen {
namespace {

double work_at(const Round& round, double parameter) {
  return round.spec.workload.evaluate(std::span<const double>(&parameter, 1));
}

std::string number(double v) { return fmt::format("{:.4g}", v); }

// T per repetition -> the limit of one array task, with the rule's arithmetic as text.
SetTimeLimit from_seconds_per_run(const Round& round, const RoundSet& set, double seconds, std::string basis) {
  const TimeLimitRule& rule = time_limit_rule;
  const std::uint32_t reps = most_task_repetitions(round, set);
  const std::size_t steps = round.spec.slurm.weights.size();  // one run per weights in a repetition
  const double total = seconds * reps * static_cast<double>(steps) * rule.safety_factor + rule.startup_seconds;
  // Checked before the conversion: an infinite or huge double converted to an integer is
  // undefined behaviour.
  if (!(total <= kMaxSeconds))
    throw Error(fmt::format("the time limit {} s ({}) is more than the {} s allowed: give [slurm] "
                            "time_limit or a smaller [parameter] range",
                            number(total), basis, number(kMaxSeconds)));
  const auto minutes = static_cast<std::uint64_t>(std::ceil(total / 60));
  const std::uint64_t limit = std::max(minutes * 60, rule.floor_seconds);
  basis += fmt::format("; x {} repetition{}{} x safety {} + {} s start-up = {} s, ", reps, reps == 1 ? "" : "s",
                       steps == 1 ? "" : fmt::format(" x {} weights", steps), number(rule.safety_factor),
                       number(rule.startup_seconds), number(total));
  basis += limit > minutes * 60 ? fmt::format("raised to the floor of {} min", rule.floor_seconds / 60)
                                : "rounded up to whole minutes";
  return {slurm::format_slurm_time(limit), limit, std::move(basis)};
}

}  // namespace

SetTimeLimit planned_time_limit(const Round& round, const RoundSet& set) {
  if (const auto& fixed = round.spec.slurm.time_limit)
    return {*fixed, slurm::parse_slurm_time(*fixed).value_or(0), "fixed by [slurm] time_limit"};
  return estimated_time_limit(round, set);
}

SetTimeLimit estimated_time_limit(const Round& round, const RoundSet& set) {
  const std::string& unit = round.site.speed_unit;
  if (set.parameter_values.empty()) return {};
  const auto scale = [&]() -> std::optional<double> {
    try {
      return speed_unit_scale(unit);
    } catch (const Error&) {
      return std::nullopt;
    }
  }();
  const std::uint64_t fallback = time_limit_rule.fallback_seconds;
  if (!scale) {
    return {slurm::format_slurm_time(fallback), fallback,
            fmt::format("the speed unit '{}' gives no seconds: the default {}", unit, slurm::format_slurm_time(fallback))};
  }
  if (!(set.set.marked_speed > 0)) {
    return {slurm::format_slurm_time(fallback), fallback,
            fmt::format("machine set {} has no marked speed: the default {}", set.set.index, slurm::format_slurm_time(fallback))};
  }
  const double n = set.parameter_values.back();
  const double w = work_at(round, n);
  const double target = round.spec.target_efficiency;
  const double seconds = isospeed::seconds_at_efficiency(w, set.set.marked_speed * *scale, target);
  return from_seconds_per_run(
      round, set, seconds,
      fmt::format("estimated from {}={}: T = W / (C E_target) = {} / ({} {} x {}) = {} s", round.spec.parameter.name,
                  fmt::format("{}", n), number(w), number(set.set.marked_speed), unit, number(target),
                  number(seconds)));
}

std::optional<SetTimeLimit> measured_time_limit(const Round& round, const RoundSet& set,
                                                const std::vector<MeasuredRun>& runs) {
  if (set.parameter_values.empty()) return std::nullopt;
  const double n = set.parameter_values.back();
  const double w = work_at(round, n);
  const MeasuredRun* nearest = nullptr;
  double nearest_distance = std::numeric_limits<double>::infinity();
  for (const MeasuredRun& run : runs) {
    if (run.set_index != set.set.index || run.work <= 0 || run.wall_seconds <= 0) continue;
    const double distance = std::abs(std::log(run.work / w));
    if (nearest == nullptr || distance < nearest_distance ||
        (distance == nearest_distance && run.wall_seconds > nearest->wall_seconds)) {
      nearest = &run;
      nearest_distance = distance;
    }
  }
  if (nearest == nullptr) return std::nullopt;
  const double ratio = w / nearest->work;
  const double seconds = nearest->wall_seconds * ratio;
  return from_seconds_per_run(
      round, set, seconds,
      fmt::format("measured {} s at {}={} (the run nearest in work), x W({}) / W({}) = {} -> {} s", number(nearest->wall_seconds),
                  round.spec.parameter.name, fmt::format("{}", nearest->parameter), fmt::format("{}", n),
                  fmt::format("{}", nearest->parameter), number(ratio), number(seconds)));
}

void apply_measured_time_limits(Round& round, const std::vector<MeasuredRun>& runs) {
  for (RoundSet& set : round.sets) {
    if (set.parameter_values.empty()) continue;
    const auto measured = round.spec.slurm.time_limit ? std::nullopt : measured_time_limit(round, set, runs);
    set.time_limit = measured ? *measured : planned_time_limit(round, set);
  }
}

void cap_time_limits(Round& round, std::uint64_t max_seconds, const std::string& partition) {
  if (round.spec.slurm.time_limit) return;
  for (RoundSet& set : round.sets) {
    SetTimeLimit& limit = set.time_limit;
    if (limit.seconds <= max_seconds) continue;
    limit.basis += fmt::format("; {} capped at MaxTime {} of partition '{}'", limit.slurm_time,
                               slurm::format_slurm_time(max_seconds), partition);
    limit.seconds = max_seconds;
    limit.slurm_time = slurm::format_slurm_time(max_seconds);
  }
}

}  // namespace hetscale::jobgen
