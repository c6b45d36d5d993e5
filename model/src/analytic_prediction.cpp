// Analytic prediction: T(N, p) = W(N) t_c / p + T0(N, p), solved for the N' that keeps the
// base speed-efficiency on each target (docs/science.md section 1, "Prediction").
#include "hetscale/model/analytic_prediction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "hetscale/base/error.hpp"
#include "hetscale/model/isospeed.hpp"

namespace hetscale {
namespace {

constexpr double kLowFactor = 1e-3;   // scan from N / 1000 ...
constexpr double kHighFactor = 1e6;   // ... to N * 1e6
constexpr int kPointsPerDecade = 64;  // of the geometric scan
constexpr double kRelativeTolerance = 1e-12;

bool only_names(const Workload& expression, std::initializer_list<std::string_view> allowed,
                std::string& unknown) {
  for (const std::string& name : expression.parameters()) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      unknown = name;
      return false;
    }
  }
  return true;
}

std::string system_label(const AnalyticSystem& s) {
  return s.label.empty() ? fmt::format("{:g}:{:g}", s.marked_speed, s.processes) : s.label;
}

// E_s at N, or NaN where the model gives no usable value (W or T0 not finite, W <= 0,
// T0 < 0): such points are never taken as a crossing.
double efficiency_or_nan(const AnalyticModel& model, double n, const AnalyticSystem& s,
                         const AnalyticSystem& base) {
  const double w = model.work(n);
  const double t0 = model.overhead_at(n, s.processes);
  if (!std::isfinite(w) || w <= 0 || !std::isfinite(t0) || t0 < 0)
    return std::numeric_limits<double>::quiet_NaN();
  const double t = model.compute_seconds(n, s, base) + t0;
  if (!std::isfinite(t) || t <= 0) return std::numeric_limits<double>::quiet_NaN();
  const double e = isospeed::speed_efficiency(w, t, s.marked_speed);
  return std::isfinite(e) ? e : std::numeric_limits<double>::quiet_NaN();
}

void check_system(const AnalyticSystem& s, const std::string& what) {
  if (!(std::isfinite(s.marked_speed) && s.marked_speed > 0))
    throw Error(fmt::format("{}: the marked speed must be positive and finite", what));
  if (!(std::isfinite(s.processes) && s.processes >= 1))
    throw Error(fmt::format("{}: the number of processes must be at least 1", what));
}

// The smallest N in [low, high] with E_s(N) >= target, by a geometric scan for the first
// rise to the target and bisection in ln N.
AnalyticTarget solve_target(const AnalyticModel& model, const AnalyticSystem& system,
                            const AnalyticSystem& base, double target, double low, double high) {
  const std::string label = system_label(system);
  const int steps = static_cast<int>(std::ceil(std::log10(high / low) * kPointsPerDecade));
  const double step = std::log(high / low) / steps;
  double best = -1, best_n = 0;
  double below = 0;  // the last scanned N with a usable E_s below the target (0: none yet)
  double above = 0;  // the first N after `below` whose E_s reaches the target
  double early = 0;  // a usable N at or above the target before any below it
  for (int i = 0; i <= steps; ++i) {
    const double n = low * std::exp(step * i);
    const double e = efficiency_or_nan(model, n, system, base);
    if (std::isnan(e)) continue;
    if (e > best) {
      best = e;
      best_n = n;
    }
    if (e < target) {
      below = n;
    } else if (below > 0) {
      above = n;
      break;
    } else if (early == 0) {
      early = n;
    }
  }
  if (above == 0) {
    if (best < 0)
      throw Error(fmt::format("target {}: the model gives no usable E_s for N in [{:g}, {:g}]",
                              label, low, high));
    if (early > 0)
      throw Error(fmt::format(
          "target {}: E_s does not rise with N through the base E_s = {:.6g}: it is already "
          "{:.6g} at N = {:.6g}, the smallest N scanned (check the overhead model)",
          label, target, efficiency_or_nan(model, early, system, base), early));
    throw Error(fmt::format(
        "target {}: no N' in [{:g}, {:g}] reaches the base E_s = {:.6g} (the highest E_s is "
        "{:.6g}, at N = {:.6g}): the overhead grows too fast, or the system computes too "
        "slowly (E_s approaches W / (T_c C) = {:.6g} as W dominates)",
        label, low, high, target, best, best_n,
        1 / (model.compute_seconds_per_work(system, base) * system.marked_speed)));
  }
  double n = above;
  {
    double lo = std::log(below), hi = std::log(above);
    for (int i = 0; i < 200 && hi - lo > kRelativeTolerance; ++i) {
      const double mid = 0.5 * (lo + hi);
      const double e = efficiency_or_nan(model, std::exp(mid), system, base);
      if (!std::isnan(e) && e >= target) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    n = std::exp(hi);
  }
  AnalyticTarget out;
  out.system = system;
  out.parameter = n;
  out.work = model.work(n);
  out.overhead_seconds = model.overhead_at(n, system.processes);
  out.seconds = model.seconds(n, system, base);
  out.speed_efficiency = model.speed_efficiency(n, system, base);
  return out;
}

}  // namespace

AnalyticModel::AnalyticModel(Workload w, Workload t0, double overhead_scale, double t_c,
                             ComputeTime compute_time)
    : workload(std::move(w)),
      overhead(std::move(t0)),
      overhead_seconds(overhead_scale),
      unit_seconds(t_c),
      compute(compute_time) {
  std::string unknown;
  if (workload.parameters() != std::vector<std::string>{"N"})
    throw Error(fmt::format("the workload '{}' must be a formula in N alone", workload.text()));
  if (!only_names(overhead, {"N", "p"}, unknown))
    throw Error(
        fmt::format("the overhead '{}' may use N and p only, not '{}'", overhead.text(), unknown));
  if (!(std::isfinite(overhead_seconds) && overhead_seconds > 0))
    throw Error("the overhead unit must be a positive, finite number of seconds");
  if (!(std::isfinite(unit_seconds) && unit_seconds > 0))
    throw Error("the time per unit of work t_c must be positive and finite");
}

double AnalyticModel::work(double n) const {
  const std::array<double, 1> values{n};
  return workload.evaluate(values);
}

AnalyticModel::AnalyticModel(Workload w, ComputedOverhead t0, double t_c, ComputeTime compute_time)
    : workload(std::move(w)),
      overhead(Workload::parse("0")),
      overhead_seconds(1),
      unit_seconds(t_c),
      compute(compute_time),
      computed(std::move(t0)) {
  if (workload.parameters() != std::vector<std::string>{"N"})
    throw Error(fmt::format("the workload '{}' must be a formula in N alone", workload.text()));
  if (!computed.seconds) throw Error("a computed overhead needs its function");
  if (!(std::isfinite(unit_seconds) && unit_seconds > 0))
    throw Error("the time per unit of work t_c must be positive and finite");
}

std::string AnalyticModel::overhead_text() const { return computed.seconds ? computed.text : overhead.text(); }

double AnalyticModel::overhead_at(double n, double processes) const {
  if (computed.seconds) return computed.seconds(n, processes);
  // Positional values in the order of the expression's parameters (N, p or a subset).
  std::array<double, 2> values{};
  const auto& names = overhead.parameters();
  for (std::size_t i = 0; i < names.size(); ++i) values[i] = names[i] == "N" ? n : processes;
  return overhead_seconds * overhead.evaluate(std::span<const double>(values.data(), names.size()));
}

double AnalyticModel::compute_seconds_per_work(const AnalyticSystem& system,
                                               const AnalyticSystem& base) const {
  if (compute == ComputeTime::balanced)
    return unit_seconds * (base.marked_speed / base.processes) / system.marked_speed;
  return unit_seconds / system.processes;
}

double AnalyticModel::compute_seconds(double n, const AnalyticSystem& system,
                                      const AnalyticSystem& base) const {
  return work(n) * compute_seconds_per_work(system, base);
}

double AnalyticModel::seconds(double n, const AnalyticSystem& system,
                              const AnalyticSystem& base) const {
  return compute_seconds(n, system, base) + overhead_at(n, system.processes);
}

double AnalyticModel::speed_efficiency(double n, const AnalyticSystem& system,
                                       const AnalyticSystem& base) const {
  return isospeed::speed_efficiency(work(n), seconds(n, system, base), system.marked_speed);
}

AnalyticPrediction predict_analytic(const AnalyticModel& model, const AnalyticSystem& base,
                                    double base_parameter,
                                    const std::vector<AnalyticSystem>& targets) {
  check_system(base, "base " + system_label(base));
  if (!(std::isfinite(base_parameter) && base_parameter > 0))
    throw Error("base: the parameter N must be positive and finite");
  AnalyticPrediction out;
  out.base = base;
  out.base_parameter = base_parameter;
  out.base_work = model.work(base_parameter);
  out.base_overhead_seconds = model.overhead_at(base_parameter, base.processes);
  if (!(std::isfinite(out.base_work) && out.base_work > 0))
    throw Error(
        fmt::format("base: the workload '{}' gives W = {} at N = {:g}; it must be "
                    "positive and finite",
                    model.workload.text(), out.base_work, base_parameter));
  if (!(std::isfinite(out.base_overhead_seconds) && out.base_overhead_seconds >= 0))
    throw Error(fmt::format(
        "base: the overhead '{}' gives T0 = {} s at N = {:g}, p = {:g}; it "
        "must be finite and not negative",
        model.overhead_text(), out.base_overhead_seconds, base_parameter, base.processes));
  out.base_seconds = model.seconds(base_parameter, base, base);
  out.base_efficiency = model.speed_efficiency(base_parameter, base, base);
  if (out.base_efficiency > 1)
    out.note = fmt::format(
        "the base E_s is {:.6g}, above 1: t_c gives the base a compute speed W / T_c = {:.6g} "
        "operations per second, above its marked speed {:.6g}; check the units of t_c and C",
        out.base_efficiency, 1 / model.compute_seconds_per_work(base, base), base.marked_speed);
  const double low = base_parameter * kLowFactor, high = base_parameter * kHighFactor;
  for (const AnalyticSystem& system : targets) {
    check_system(system, "target " + system_label(system));
    AnalyticTarget t = solve_target(model, system, base, out.base_efficiency, low, high);
    if (t.overhead_seconds > 0) {
      t.psi = out.base_overhead_seconds / t.overhead_seconds;
    } else {
      // Corollary 1: no overhead on the target; psi is 1 only when there is none on the base.
      t.psi = out.base_overhead_seconds == 0 ? 1 : std::numeric_limits<double>::infinity();
    }
    t.psi_definition = (system.marked_speed * out.base_work) / (base.marked_speed * t.work);
    out.targets.push_back(t);
  }
  return out;
}

}  // namespace hetscale
