// Analytic scalability prediction (docs/science.md section 1, "Prediction"): the run time of a
// code on p processes is modelled as T(N, p) = W(N) t_c / p + T0(N, p), with T0 an
// expression built from measured communication costs and t_c a measured time per unit of
// work. From a base system (marked speed C, p processes, size N) the model gives the base
// speed-efficiency E_s = W / (T C); for each target system (C', p') the scaled size N'
// that keeps E_s solves W(N') / (T(N', p') C') = E_s, and psi' = T0 / T0' (Corollary 2).
// No measured run of the targets is needed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetscale/model/network_calibration.hpp"
#include "hetscale/model/workload.hpp"
#include "hetscale/site/site_table.hpp"

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

/// The model: W(N) in operations, T0(N, p) an expression in N and p whose values are in
/// `overhead_seconds` seconds each (1e-3 for an expression in ms), t_c in seconds per
/// operation.
struct AnalyticModel {
  Workload workload;  // one parameter, N
  Workload overhead;  // parameters among N and p
  double overhead_seconds = 1;
  double unit_seconds = 0;  // t_c
  ComputeTime compute = ComputeTime::per_process;

  /// Checks the parameters (W: only N; T0: only N and p) and the scales (positive,
  /// finite); throws Error naming what is wrong.
  AnalyticModel(Workload workload, Workload overhead, double overhead_seconds, double unit_seconds,
                ComputeTime compute = ComputeTime::per_process);

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

/// Communication costs in milliseconds, for the overhead models of the bundled kernels:
/// a message of B bytes takes `send_ms + send_ms_per_byte * B` (T_send = T_recv); a
/// small-message broadcast over p processes takes `bcast_ms` and a barrier `barrier_ms`,
/// both expressions in p.
struct CommunicationCosts {
  double send_ms = 0;
  double send_ms_per_byte = 0;
  std::string bcast_ms;
  std::string barrier_ms;
};

/// From hetscale-commbench's fitted lines (seconds; T_send per byte): the paper's linear
/// models T_send = a2 + b2 B, T_bcast = a1 + b1 p, T_barrier = a3 + b3 p.
CommunicationCosts communication_costs(const CommModels& models);
/// From a site table's [network] (a star: each message crosses two host links): T_send =
/// 2 latency + B / bandwidth; binomial-tree collectives T_bcast = lg(p) * 2 latency and
/// T_barrier = lg(p) * 2 latency (dissemination, zero-byte messages).
CommunicationCosts communication_costs(const Network& network);
/// The fitted models of hetscale-commbench's JSON output (its "models" object).
CommModels read_commbench_models(const std::string& path);

/// T0(N, p) in ms of a bundled kernel ("mm", "ge", "conv2d"), as an expression in N and p
/// (docs/predict.md, "Overhead models of the bundled kernels"). Throws Error for another
/// name.
std::string kernel_overhead_expression(std::string_view kernel, const CommunicationCosts& costs);

}  // namespace hetscale
