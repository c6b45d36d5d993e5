// Analytic scalability prediction (docs/science.md section 1, "Prediction"): the run time of a
// code on p processes is modelled as T(N, p) = W(N) t_c / p + T0(N, p), with T0 an
// expression built from measured communication costs and t_c a measured time per unit of
// work. From a base system (marked speed C, p processes, size N) the model gives the base
// speed-efficiency E_s = W / (T C); for each target system (C', p') the scaled size N'
// that keeps E_s solves W(N') / (T(N', p') C') = E_s, and psi' = T0 / T0' (Corollary 2).
// No measured run of the targets is needed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hetscale/model/workload.hpp"

namespace hetscale {

/// A system: marked speed C (operations per second) and processes p.
struct AnalyticSystem {
  double marked_speed = 0;
  double processes = 1;
  std::string label;  // how errors name it (default "C:p", C in operations per second)
};

/// How the compute time of a system follows from t_c, measured on the base.
enum class ComputeTime {
  per_process,  // T_c = W t_c / p, the paper's (processes of the same speed)
  balanced,     // T_c = W t_c (C_base / p_base) / C: work shared in proportion to marked
                // speed, t_c measured on processes of the base's mean speed
};

/// T0 computed rather than written: a function of N and p in seconds, and how to name it.
struct ComputedOverhead {
  std::string text;  // what errors and reports call it
  std::function<double(double n, double p)> seconds;
};

/// The model: W(N) in operations, T0(N, p) an expression in N and p whose values are in
/// `overhead_seconds` seconds each (1e-3 for an expression in ms), or a computed T0 in
/// seconds, t_c in seconds per operation.
struct AnalyticModel {
  Workload workload;  // one parameter, N
  Workload overhead;  // parameters among N and p; "0" when computed
  double overhead_seconds = 1;
  double unit_seconds = 0;  // t_c
  ComputeTime compute = ComputeTime::per_process;
  ComputedOverhead computed;  // used instead of `overhead` when its function is set

  /// Checks the parameters (W: only N; T0: only N and p) and the scales (positive,
  /// finite); throws Error naming what is wrong.
  AnalyticModel(Workload workload, Workload overhead, double overhead_seconds, double unit_seconds,
                ComputeTime compute = ComputeTime::per_process);
  /// With a computed T0 (its function must be set).
  AnalyticModel(Workload workload, ComputedOverhead overhead, double unit_seconds,
                ComputeTime compute = ComputeTime::per_process);

  /// The overhead's expression, or the computed one's text.
  [[nodiscard]] std::string overhead_text() const;

  [[nodiscard]] double work(double n) const;                           // W(N)
  [[nodiscard]] double overhead_at(double n, double processes) const;  // T0(N, p), s
  /// T_c / W on `system`, t_c having been measured on `base` (see ComputeTime), s.
  [[nodiscard]] double compute_seconds_per_work(const AnalyticSystem& system,
                                                const AnalyticSystem& base) const;
  /// T_c(N) on `system`, s.
  [[nodiscard]] double compute_seconds(double n, const AnalyticSystem& system,
                                       const AnalyticSystem& base) const;
  /// T = T_c + T0, s.
  [[nodiscard]] double seconds(double n, const AnalyticSystem& system,
                               const AnalyticSystem& base) const;
  /// E_s = W / (T C), C in operations per second.
  [[nodiscard]] double speed_efficiency(double n, const AnalyticSystem& system,
                                        const AnalyticSystem& base) const;
};

/// One predicted target.
struct AnalyticTarget {
  AnalyticSystem system;
  double parameter = 0;         // N'
  double work = 0;              // W(N')
  double seconds = 0;           // T(N', p')
  double overhead_seconds = 0;  // T0(N', p')
  double speed_efficiency = 0;  // E_s at N' (the base E_s, to the solver's tolerance)
  double psi = 0;               // T0 / T0' (Corollary 2)
  double psi_definition = 0;    // (C' W) / (C W'), equal to psi when C / p = C' / p'
};

struct AnalyticPrediction {
  AnalyticSystem base;
  double base_parameter = 0;         // N
  double base_work = 0;              // W(N)
  double base_seconds = 0;           // T(N, p)
  double base_overhead_seconds = 0;  // T0(N, p)
  double base_efficiency = 0;        // E_s of the base, from the model
  std::string note;  // when the base E_s is above 1 (t_c and C disagree), else empty
  std::vector<AnalyticTarget> targets;
};

/// Solves the isospeed-e condition for every target. N' is where E_s first rises to the
/// base E_s: a geometric scan of N over [N / 1000, N * 1e6] (64 points a decade; points
/// where W <= 0, T0 < 0 or either is not finite are skipped) finds the first point at or
/// above the base E_s after one below it, then bisection in ln N narrows it to a relative
/// 1e-12. Throws Error when the base gives no positive, finite W or no finite T0 >= 0, or
/// when on a target no N' in the range reaches the base E_s (the message names the target
/// and the highest E_s found there) or E_s is above it from the smallest N on.
AnalyticPrediction predict_analytic(const AnalyticModel& model, const AnalyticSystem& base,
                                    double base_parameter,
                                    const std::vector<AnalyticSystem>& targets);

}  // namespace hetscale
